/**
 * A cold open of the web UI (fresh browser profile) moves each list over the network once:
 * the page loads the lists at start, and the reload when the live stream connects waits for
 * that load and goes out as conditional requests (every JSON read carries an ETag and
 * no-cache), answered 304 without a body. 300 stored devices, as at a race; on a fleet of
 * 0 live nodes nothing changes in between, so every second copy is a 304.
 *
 * The first copies leave from index.html's inline script while the app's script is still on
 * its way (ui/src/early.ts), and the app uses each of them (none is sent twice); the first
 * screen's script is one file without the pages and dialogs it does not show.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fleetState } from '../../bench/fleet-state.ts';
import { serializeState } from '../../src/state/migrations.ts';
import { withHost } from '../integration/harness.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';

let b: BrowserHandle;
beforeAll(async () => {
  b = await openBrowser();
});
afterAll(async () => {
  await b.close();
});

// Not /api/master: it carries live gateway counters (frames sent …) that change between
// the two loads on their own, so its second copy is rightly a fresh one.
const LISTS = ['devices', 'groups', 'scenes', 'native-presets', 'console'];

describe('cold open', () => {
  it('each-list-body-travels-once', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-cold-open-'));
    await writeFile(join(dataDir, 'state.json'), serializeState(fleetState(300, 16)));
    try {
      await withHost({ nodes: 0, dataDir }, async (h) => {
        const fetched: { list: string; conditional: boolean; bytes: number }[] = [];
        const done: Promise<void>[] = [];
        b.page.on('requestfinished', (req) => {
          const list = new URL(req.url()).pathname.split('/api/')[1] ?? '';
          if (!LISTS.includes(list)) return;
          done.push(
            (async () => {
              const headers = await req.allHeaders();
              const sizes = await req.sizes();
              fetched.push({ list, conditional: 'if-none-match' in headers, bytes: sizes.responseBodySize });
            })(),
          );
        });
        await b.page.goto(h.url + '/');
        await b.page.getByTestId('gateway-pill').waitFor();
        // Both loads done: the reconnect load ends with the UI's link state 'open' and all lists in.
        for (const list of LISTS) {
          await expect.poll(() => fetched.filter((f) => f.list === list).length, { timeout: 30_000 }).toBe(2);
        }
        await Promise.all(done);
        // (A string: the test project has no DOM types.)
        const page = (await b.page.evaluate(`(() => {
          const nav = performance.getEntriesByType('navigation')[0];
          const res = performance.getEntriesByType('resource');
          const firstOf = (path) => res.find((e) => new URL(e.name).pathname.endsWith(path));
          return {
            unused: Object.keys(window.__lightnetEarly ?? { missing: true }),
            devicesSent: firstOf('/api/devices')?.startTime ?? NaN,
            domContentLoaded: nav.domContentLoadedEventStart,
            scripts: [...document.querySelectorAll('script[src]')].map((s) => s.getAttribute('src')),
          };
        })()`)) as { unused: string[]; devicesSent: number; domContentLoaded: number; scripts: string[] };
        // Every early answer taken by the app: none left unused.
        expect(page.unused).toEqual([]);
        // Sent while the document was still being parsed: before any script of the app ran.
        expect(page.devicesSent).toBeLessThan(page.domContentLoaded);
        expect(page.scripts).toHaveLength(1);
        for (const list of LISTS) {
          const mine = fetched.filter((f) => f.list === list);
          expect(
            mine.filter((f) => f.bytes > 0),
            list,
          ).toHaveLength(1);
          expect(
            mine.filter((f) => f.conditional && f.bytes === 0),
            list,
          ).toHaveLength(1);
        }
      });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
