/**
 * The first screen arrives in one piece: once the first device row shows, the banners
 * (simulator, low battery), the sidebar and the Discover… button are where they stay. Before,
 * the rows came with the device list and the banners a list later, so Discover… jumped by
 * 150 px under an operator's finger (and a test's click) at 390 px. The page records, frame
 * by frame from its first script on, where the button is; nothing here waits on timing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withHost } from '../integration/harness.ts';
import { discoverAll, runTask } from '../integration/host/helpers.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';

/** Page-side, every frame for 4 s: the Discover… button's top, and whether a row shows. */
const RECORD = `
window.__frames = [];
const t0 = performance.now();
const frame = () => {
  const row = document.querySelector('[data-testid=device-table] [role=row][data-addr]');
  const button = [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === 'Discover…');
  const sim = document.querySelector('[data-testid=banner-sim]');
  window.__frames.push({
    row: row !== null,
    top: button ? Math.round(button.getBoundingClientRect().top) : null,
    simData: sim ? sim.querySelector('[data-testid=sim-data-dir]') !== null : null,
  });
  if (performance.now() - t0 < 4000) requestAnimationFrame(frame);
};
requestAnimationFrame(frame);
`;

interface Frame {
  row: boolean;
  top: number | null;
  simData: boolean | null;
}

let b: BrowserHandle;
beforeAll(async () => {
  b = await openBrowser({ width: 390, height: 844 });
  await b.page.addInitScript(RECORD);
});
afterAll(async () => {
  await b?.close();
});

describe('first screen', () => {
  it('nothing-moves-once-the-first-row-shows-at-390px', async () => {
    await withHost({ nodes: 4, seed: 9 }, async (h) => {
      await discoverAll(h);
      // One low battery: its banner sits above the toolbar.
      h.host.sim!.fleet.nodes[0]!.vbatMv = 3250;
      await runTask(h, '/api/status', {});
      for (let load = 0; load < 3; load++) {
        await b.page.goto(h.url + '/');
        await b.page.getByTestId('banner-battery').waitFor();
        await b.page.waitForFunction('window.__frames.length > 0 && window.__frames.at(-1).row');
        const frames = (await b.page.evaluate('window.__frames')) as Frame[];
        const shown = frames.filter((f) => f.row);
        const tops = new Set(shown.map((f) => f.top));
        expect([...tops], `load ${load}: Discover… stays put once rows show`).toHaveLength(1);
        // The simulator banner has its data folder (from /api/health) in the first frame.
        expect(
          shown.every((f) => f.simData === true),
          `load ${load}: the simulator banner is whole`,
        ).toBe(true);
      }
      // The banner reads as one paragraph, the path inside it (as one flex item; three
      // items made three narrow columns with the trailing comma alone in the last).
      const sim = b.page.getByTestId('banner-sim');
      expect(await sim.evaluate((el) => (el as unknown as { children: unknown[] }).children.length)).toBe(1);
      await b.shot('first-screen-390');
      expect(b.errors).toEqual([]);
    });
  });
});
