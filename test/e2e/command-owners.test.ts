/**
 * The owners strip (issue 37): a live desk holding a group shows under the status bar with who,
 * the priority and the time left; Take over makes the operator the holder (the desk is then
 * refused 409) and Hand back frees it; the stream keeps the strip current without a reload.
 * ⚙ Settings → Command sources switches a source off (on disk). At 1280 and 390 px, with
 * Blackout on screen. Screenshots go to /tmp/shots-command/.
 */
import { mkdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withHost, type Harness } from '../integration/harness.ts';
import { discoverAll } from '../integration/host/helpers.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';

const SHOTS = '/tmp/shots-command';
const SHOTS_FIX = '/tmp/shots-fixB';
let b: BrowserHandle;
beforeAll(async () => {
  b = await openBrowser({ width: 1280, height: 800 });
  await mkdir(SHOTS, { recursive: true });
  await mkdir(SHOTS_FIX, { recursive: true });
});
afterAll(async () => {
  await b?.close();
});

const live = (h: Harness, groupId: number, brightness: number) =>
  h.post(
    '/api/devices/control',
    { groupId, flags: 1, presetId: 1, brightness },
    { headers: { 'x-lightnet-source': 'live' } },
  );

/** Away from the last test's host (gone: its stream's reconnects are its errors, not ours). */
async function fresh(page: BrowserHandle['page']): Promise<void> {
  await page.goto('about:blank');
  b.errors.length = 0;
  b.errorToasts.length = 0;
}

describe('owners strip', () => {
  for (const width of [1280, 390]) {
    it(`shows-who-holds-a-group-and-the-operator-takes-it-over-and-hands-it-back-at-${width}px`, async () => {
      await withHost({ nodes: 3, seed: 2 }, async (h) => {
        const rows = await discoverAll(h);
        const gid = rows[0]!.groupId;
        const groups = (await h.get<{ groups: { id: number; name: string }[] }>('/api/groups')).body.groups;
        // The strip names the group as the Devices page does, not by its number.
        const gname = groups.find((g) => g.id === gid)!.name;
        expect(gname).not.toBe('');
        const esc = gname.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        // A long live timeout: the hold must not lapse while the browser looks at it.
        expect((await h.patch('/api/control/settings', { live_timeout_ms: 60_000 })).status).toBe(200);
        const page = b.page;
        await fresh(page);
        await page.setViewportSize({ width, height: width < 500 ? 844 : 800 });
        await page.goto(h.url + '/');
        await page.locator('[data-testid=device-table] [role=row][data-addr]').first().waitFor();
        expect(await page.getByTestId('owners-strip').count()).toBe(0);

        // The desk takes the group: the strip appears from the stream, naming it.
        expect((await live(h, gid, 140)).status).toBe(200);
        const chip = page.getByTestId('owner');
        await chip.waitFor();
        await expect
          .poll(() => chip.textContent())
          .toMatch(new RegExp(`^${esc} Live control.*\\(70\\).*s left`));
        await page.getByTestId('blackout').waitFor();
        expect(await page.getByTestId('blackout').isVisible()).toBe(true);
        await page.screenshot({ path: `${SHOTS}/owners-live-${width}.png` });

        // Take over: the operator holds it; the desk is refused with the reason.
        await chip.getByRole('button', { name: 'Take over' }).click();
        await expect.poll(() => chip.textContent()).toMatch(new RegExp(`^${esc} you.*\\(85\\).*since`));
        const refused = await live(h, gid, 141);
        expect(refused.status).toBe(409);
        expect(refused.body.error).toMatch(
          new RegExp(
            `^${esc} \\(group ${gid}\\) is held by the operator's take-over \\(priority 85\\) for the last \\d+ s — wait until the operator hands it back$`,
          ),
        );
        await page.screenshot({ path: `${SHOTS}/owners-taken-${width}.png` });

        // Hand back: the strip goes, the desk may send again.
        await chip.getByRole('button', { name: 'Hand back' }).click();
        await page.getByTestId('owners-strip').waitFor({ state: 'detached' });
        expect((await live(h, gid, 142)).status).toBe(200);
        await chip.waitFor();
        expect(b.errors).toEqual([]);
        expect(b.errorToasts).toEqual([]);
      });
    });
  }

  for (const width of [1280, 390]) {
    it(`a-red-flag-hold-offers-clear-flag-not-a-take-over-that-cannot-work-at-${width}px`, async () => {
      await withHost({ nodes: 2, seed: 3 }, async (h) => {
        await discoverAll(h);
        const page = b.page;
        await fresh(page);
        await page.setViewportSize({ width, height: width < 500 ? 844 : 800 });
        await page.goto(h.url + '/');
        await page.locator('[data-testid=device-table] [role=row][data-addr]').first().waitFor();

        expect((await h.post('/api/flags/red', {})).status).toBe(200);
        const chip = page.locator('[data-testid=owner][data-source=flag]');
        await chip.waitFor();
        await expect.poll(() => chip.textContent()).toMatch(/^All lights red flag \(90\) since/);
        // 90 is above the take-over priority (85): no button that can only fail.
        expect(await chip.getByRole('button', { name: 'Take over' }).count()).toBe(0);
        expect(await page.getByTestId('blackout').isVisible()).toBe(true);
        await page.screenshot({ path: `${SHOTS_FIX}/owners-red-flag-${width}.png` });

        await chip.getByRole('button', { name: 'Clear flag' }).click();
        await page.getByTestId('owners-strip').waitFor({ state: 'detached' });
        const f = await h.get<{ flag: string | null }>('/api/flags');
        expect(f.body.flag).toBeNull();
        expect(b.errors).toEqual([]);
        expect(b.errorToasts).toEqual([]);
      });
    });
  }

  it('command-sources-in-settings-switch-a-source-off-on-disk', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      const page = b.page;
      await fresh(page);
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(h.url + '/');
      await page.getByRole('button', { name: 'Settings' }).click();
      await page.getByRole('button', { name: 'Command sources…', exact: true }).click();
      const dlg = page.getByTestId('command-sources-dialog');
      const row = dlg.getByTestId('source-live');
      await row.waitFor();
      expect(await dlg.getByTestId('source-ui').getByRole('checkbox').isDisabled()).toBe(true);
      await page.screenshot({ path: `${SHOTS}/command-sources-1280.png` });
      await row.getByRole('checkbox').uncheck();
      await row.getByRole('spinbutton').fill('75');
      await dlg.getByRole('button', { name: 'Save' }).click();
      await dlg.waitFor({ state: 'detached' });
      const s = await h.get<{ settings: { sources: Record<string, unknown> } }>('/api/control/settings');
      expect(s.body.settings.sources.live).toEqual({ enabled: false, priority: 75 });
      expect((await live(h, 255, 10)).status).toBe(403);
      // Saved, the Settings dialog it came from is back; on a phone the dialog opens again.
      const settings = page.getByTestId('settings-dialog');
      await settings.waitFor();
      await page.setViewportSize({ width: 390, height: 844 });
      await settings.getByRole('button', { name: 'Command sources…', exact: true }).click();
      await dlg.getByTestId('source-live').waitFor();
      expect(await dlg.getByTestId('source-live').getByRole('checkbox').isChecked()).toBe(false);
      await page.screenshot({ path: `${SHOTS}/command-sources-390.png` });
      expect(b.errorToasts).toEqual([]);
    });
  });
});
