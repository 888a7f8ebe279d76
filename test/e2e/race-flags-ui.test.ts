/**
 * The race flags in the web UI (issue 37, part 3): the status bar's Red is one press at 1280,
 * 1024 and 390 px — the API then says red and the simulated nodes show red, the bar shows the
 * RED FLAG state with Clear beside it, and neither Blackout nor a toast covers the button;
 * Clear lowers it. A flag raised or cleared elsewhere (the API) shows without a reload, and a
 * reload shows the host's flag, not a stale one. The Race page has all four as big buttons.
 * Screenshots go to /tmp/shots-flagsui/.
 */
import { mkdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withHost, type Harness } from '../integration/harness.ts';
import { discoverAll } from '../integration/host/helpers.ts';
import type { SimNode } from '../../src/sim/node/node.ts';
import { until } from '../until.ts';
import { coveredByBlackout, toastTrouble } from './blackout-rect.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';

const SHOTS = '/tmp/shots-flagsui';
let b: BrowserHandle;
beforeAll(async () => {
  b = await openBrowser({ width: 1280, height: 800 });
  await mkdir(SHOTS, { recursive: true });
});
afterAll(async () => {
  await b?.close();
});

type Page = BrowserHandle['page'];

async function fresh(page: Page): Promise<void> {
  await page.goto('about:blank');
  b.errors.length = 0;
  b.errorToasts.length = 0;
}

const frames = (page: Page) =>
  page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');

const allRed = (h: Harness) => () =>
  (h.host.sim?.fleet.nodes ?? []).length > 0 &&
  (h.host.sim?.fleet.nodes ?? []).every((n: SimNode) => {
    const s = n.snapshot();
    return s.bri === 255 && [...(s.segment.colors[0] ?? [])].join(',') === '255,0,0';
  });

const flagNow = async (h: Harness) => (await h.get('/api/flags')).body.flag as string | null;

describe('race flags in the web UI', () => {
  for (const width of [1280, 1024, 390]) {
    it(`red-from-the-status-bar-is-one-press-shows-and-clears-at-${width}px`, async () => {
      await withHost({ nodes: 3, seed: 2 }, async (h) => {
        await discoverAll(h);
        const page = b.page;
        await fresh(page);
        await page.setViewportSize({ width, height: width < 500 ? 844 : 800 });
        await page.goto(h.url + '/');
        await page.locator('[data-testid=device-table] [role=row][data-addr]').first().waitFor();
        const red = page.getByTestId('flag-red');
        expect(await red.isVisible()).toBe(true);
        expect(await page.getByTestId('flag-clear').count()).toBe(0);
        await page.screenshot({ path: `${SHOTS}/bar-none-${width}.png` });

        // One press: the host holds red, the field shows it, the bar says so.
        await red.click();
        await until('the API says red', async () => (await flagNow(h)) === 'red', 20_000);
        await until('every simulated node red', allRed(h), 20_000);
        await expect.poll(() => red.textContent()).toBe('⚑ RED FLAG');
        expect(await red.getAttribute('aria-pressed')).toBe('true');
        expect(await page.locator('.status-bar.flag-red').count()).toBe(1);
        const clear = page.getByTestId('flag-clear');
        expect(await clear.isVisible()).toBe(true);

        // Neither Blackout (its band on a phone) nor the toast ('Red flag up') covers red or Clear.
        await page.locator('#toasts .toast', { hasText: 'Red flag up' }).first().waitFor();
        await frames(page);
        for (const id of ['flag-red', 'flag-clear'])
          expect(await coveredByBlackout(page, id), `${id} meets another control`).toEqual([]);
        expect((await coveredByBlackout(page, 'blackout')).map((c) => c.what)).toEqual([]);
        const covered = await page.evaluate(`(() => {
          const inside = (a, b) => a.left < b.right && a.right > b.left && a.top < b.bottom && a.bottom > b.top;
          const out = [];
          for (const id of ['flag-red', 'flag-clear']) {
            const r = document.querySelector('[data-testid="' + id + '"]').getBoundingClientRect();
            for (const t of document.querySelectorAll('#toasts .toast'))
              if (inside(r, t.getBoundingClientRect())) out.push(id);
            const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
            if (!hit || !hit.closest('[data-testid="' + id + '"]')) out.push(id + ' not on top');
          }
          return out;
        })()`);
        expect(covered).toEqual([]);
        expect((await toastTrouble(page)).trouble).toEqual([]);
        await page.screenshot({ path: `${SHOTS}/bar-red-${width}.png` });

        // Blackout still works over a red flag, and the flag stays up.
        await page.getByTestId('blackout').click();
        await page.locator('#toasts .toast', { hasText: 'Blackout' }).first().waitFor();
        expect(await flagNow(h)).toBe('red');
        expect(await red.textContent()).toBe('⚑ RED FLAG');

        // Clear: one press, gone on the host and in the bar.
        await clear.click();
        await until('the API says no flag', async () => (await flagNow(h)) === null, 20_000);
        await page.getByTestId('flag-clear').waitFor({ state: 'detached' });
        await expect.poll(() => red.textContent()).toBe('⚑ Red');
        expect(await page.locator('.status-bar.flag-red').count()).toBe(0);

        // Green from the ⚑ toggle.
        await page.getByTestId('flag-more').click();
        await page.getByTestId('flag-green').click();
        await until('the API says green', async () => (await flagNow(h)) === 'green', 20_000);
        await expect.poll(() => page.getByTestId('flag-state').textContent()).toBe('GREEN');
        await page.screenshot({ path: `${SHOTS}/bar-green-${width}.png` });
        expect(b.errors).toEqual([]);
        expect(b.errorToasts).toEqual([]);
      });
    });
  }

  it('a-flag-raised-or-cleared-elsewhere-shows-live-and-after-a-reload', async () => {
    await withHost({ nodes: 2, seed: 3 }, async (h) => {
      await discoverAll(h);
      const page = b.page;
      await fresh(page);
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(h.url + '/');
      const red = page.getByTestId('flag-red');
      await red.waitFor();
      const api = (action: string) => h.post(`/api/flags/${action}`, {});
      expect((await api('red')).status).toBe(200);
      await expect.poll(() => red.textContent()).toBe('⚑ RED FLAG');
      await page.reload();
      await expect.poll(() => page.getByTestId('flag-red').textContent()).toBe('⚑ RED FLAG');
      expect((await api('clear')).status).toBe(200);
      await page.getByTestId('flag-clear').waitFor({ state: 'detached' });
      await page.reload();
      await page.getByTestId('flag-red').waitFor();
      await frames(page);
      expect(await page.getByTestId('flag-red').textContent()).toBe('⚑ Red');
      expect(await page.getByTestId('flag-clear').count()).toBe(0);
    });
  });

  for (const width of [1280, 390]) {
    it(`the-race-page-has-all-four-flags-as-big-buttons-at-${width}px`, async () => {
      await withHost({ nodes: 3, seed: 2 }, async (h) => {
        await discoverAll(h);
        const page = b.page;
        await fresh(page);
        await page.setViewportSize({ width, height: width < 500 ? 844 : 800 });
        await page.goto(h.url + '/race');
        await page.getByTestId('flag-panel').waitFor();
        for (const a of ['red', 'yellow', 'green', 'clear'])
          expect(await page.getByTestId(`flag-big-${a}`).isVisible(), a).toBe(true);
        await page.getByTestId('flag-big-yellow').click();
        await until('the API says yellow', async () => (await flagNow(h)) === 'yellow', 20_000);
        await expect
          .poll(() => page.getByTestId('flag-big-yellow').getAttribute('aria-pressed'))
          .toBe('true');
        await page.getByTestId('flag-big-red').click();
        await until('the API says red', async () => (await flagNow(h)) === 'red', 20_000);
        await until('every simulated node red', allRed(h), 20_000);
        await expect.poll(() => page.getByTestId('flag-now').textContent()).toMatch(/^Red flag up since/);
        await frames(page);
        expect(await coveredByBlackout(page, 'flag-big-red')).toEqual([]);
        await page.screenshot({ path: `${SHOTS}/race-red-${width}.png`, fullPage: true });
        await page.getByTestId('flag-big-clear').click();
        await until('the API says no flag', async () => (await flagNow(h)) === null, 20_000);
        await expect.poll(() => page.getByTestId('flag-now').textContent()).toBe('No flag up');
        expect(b.errors).toEqual([]);
        expect(b.errorToasts).toEqual([]);
      });
    });
  }
});
