/**
 * Control on a fresh install (issue 35, item 9): no LED preset file and no native preset
 * yet, and an operator must still be able to make a gate green from the Control dialog —
 * a colour swatch, a built-in effect, Send. What the nodes show is read from the
 * simulator's LED state, not from the UI's toast.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withHost, type Harness } from '../integration/harness.ts';
import { discoverAll } from '../integration/host/helpers.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';

type Page = BrowserHandle['page'];

const simNodes = (h: Harness) => h.host.sim?.fleet.nodes ?? [];
const shows = (h: Harness, addr: string) => {
  const n = simNodes(h).find((x) => x.addr === addr);
  if (!n) throw new Error(`no simulated node ${addr}`);
  const s = n.snapshot();
  return { colour: s.segment.colors[0], mode: s.effectMode, bri: s.bri };
};
const rows = (page: Page) => page.locator('[data-testid=device-table] [role=row][data-addr]');

let b: BrowserHandle;
beforeAll(async () => {
  b = await openBrowser({ width: 1280, height: 800 });
});
afterAll(async () => {
  await b?.close();
});

describe('control by colour', () => {
  it('a-fresh-install-makes-a-group-green-and-one-gate-red-from-the-control-dialog', async () => {
    await withHost({ nodes: 3, seed: 5 }, async (h) => {
      const devs = await discoverAll(h, { newGroupName: 'Finish Left' });
      expect(devs).toHaveLength(3);
      const addrs = devs.map((d) => d.addr);
      // Nothing is green yet (the nodes boot amber).
      for (const a of addrs) expect(shows(h, a).colour).not.toEqual([0, 255, 0]);
      const presets = await h.get<{ files: unknown[] }>('/api/presets/list');
      expect(presets.body.files, 'a fresh install has no LED preset file').toEqual([]);

      const page = b.page;
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: width < 500 ? 844 : 800 });
        await page.goto(h.url + '/');
        await page.locator('.group-row', { hasText: 'Finish Left' }).locator('.group-main').click();
        await page.getByRole('button', { name: 'Control…' }).click();
        const control = page.getByTestId('control-dialog');
        await control.getByText("Control — group 'Finish Left'").waitFor();
        // Colour is what a fresh install offers first, not a raw preset id.
        expect(await control.getByRole('radio', { name: 'Colour & effect' }).isChecked()).toBe(true);
        await control.getByRole('button', { name: 'Green', exact: true }).click();
        expect(
          await control.getByRole('button', { name: 'Green', exact: true }).getAttribute('aria-pressed'),
        ).toBe('true');
        await expect
          .poll(() => control.locator('select[name=effect] option:checked').textContent())
          .toBe('* Solid');
        await b.shot(`control-colour-${width}`);
        if (width === 390) break;
        await control.getByRole('button', { name: 'Send' }).click();
        await page
          .locator('.toast', { hasText: /^Green \(Solid\) sent to group 'Finish Left': \d+ frames?/ })
          .waitFor();
        await expect
          .poll(() => addrs.map((a) => shows(h, a)), { timeout: 30_000 })
          .toEqual(addrs.map(() => ({ colour: [0, 255, 0], mode: 0, bri: 128 })));
        await control.getByRole('button', { name: 'Close' }).first().click();
      }

      // One gate: red, blinking, a custom brightness — the others stay green.
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(h.url + '/');
      const one = addrs[0]!;
      await page.locator(`[data-addr="${one}"] input[type=checkbox]`).check();
      await page.getByRole('button', { name: 'Control…' }).click();
      const control = page.getByTestId('control-dialog');
      await control.getByRole('button', { name: 'Red', exact: true }).click();
      await control.locator('select[name=effect]').selectOption({ label: '* Blink' });
      await control.locator('input[name=brightness]').fill('200');
      await control.getByRole('button', { name: 'Send' }).click();
      await page.locator('.toast', { hasText: /^Red \(Blink\) sent to .*: 1 frame/ }).waitFor();
      await expect
        .poll(() => shows(h, one), { timeout: 30_000 })
        .toEqual({ colour: [255, 0, 0], mode: 1, bri: 200 });
      for (const a of addrs.slice(1)) expect(shows(h, a).colour).toEqual([0, 255, 0]);

      // Any colour from the picker.
      await control.getByLabel('Custom colour').fill('#3366ff');
      await control.locator('select[name=effect]').selectOption({ label: '* Solid' });
      await control.getByRole('button', { name: 'Send' }).click();
      await page.locator('.toast', { hasText: /^#3366ff \(Solid\) sent to/ }).waitFor();
      await expect.poll(() => shows(h, one).colour, { timeout: 30_000 }).toEqual([0x33, 0x66, 0xff]);
      expect(await rows(page).count()).toBe(3);
      expect(b.errorToasts).toEqual([]);
      expect(b.errors).toEqual([]);
    });
  });
});
