/**
 * What a newcomer tripped over on a first start: at 390 px the page tabs were squeezed beside
 * the brand and buttons and 'Race lights' showed as 'Race li'; the Race page said "pin one
 * below" with nothing below. Screenshots go to /tmp/shots-fixB/.
 */
import { mkdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withHost } from '../integration/harness.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';

const SHOTS = '/tmp/shots-fixB';
let b: BrowserHandle;
beforeAll(async () => {
  b = await openBrowser({ width: 390, height: 844 });
  await mkdir(SHOTS, { recursive: true });
});
afterAll(async () => {
  await b?.close();
});

describe('first start on a phone and a laptop', () => {
  for (const width of [390, 1280]) {
    it(`every-page-tab-reads-whole-and-the-last-is-reachable-at-${width}px`, async () => {
      await withHost({ nodes: 1 }, async (h) => {
        const page = b.page;
        await page.setViewportSize({ width, height: width < 500 ? 844 : 800 });
        await page.goto(h.url + '/');
        const nav = page.getByRole('navigation', { name: 'Pages' });
        await nav.getByRole('link', { name: 'Race lights' }).waitFor();
        await page.screenshot({ path: `${SHOTS}/nav-${width}.png` });
        // A tab is either whole inside the nav's visible box or entirely outside it (behind
        // the arrow), never cut mid-word at the edge.
        const cut = async (): Promise<string[]> => {
          const box = (await nav.boundingBox())!;
          const out: string[] = [];
          for (const a of await nav.getByRole('link').all()) {
            const r = (await a.boundingBox())!;
            const inside = r.x >= box.x - 1 && r.x + r.width <= box.x + box.width + 1;
            const outside = r.x >= box.x + box.width - 1 || r.x + r.width <= box.x + 1;
            if (!inside && !outside) out.push((await a.textContent()) ?? '');
          }
          return out;
        };
        expect(await cut()).toEqual([]);
        // The last tab can be reached and opened.
        const help = nav.getByRole('link', { name: 'Help' });
        await help.scrollIntoViewIfNeeded();
        await help.click();
        await page.waitForURL(/\/help$/);
        expect(await page.getByTestId('blackout').isVisible()).toBe(true);
      });
    });
  }

  for (const width of [1280, 390]) {
    it(`the-race-page-with-no-scenes-points-to-the-scenes-page-at-${width}px`, async () => {
      await withHost({ nodes: 1 }, async (h) => {
        const page = b.page;
        await page.setViewportSize({ width, height: width < 500 ? 844 : 800 });
        await page.goto(h.url + '/race');
        const hint = page.getByTestId('race-no-pins');
        await hint.waitFor();
        // No scene exists: there is no picker below, so the words must not point below.
        expect(await page.getByRole('combobox', { name: 'Pin a scene' }).count()).toBe(0);
        expect(await hint.textContent()).not.toMatch(/below/);
        await page.screenshot({ path: `${SHOTS}/race-first-start-${width}.png` });
        await hint.getByRole('link', { name: 'Scenes page' }).click();
        await page.waitForURL(/\/scenes$/);

        // With a scene, "below" is true: the picker is there.
        const scene = {
          key: 'warm',
          label: 'Warm',
          actions: [
            { kind: 'native_effect', target: { kind: 'broadcast' }, params: { mode: 0, brightness: 40 } },
          ],
        };
        const made = await h.post('/api/scenes', scene);
        expect(made.status, JSON.stringify(made.body)).toBe(200);
        await page.goto(h.url + '/race');
        await page.getByRole('combobox', { name: 'Pin a scene' }).waitFor();
        expect(await page.getByTestId('race-no-pins').textContent()).toMatch(/“Pin a scene” below/);
      });
    });
  }
});
