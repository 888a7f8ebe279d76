/**
 * The device rows follow a race flag and Blackout pressed in this console as soon as the
 * answer is in: by the time the toast says the field is red (or dark, or cleared), the rows'
 * brightness and effect columns say so too — no reload, no waiting for the stream's
 * coalesced refresh or a node's status reply. (Before, a screenshot right after Red still
 * read brightness 70.) Screenshots go to /tmp/shots-fixui/.
 */
import { mkdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withHost, type Harness } from '../integration/harness.ts';
import { discoverAll } from '../integration/host/helpers.ts';
import { until } from '../until.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';

const SHOTS = '/tmp/shots-fixui';
let b: BrowserHandle;
beforeAll(async () => {
  // Wide enough for the Effect column (shown from 1400 px) beside Bright.
  b = await openBrowser({ width: 1440, height: 900 });
  await mkdir(SHOTS, { recursive: true });
});
afterAll(async () => {
  await b?.close();
});

type Page = BrowserHandle['page'];
const rows = '[data-testid=device-table] [role=row][data-addr]';
const column = (page: Page, key: string) => page.locator(`${rows} .c-${key}`).allTextContents();
const hostBrightness = async (h: Harness) =>
  ((await h.get('/api/devices')).body.devices as { brightness: number }[]).map((d) => d.brightness);

/** Waits for the toast that answers the press, then reads the rows as they are at that moment. */
async function afterToast(page: Page, text: string): Promise<{ bri: string[]; effect: string[] }> {
  await page.locator('#toasts .toast', { hasText: text }).last().waitFor();
  return { bri: await column(page, 'bri'), effect: await column(page, 'effect') };
}

describe('console rows after a flag or Blackout', () => {
  it('red-blackout-and-clear-show-in-the-rows-when-their-toast-does', async () => {
    await withHost({ nodes: 3, seed: 2 }, async (h) => {
      await discoverAll(h);
      // A red look of its own (effect 1, brightness 200), so both columns must change.
      const looks = await h.put('/api/flags/looks', {
        red: { color: '#ff0000', brightness: 200, effect: 1 },
      });
      expect(looks.status, JSON.stringify(looks.body)).toBe(200);
      const page = b.page;
      await page.goto(h.url + '/');
      await until('three rows', async () => (await column(page, 'bri')).length === 3);
      const before = await column(page, 'bri');
      expect(before.every((x) => x !== '200')).toBe(true);
      const effectBefore = await column(page, 'effect');
      expect(effectBefore).toHaveLength(3);

      await page.getByTestId('flag-red').click();
      const red = await afterToast(page, 'Red flag up');
      expect(await hostBrightness(h)).toEqual([200, 200, 200]);
      expect(red.bri).toEqual(['200', '200', '200']);
      expect(new Set(red.effect).size).toBe(1);
      expect(red.effect[0]).not.toBe(effectBefore[0]);
      await page.screenshot({ path: `${SHOTS}/rows-red-1440.png` });

      await page.getByTestId('blackout').click();
      const dark = await afterToast(page, 'Blackout');
      expect(dark.bri).toEqual(['0', '0', '0']);

      // Red again over the dark field, then Clear (the clear look is brightness 0).
      await page.getByTestId('flag-red').click();
      await page.locator('#toasts .toast', { hasText: 'Red flag up' }).nth(1).waitFor();
      expect(await column(page, 'bri')).toEqual(['200', '200', '200']);
      await page.getByTestId('flag-clear').click();
      const cleared = await afterToast(page, 'Flag cleared');
      expect(cleared.bri).toEqual(['0', '0', '0']);
      await page.screenshot({ path: `${SHOTS}/rows-cleared-1440.png` });
      expect(b.errors).toEqual([]);
    });
  });
});
