/**
 * Browser scenario against the OTA test rig (fake nmcli + fake LED node web server on
 * loopback): an LED preset file uploaded and made active, then a firmware update of
 * the whole fleet from the dialog, with per-device rows and the summary.
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

describe('firmware and preset files', () => {
  it('operator-uploads-a-preset-file-and-updates-the-fleet-firmware', async () => {
    await withOtaRig({ nodes: 2 }, async (rig) => {
      const page = b.page;
      await page.goto(rig.h.url + '/');
      await page.locator('[data-testid=device-table] [role=row][data-addr]').nth(1).waitFor();

      // LED preset file: upload; the first one becomes active.
      await page.getByRole('button', { name: 'LED presets…' }).click();
      const lp = page.getByTestId('led-presets');
      await lp
        .locator('input[type=file]')
        .setInputFiles({ name: 'presets.json', mimeType: 'application/json', buffer: makePresets(3) });
      await lp.getByRole('button', { name: 'Upload' }).click();
      await page.locator('.toast', { hasText: /Uploaded preset file/ }).waitFor();
      // The success toast comes after every step of the handler: a red one beside it
      // (rendered in the same frame) or before it fails the scenario.
      expect(await page.locator('.toast.error').count()).toBe(0);
      expect(b.errorToasts).toEqual([]);
      await lp
        .getByTestId('current-preset-file')
        .getByText(/Current: (?!none)/)
        .waitFor();
      await b.shot('13-led-presets');
      await lp.getByRole('button', { name: 'Close' }).first().click();

      // Firmware update of every device.
      await page.getByRole('checkbox', { name: 'Select all visible devices' }).click();
      await page.getByRole('button', { name: 'Firmware…' }).click();
      const fw = page.getByTestId('firmware-dialog');
      await fw.getByTestId('planned').getByText('2 devices planned').waitFor();
      const image = makeFirmware({ size: 200 * 1024, releaseName: 'Node_V4_TYPE_12' });
      await fw
        .getByLabel('Firmware file')
        .setInputFiles({ name: 'wled_new.bin', mimeType: 'application/octet-stream', buffer: image });
      await page.locator('.toast', { hasText: /Uploaded wled_new\.bin/ }).waitFor();
      await fw.locator('input[name=baseUrl]').fill(rig.wled.url);
      await b.shot('14-firmware-form');
      await fw.getByRole('button', { name: 'Start update' }).click();
      await page
        .getByTestId('confirm')
        .getByText(/Update 2 devices\?/)
        .waitFor();
      await page.getByTestId('confirm').getByRole('button', { name: 'Start update' }).click();
      await fw.locator('.fw-row.tx').first().waitFor({ timeout: 60_000 });
      await b.shot('15-firmware-running');
      await fw
        .getByTestId('fw-summary')
        .getByText(/2 ok · 0 failed/)
        .waitFor({ timeout: 120_000 });
      await b.shot('16-firmware-summary');
      for (const a of rig.addrs) expect(rig.wled.node(rig.macOf[a] ?? '').flashed).toHaveLength(1);
      await fw.getByRole('button', { name: 'Close' }).first().click();
      expect(b.errors).toEqual([]);
    });
  });

  // A host without NetworkManager: the dialog says so before anything runs, offers no
  // host WiFi switching, preselects no device, and a run fails at once with the reason.
  it('firmware-dialog-on-a-host-without-networkmanager-says-what-is-missing-and-fails-fast', async () => {
    const missing = 'NetworkManager (nmcli) is not installed on this host';
    await withOtaRig({ nodes: 2, wifi: 'none', wifiMissing: missing }, async (rig) => {
      const page = b.page;
      await page.goto(rig.h.url + '/');
      await page.locator('[data-testid=device-table] [role=row][data-addr]').nth(1).waitFor();
      await page.getByRole('button', { name: 'Firmware…' }).click();
      const fw = page.getByTestId('firmware-dialog');
      await fw.getByTestId('wifi-problem').getByText(missing, { exact: false }).waitFor();
      // Nothing preselected: no selection in the table means no targets yet.
      await fw.getByTestId('planned').getByText('0 devices planned').waitFor();
      expect(await fw.getByRole('button', { name: 'Start update' }).isDisabled()).toBe(true);
      // Nothing offered that this host cannot do.
      expect(await fw.getByText(/Enable host WiFi/).count()).toBe(0);
      expect(await fw.getByLabel('Host WiFi interface').count()).toBe(0);
      await b.shot('17-firmware-no-networkmanager');

      await fw.getByRole('radio', { name: /^All/ }).check();
      await fw.getByTestId('planned').getByText('2 devices planned').waitFor();
      await fw.getByLabel('Firmware file').setInputFiles({
        name: 'wled_new.bin',
        mimeType: 'application/octet-stream',
        buffer: makeFirmware(),
      });
      await page.locator('.toast', { hasText: /Uploaded wled_new\.bin/ }).waitFor();
      await fw.getByRole('button', { name: 'Start update' }).click();
      await page.getByTestId('confirm').getByRole('button', { name: 'Start update' }).click();
      await fw
        .getByTestId('fw-summary')
        .getByText(/0 ok · 2 failed/)
        .waitFor({ timeout: 30_000 });
      await fw
        .getByText(/cannot join the node's WiFi access point/)
        .first()
        .waitFor();
      for (const a of rig.addrs) expect(rig.wled.node(rig.macOf[a] ?? '').flashed).toHaveLength(0);
      await fw.getByRole('button', { name: 'Close' }).first().click();
    });
  });
});
