/**
 * Browser scenarios against the OTA test rig: the LED preset file downloaded from a
 * node (then made active), and a firmware update cancelled mid-upload (the dialog says
 * cancelled, the uploading device failed with "cancelled", the one never started is
 * shown as skipped, nothing was flashed). Waits are on UI state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFirmware, makePresets } from '../fixtures/ota/builders.ts';
import { withOtaRig } from '../fixtures/ota/rig.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';

let b: BrowserHandle;
beforeAll(async () => {
  b = await openBrowser();
});
afterAll(async () => {
  await b?.close();
});

describe('preset download and a cancelled update', () => {
  it('operator-downloads-a-node-preset-file-then-cancels-a-firmware-update', async () => {
    await withOtaRig({ nodes: 2 }, async (rig) => {
      // An earlier file is the active one; the download must not replace it by itself.
      const earlier = await rig.uploadPresets(makePresets(2));
      const page = b.page;
      await page.goto(rig.h.url + '/');
      const rows = page.locator('[data-testid=device-table] [role=row][data-addr]');
      await rows.nth(1).waitFor();
      const [first = ''] = rig.addrs;

      // Download the node's presets.json: exactly one device selected.
      await page.locator(`[role=row][data-addr="${first}"] input[type=checkbox]`).check();
      await page.getByRole('button', { name: 'LED presets…' }).click();
      const lp = page.getByTestId('led-presets');
      await lp.getByText(`(${first})`).waitFor();
      await lp.getByTestId('current-preset-file').getByText(`Current: ${earlier}`).waitFor();
      await lp.locator('input[name=baseUrl]').fill(rig.wled.url);
      await lp.getByRole('button', { name: 'Download from device' }).click();
      const done = lp.getByTestId('dialog-task').getByText(/Downloaded presets\.json from \w+ as '(.+)'/);
      await done.waitFor({ timeout: 60_000 });
      const name = /as '(.+)'/.exec((await done.textContent()) ?? '')?.[1] ?? '';
      expect(name).toMatch(/^presets_\d{8}_\d{6}(_\d+)?\.json$/);
      // The downloaded file is offered at once; Apply makes it the active one.
      await expect.poll(() => lp.getByLabel('Active preset file').inputValue()).toBe(name);
      await lp.getByRole('button', { name: 'Apply' }).click();
      await lp.getByTestId('current-preset-file').getByText(`Current: ${name}`).waitFor();
      await b.shot('17-led-preset-download');
      const list = await rig.h.get<{ files: { name: string }[]; current: string }>('/api/presets/list');
      expect(list.body.current).toBe(name);
      await lp.getByRole('button', { name: 'Close' }).first().click();

      // Firmware update of both devices; the node's update endpoint never answers.
      for (const a of rig.addrs) {
        const node = rig.wled.node(rig.macOf[a] ?? '');
        node.otaSameSubnet = false;
        node.knobs.stallUpdate = true;
      }
      await page.getByRole('checkbox', { name: 'Select all visible devices' }).click();
      await page.getByRole('button', { name: 'Firmware…' }).click();
      const fw = page.getByTestId('firmware-dialog');
      await fw.getByTestId('planned').getByText('2 devices planned').waitFor();
      await fw.getByLabel('Firmware file').setInputFiles({
        name: 'wled_slow.bin',
        mimeType: 'application/octet-stream',
        buffer: makeFirmware({ size: 1_500_000 }),
      });
      await page.locator('.toast', { hasText: /Uploaded wled_slow\.bin/ }).waitFor();
      await fw.locator('input[name=baseUrl]').fill(rig.wled.url);
      await fw.getByRole('button', { name: 'Start update' }).click();
      await page.getByTestId('confirm').getByRole('button', { name: 'Start update' }).click();
      const uploading = fw.locator('.fw-row[data-state=running]', { hasText: 'UPLOAD_FW' });
      await uploading.waitFor({ timeout: 60_000 });

      // Cancel (confirmed): the dialog follows the task to its cancelled end.
      await fw.getByRole('button', { name: 'Cancel', exact: true }).click();
      await page.getByTestId('confirm').getByRole('button', { name: 'Cancel update' }).click();
      await fw
        .getByTestId('fw-header')
        .getByText(/^Cancelled after 1\/2 devices/)
        .waitFor({ timeout: 60_000 });
      await fw.getByTestId('fw-summary').getByText('0 ok · 1 failed · 1 skipped').waitFor();
      const failed = fw.locator('.fw-row[data-state=error]');
      await expect.poll(() => failed.count()).toBe(1);
      await failed.getByText('cancelled').waitFor();
      await expect.poll(() => fw.locator('.fw-row[data-state=skipped]').count()).toBe(1);
      await page.locator('.toast', { hasText: 'Firmware update cancelled' }).waitFor();
      await b.shot('18-firmware-cancelled');
      for (const a of rig.addrs) expect(rig.wled.node(rig.macOf[a] ?? '').flashed).toEqual([]);
      // Cancel leaves the fleet usable: the dialog unlocks and offers the retry.
      await fw.getByRole('button', { name: 'Retry failed devices' }).waitFor();
      await fw.getByRole('button', { name: 'Close' }).first().click();
      expect(b.errors).toEqual([]);
      // Leave before the host shuts down: its last answers (503) are not this page's errors.
      await page.goto('about:blank');
    });
  });
});
