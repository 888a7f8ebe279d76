/**
 * Browser scenarios for the Devices page against the real host on the simulated
 * fleet: discover into a new group, create/rename/delete groups, move devices,
 * rename, control, status, search and sort, all driven through the UI. Every wait is
 * on UI state; screenshots land in test-artifacts/.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withHost, type Harness } from '../integration/harness.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';

let b: BrowserHandle;
beforeAll(async () => {
  b = await openBrowser();
});
afterAll(async () => {
  await b?.close();
});

async function toast(page: BrowserHandle['page'], text: string | RegExp) {
  await page.locator('.toast', { hasText: text }).first().waitFor({ state: 'visible' });
}

/** Waits until the sidebar row of a group shows the host's own online / total count. */
async function sidebarMatchesHost(h: Harness, page: BrowserHandle['page'], name: string) {
  const groups = (await h.get<{ groups: { id: number; name: string }[] }>('/api/groups')).body.groups;
  const g = groups.find((x) => x.name === name);
  if (!g) throw new Error(`no group ${name}`);
  const devs = (await h.get<{ devices: { groupId: number; online: boolean }[] }>('/api/devices')).body
    .devices;
  const mine = devs.filter((d) => d.groupId === g.id);
  const text = `${mine.filter((d) => d.online).length} / ${mine.length}`;
  await page.locator('.group-row', { hasText: name }).locator('.count', { hasText: text }).waitFor();
  return mine.length;
}

describe('devices page', () => {
  it('operator-discovers-groups-moves-renames-and-controls-the-fleet', async () => {
    await withHost({ nodes: 8, seed: 11 }, async (h: Harness) => {
      const page = b.page;
      await page.goto(h.url + '/');
      // The simulated fleet is announced loudly.
      await page.getByTestId('banner-sim').waitFor();
      // …with where its devices are kept (the simulator's own data folder).
      await page.getByTestId('sim-data-dir').getByText(h.dataDir, { exact: true }).waitFor();
      await page.getByTestId('sim-badge').waitFor();
      await page.getByTestId('gateway-pill').getByText('sim').waitFor();

      // Discover straight into a new group.
      await page.getByRole('button', { name: 'Discover…' }).click();
      const discover = page.getByTestId('discover-dialog');
      await discover.locator('input[name=newGroupName]').fill('Start Gate');
      await b.shot('01-discover-dialog');
      await discover.getByRole('button', { name: 'Start' }).click();
      await discover
        .getByTestId('dialog-task')
        .getByText(/Discovered \d+ devices/)
        .waitFor({ timeout: 60_000 });
      const found = Number(
        (await discover.getByTestId('dialog-task').textContent())?.match(/Discovered (\d+)/)?.[1],
      );
      expect(found).toBeGreaterThan(0);
      await discover.getByRole('button', { name: 'Close' }).first().click();
      expect(await sidebarMatchesHost(h, page, 'Start Gate')).toBeGreaterThan(0);
      await page
        .locator('[data-testid=device-table] [role=row][data-addr]')
        .nth(found - 1)
        .waitFor();
      await b.shot('02-devices-after-discover');

      // A second group from the sidebar.
      await page.getByTestId('new-group').click();
      await page.getByTestId('new-group-dialog').locator('input[name=name]').fill('Finish Line');
      await page.getByTestId('new-group-dialog').getByRole('button', { name: 'Create' }).click();
      await toast(page, "Created group 'Finish Line'");
      const finish = page.locator('.group-row', { hasText: 'Finish Line' });
      await finish.getByText('0 / 0').waitFor();

      // Move two devices there (confirmed), and watch the counts follow.
      const rows = page.locator('[data-testid=device-table] [role=row][data-addr]');
      await rows.nth(0).locator('input[type=checkbox]').click();
      await rows.nth(1).locator('input[type=checkbox]').click();
      await page.getByTestId('selected-count').getByText('2 selected').waitFor();
      const finishId =
        (await page
          .locator('select[aria-label="Target group"] option', { hasText: 'Finish Line' })
          .getAttribute('value')) ?? '';
      await page.locator('select[aria-label="Target group"]').selectOption(finishId);
      await page.getByRole('button', { name: 'Move', exact: true }).click();
      await page
        .getByTestId('confirm')
        .getByText(/Move 2 devices to 'Finish Line'/)
        .waitFor();
      await b.shot('03-move-confirm');
      await page.getByTestId('confirm').getByRole('button', { name: 'Move' }).click();
      await toast(page, /Move to group: 2 changed/);
      await finish.getByText('2 / 2').waitFor();
      await sidebarMatchesHost(h, page, 'Start Gate');
      const api = await h.get<{ devices: { groupId: number }[] }>('/api/devices');
      expect(api.body.devices.filter((d) => d.groupId === Number(finishId))).toHaveLength(2);

      // Filter by the group in the sidebar, then rename one device in place.
      await finish.locator('.group-main').click();
      await page.locator('main h1', { hasText: 'Finish Line' }).waitFor();
      await expect.poll(() => rows.count()).toBe(2);
      await rows
        .nth(0)
        .getByRole('button', { name: /^Rename / })
        .click();
      await rows.nth(0).locator('input[aria-label^="New name"]').fill('Finish Left');
      await rows.nth(0).locator('input[aria-label^="New name"]').press('Enter');
      await page
        .getByTestId('device-table')
        .getByRole('button', { name: 'Finish Left', exact: true })
        .waitFor();

      // Control the group (nothing selected → the current group).
      await page.getByRole('button', { name: 'Clear selection' }).click();
      await page.getByRole('button', { name: 'Control…' }).click();
      const control = page.getByTestId('control-dialog');
      await control.getByText("Control — group 'Finish Line'").waitFor();
      await control.getByRole('radio', { name: 'Preset' }).check();
      await control.locator('input[name=presetId]').fill('3');
      await control.locator('input[name=brightness]').fill('200');
      await b.shot('04-control-dialog');
      await control.getByRole('button', { name: 'Send' }).click();
      await toast(page, /'preset 3' sent to group 'Finish Line': 1 frame/);
      await control.getByRole('button', { name: 'Close' }).first().click();

      // Locate by clicking a name; status poll of everything.
      await page
        .getByTestId('device-table')
        .getByRole('button', { name: 'Finish Left', exact: true })
        .click();
      await toast(page, 'Locating Finish Left…');
      await page.locator('.group-row', { hasText: 'All devices' }).locator('.group-main').click();
      await page.getByRole('button', { name: 'Status: all' }).click();
      await toast(page, /Status: \d+ answered/);

      // Device options: stored vs live, write with progress, read back.
      await page.getByLabel('Search devices').fill('Finish Left');
      await rows.nth(0).locator('button.chip').click();
      const opts = page.getByTestId('options-dialog');
      await opts.getByTestId('live-led_fps').getByText('device: 75 ✓').waitFor({ timeout: 60_000 });
      await opts.getByLabel('Target Refresh Rate (fps)').fill('60');
      await opts.getByTestId('opt-led_fps').getByRole('button', { name: 'Save' }).click();
      await toast(page, "Saved Target Refresh Rate (fps) = 60 on 'Finish Left'");
      await opts.getByTestId('opt-led_fps').getByText('stored: 60').waitFor();
      await opts.getByRole('button', { name: 'Read device config' }).click();
      await opts.getByTestId('live-led_fps').getByText('device: 60 ✓').waitFor({ timeout: 60_000 });
      // The segment geometry follows the node's LED count: the host never stored one, so it
      // is not a difference (no "⚠ differ" on a fresh device) — adopt it without radio.
      const seg = opts.getByTestId('live-led_seg0');
      await seg.getByText(/not stored on the host/).waitFor({ timeout: 60_000 });
      expect(await opts.locator('.badge-warn').count()).toBe(0);
      await b.shot('05a-device-options');
      await seg.getByRole('button', { name: 'Import device' }).click();
      await seg.getByText(/device: \d+\.\.\d+ ✓/).waitFor();
      await opts.getByRole('button', { name: 'Close' }).first().click();
      await page.getByLabel('Search devices').fill('');

      // Search and sort.
      await page.getByLabel('Search devices').fill('finish left');
      await expect.poll(() => rows.count()).toBe(1);
      await page.getByLabel('Search devices').fill('');
      const total = (await h.get<{ devices: unknown[] }>('/api/devices')).body.devices.length;
      await expect.poll(() => rows.count()).toBe(total);
      await page.getByRole('button', { name: /^Name/ }).click();
      await page.locator('[role=columnheader][aria-sort=descending]', { hasText: 'Name' }).waitFor();

      // Rename, then delete the group (confirmed): its devices fall back to Unconfigured.
      await finish.getByRole('button', { name: 'Rename group Finish Line' }).click();
      await page.locator('input[aria-label="New name for Finish Line"]').fill('Finish Arch');
      await page.locator('input[aria-label="New name for Finish Line"]').press('Enter');
      const arch = page.locator('.group-row', { hasText: 'Finish Arch' });
      await arch.waitFor();
      await b.shot('05-devices-grouped');
      await arch.getByRole('button', { name: 'Delete group Finish Arch' }).click();
      await page
        .getByTestId('confirm')
        .getByText(/Delete group 'Finish Arch'\? Its 2 devices move to Unconfigured/)
        .waitFor();
      await page.getByTestId('confirm').getByRole('button', { name: 'Delete' }).click();
      await toast(page, /Deleted 'Finish Arch': 2 moved to Unconfigured/);
      await arch.waitFor({ state: 'detached' });
      expect(await sidebarMatchesHost(h, page, 'Unconfigured')).toBeGreaterThanOrEqual(2);

      expect(b.errors).toEqual([]);
    });
  });

  it('a-300-device-fleet-renders-sorts-filters-and-selects', async () => {
    // A stored fleet of 300 (devices start offline after a restart until heard).
    const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-e2e-'));
    try {
      await writeFile(join(dataDir, 'state.json'), JSON.stringify(bigFleet(300)));
      await withHost({ nodes: 4, dataDir }, async (h) => {
        const page = b.page;
        await page.goto(h.url + '/');
        const rows = page.locator('[data-testid=device-table] [role=row][data-addr]');
        // Only the rows in view are in the DOM (virtualised): the count says 300 (and the
        // simulated nodes that announced themselves).
        const title = page.locator('.title-row', { hasText: /3\d\d shown/ });
        await title.waitFor();
        await rows.first().waitFor();
        await page.locator('.group-row', { hasText: 'Pit Lane' }).getByText('0 / 100').waitFor();
        await page.getByRole('button', { name: /^VBat/ }).click();
        await page.locator('[role=columnheader][aria-sort=ascending]', { hasText: 'VBat' }).waitFor();
        // Lowest voltage first. The stored devices are offline until heard: their readings
        // are stale, shown grey with the pack size in the tooltip, and raise no banner.
        await rows
          .nth(0)
          .locator('.c-vbat .muted', { hasText: /\d\.\d V/ })
          .waitFor();
        expect(await page.getByTestId('banner-battery').count()).toBe(0);
        expect(await rows.count()).toBeLessThan(100);
        const shown = Number((await title.textContent())?.match(/(\d+) shown/)?.[1]);
        expect(shown).toBeGreaterThanOrEqual(300);
        await page.getByRole('checkbox', { name: 'Select all visible devices' }).click();
        await page.getByTestId('selected-count').getByText(`${shown} selected`).waitFor();
        // The last row is reached by scrolling the table.
        await page.evaluate("document.querySelector('.table-wrap').scrollTop = 1e6");
        await page
          .locator('[data-testid=device-table] [role=row][data-addr]')
          .last()
          .locator('input:checked')
          .waitFor();
        await page.locator('.group-row', { hasText: 'Pit Lane' }).locator('.group-main').click();
        await page.locator('.title-row', { hasText: '100 shown' }).waitFor();
        await b.shot('06-devices-300');
        expect(b.errors).toEqual([]);
      });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

function bigFleet(n: number): Record<string, unknown> {
  const devices = Array.from({ length: n }, (_, i) => {
    const addr = (0x100000 + i * 97).toString(16).toUpperCase();
    return {
      addr,
      full_mac: `246F28${addr}`,
      name: `Gate ${String(i + 1).padStart(3, '0')}`,
      dev_type: 12,
      groupId: (i % 3) + 1,
      group_pending: false,
      flags: 1,
      configByte: 0,
      presetId: 1,
      effectId: i % 10,
      brightness: (i * 7) % 256,
      specials: {},
      voltage_mV: 6200 + ((i * 37) % 2400),
      node_rssi: -60 - (i % 50),
      node_snr: 10 - (i % 20),
      host_rssi: -55 - (i % 55),
      host_snr: 9 - (i % 19),
      version: 2,
      last_seen_ts: 1_700_000_000 + i,
      last_ack: null,
      online: false,
    };
  });
  return {
    schema_version: 2,
    devices,
    groups: [
      { id: 1, name: 'Start Gate', dev_type: 0 },
      { id: 2, name: 'Pit Lane', dev_type: 0 },
      { id: 3, name: 'Finish', dev_type: 0 },
    ],
    native_presets: [],
    scenes: [],
    settings: { led_presets_file: null },
  };
}
