/**
 * On a phone the banners leave the page on the first screen (newcomer walk: after an import
 * the simulator banner was ~230 px tall and no device row showed; the same with the banner
 * of a gateway in no network). At 390 px each banner takes at most two lines, "more…"
 * shows the rest, and with the simulator banner and a second one the first device row is
 * above the Blackout band.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withHost } from '../integration/harness.ts';
import { discoverAll } from '../integration/host/helpers.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';
import { until } from '../until.ts';

let b: BrowserHandle;
beforeAll(async () => {
  b = await openBrowser({ width: 390, height: 844 });
});
afterAll(async () => {
  await b?.close();
});

describe('banners on a phone', () => {
  it('take-two-lines-each-and-the-first-device-row-stays-on-the-first-screen', async () => {
    await withHost({ nodes: 4, seed: 7, simGateways: 2 }, async (h) => {
      await discoverAll(h);
      const two = (await h.get<{ networks: { gateway_mac: string | null }[] }>('/api/networks')).body
        .networks[1]!;
      expect((await h.post(`/api/gateways/${two.gateway_mac!}/release`)).status).toBe(200);
      const page = b.page;
      await page.goto(h.url + '/');
      const sim = page.getByTestId('banner-sim');
      const spare = page.getByTestId('banner-unassigned-gateway');
      await sim.waitFor();
      await spare.waitFor();
      const row = page.locator('[data-testid=device-table] [role=row][data-addr]').first();
      await row.waitFor();
      await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
      await b.shot('phone-banners-390');

      // Two lines each (a line of banner text is under 24 px; padding aside).
      for (const banner of [sim, spare]) {
        const box = (await banner.boundingBox())!;
        expect(box.height, `${await banner.getAttribute('data-testid')} height`).toBeLessThanOrEqual(60);
      }
      // The first device row ends above the Blackout band.
      const r = (await row.boundingBox())!;
      const band = (await page.getByTestId('blackout').boundingBox())!;
      expect(r.y, 'the first row starts on screen').toBeGreaterThanOrEqual(0);
      expect(r.y + r.height, 'the first row ends above Blackout').toBeLessThanOrEqual(band.y);

      // The rest is one tap away, and goes again.
      const cut = (await sim.boundingBox())!.height;
      await sim.getByRole('button', { name: 'more…' }).click();
      await sim.getByRole('button', { name: 'less' }).waitFor();
      expect((await sim.boundingBox())!.height).toBeGreaterThan(cut + 10);
      await b.shot('phone-banners-more-390');
      await sim.getByRole('button', { name: 'less' }).click();
      await sim.getByRole('button', { name: 'more…' }).waitFor();
      // The action stays in reach on the spare gateway's banner.
      expect(await spare.getByRole('button', { name: 'Assign…' }).isVisible()).toBe(true);
      expect(b.errors).toEqual([]);
    });
  }, 120_000);

  it('a-toolbar-cut-at-the-edge-shows-an-arrow-that-brings-the-rest-into-view', async () => {
    await withHost({ nodes: 2, seed: 8 }, async (h) => {
      await discoverAll(h);
      const page = b.page;
      await page.goto(h.url + '/');
      const bar = page.getByRole('toolbar', { name: 'Device actions' });
      const control = bar.getByRole('button', { name: 'Control…', exact: true });
      await control.waitFor();
      const inView = () =>
        control.evaluate((el) => {
          const r = el.getBoundingClientRect();
          const p = el.parentElement!.getBoundingClientRect();
          return r.left >= p.left - 1 && r.right <= p.right + 1;
        });
      // Cut off at 390 px: the cue is shown at the right edge of the row.
      expect(await inView()).toBe(false);
      const cue = bar.getByTestId('scroll-cue');
      await cue.waitFor({ state: 'visible' });
      const cb = (await cue.boundingBox())!;
      const rb = (await bar.boundingBox())!;
      expect(Math.abs(cb.x + cb.width - (rb.x + rb.width))).toBeLessThanOrEqual(2);
      await b.shot('toolbar-cue-390');
      // Tapping it scrolls the rest into view; at the end the cue goes.
      const scrolled = () => bar.evaluate((el) => el.scrollLeft);
      let seen = false;
      for (let i = 0; i < 12 && (await cue.isVisible()); i++) {
        const before = await scrolled();
        // A tap where the arrow is drawn (a locator click would first scroll the sticky
        // arrow's place in the row into view, which is the row's end).
        const at = (await cue.boundingBox())!;
        await page.mouse.click(at.x + at.width / 2, at.y + at.height / 2);
        await until('the row scrolled', async () => (await scrolled()) > before);
        // The scroll is smooth: let it come to rest before the next tap (a tap mid-way
        // restarts it from there, and a row of many buttons then needs more taps than the loop).
        await bar.evaluate(
          (el) =>
            new Promise<void>((done) => {
              let last = -1;
              let still = 0;
              const step = () => {
                still = el.scrollLeft === last ? still + 1 : 0;
                last = el.scrollLeft;
                if (still >= 3) done();
                else setTimeout(step, 20);
              };
              setTimeout(step, 20);
            }),
        );
        seen ||= await inView();
      }
      const left = await bar.evaluate((el) => [el.scrollWidth, el.clientWidth, el.scrollLeft]);
      expect(await cue.isVisible(), `scroll width, client width, left: ${left.join(', ')}`).toBe(false);
      // Control… came into view on the way to the row's end.
      expect(seen).toBe(true);
      // Wide, everything fits: no cue.
      await page.setViewportSize({ width: 1280, height: 800 });
      await cue.waitFor({ state: 'hidden' });
      await page.setViewportSize({ width: 390, height: 844 });
    });
  }, 120_000);
});
