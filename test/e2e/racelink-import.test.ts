/**
 * Browser scenario: Settings → Import from RaceLink. The operator picks the RaceLink folder,
 * reads the report, confirms; the device table and the groups show what came over. Picking
 * a zip of the same folder afterwards finds everything already there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withHost } from '../integration/harness.ts';
import { CLUB, folderFiles } from '../unit/import/racelink-files.ts';
import { writeZip } from '../unit/import/zip-writer.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';

let b: BrowserHandle;
beforeAll(async () => {
  b = await openBrowser();
});
afterAll(async () => {
  await b?.close();
});

describe('import from RaceLink', () => {
  it('operator-picks-the-racelink-folder-reads-the-report-and-imports', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      const page = b.page;
      await page.goto(h.url + '/');
      await page.getByTestId('device-table').waitFor();
      await page.getByRole('button', { name: 'Settings' }).click();
      await page.getByTestId('racelink-import-open').click();
      const dlg = page.getByTestId('racelink-import');
      await dlg.getByTestId('racelink-folder').setInputFiles(CLUB);

      const report = dlg.getByTestId('import-report');
      await report.waitFor();
      await expect
        .poll(() => report.locator('tr[data-kind=device] td[data-action=create]').textContent())
        .toBe('24 new');
      expect(await report.locator('tr[data-kind=scene] td[data-action=create]').textContent()).toBe('5 new');
      // host, port, debug: Lightnet's own settings, listed with the reason.
      expect(await report.locator('tr[data-kind=setting] td[data-action=skip]').textContent()).toBe(
        '3 not imported',
      );
      expect(await report.locator('.import-mapped').textContent()).toContain('wled_control → native_preset');
      // Nothing written yet.
      expect(h.host.services.store.state.devices).toHaveLength(0);
      await b.shot('racelink-import-report');

      await dlg.getByTestId('import-confirm').click();
      await dlg.getByTestId('import-done').waitFor();
      // A fresh host had nothing to keep: it says so rather than naming a backup of nothing.
      expect(await dlg.getByTestId('import-done').textContent()).toContain(
        'nothing to keep, so no backup was written',
      );
      await page.setViewportSize({ width: 1280, height: 900 });
      await b.shot('racelink-import-done');
      await page.setViewportSize({ width: 390, height: 844 });
      await b.shot('racelink-import-done-390');
      await page.setViewportSize({ width: 1440, height: 900 });
      // Closing it goes back to Settings; Esc closes that too.
      await dlg.getByRole('button', { name: 'Close', exact: true }).first().click();
      await page.getByTestId('racelink-import-open').waitFor();
      await page.keyboard.press('Escape');
      await page.getByTestId('racelink-import-open').waitFor({ state: 'detached' });

      // The page follows by itself (SSE refresh): 24 rows and the imported groups.
      await expect
        .poll(() => page.locator('[data-testid=device-table] [role=row][data-addr]').count(), {
          timeout: 15_000,
        })
        .toBe(24);
      await page.getByText('Back Straight').first().waitFor();
      await page.getByText('Spare Gate').first().waitFor();

      // The same folder as a zip: already there, nothing to confirm.
      await page.getByRole('button', { name: 'Settings' }).click();
      await page.getByTestId('racelink-import-open').click();
      const zip = writeZip(
        folderFiles(CLUB, '.racelink/').map((f) => ({ name: f.path, bytes: f.bytes, deflate: true })),
      );
      await dlg
        .getByTestId('racelink-zip')
        .setInputFiles({ name: 'racelink.zip', mimeType: 'application/zip', buffer: zip });
      await dlg.getByText('everything is already here').waitFor();
      expect(await dlg.getByTestId('import-confirm').isDisabled()).toBe(true);

      // A file that is not a RaceLink folder: a clear error, and the picker again.
      await dlg.getByRole('button', { name: 'Choose another' }).click();
      await dlg.getByTestId('racelink-zip').setInputFiles({
        name: 'photos.zip',
        mimeType: 'application/zip',
        buffer: writeZip([{ name: 'a.json', bytes: Buffer.from('{}') }]),
      });
      await dlg.getByTestId('import-error').waitFor();
      expect(await dlg.getByTestId('import-error').textContent()).toMatch(/not a RaceLink data folder/);
      expect(b.errors.filter((e) => !e.includes('400'))).toEqual([]);
      b.errors.length = 0;
    });
  });
});
