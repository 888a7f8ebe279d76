/**
 * Browser scenarios of issue 20 (what a trackside walk of the UI tripped over): the
 * phone reaches and opens a row, single-cell batteries are not flagged, control by
 * preset name, duplicate group names warned, task progress with counts, Blackout stops
 * a running scene and the simulated nodes go dark, race mode hides destructive actions —
 * in a second browser too, without a reload.
 * Every wait is on UI state; screenshots land in test-artifacts/.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makePresets } from '../fixtures/ota/builders.ts';
import { withHost, type Harness } from '../integration/harness.ts';
import { discoverAll, runTask } from '../integration/host/helpers.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';

let b: BrowserHandle;
beforeAll(async () => {
  b = await openBrowser({ width: 1280, height: 800 });
});
afterAll(async () => {
  await b?.close();
});
// Each scenario has its own host: the previous page's reconnect attempts to a host that
// is gone are not this scenario's errors.
beforeEach(async () => {
  await b.page.goto('about:blank');
  b.errors.length = 0;
  b.errorToasts.length = 0;
});

type Page = BrowserHandle['page'];
const toast = (page: Page, text: string | RegExp) =>
  page.locator('.toast', { hasText: text }).first().waitFor({ state: 'visible' });
const rows = (page: Page) => page.locator('[data-testid=device-table] [role=row][data-addr]');
const simNodes = (h: Harness) => h.host.sim?.fleet.nodes ?? [];

describe('operator console', () => {
  it('phone-layout-reaches-the-table-and-opens-a-device', async () => {
    const phone = await openBrowser({ width: 390, height: 844 });
    try {
      await withHost({ nodes: 6, seed: 3 }, async (h) => {
        await discoverAll(h, { newGroupName: 'Track' });
        const page = phone.page;
        await page.goto(h.url + '/');
        await rows(page).nth(5).waitFor({ state: 'attached' });
        // Nothing sticks out sideways: the page is as wide as the phone.
        expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
        const row = rows(page).first();
        // Scroll the page down to the table as a thumb would.
        await page.evaluate("document.querySelector('.table-wrap').scrollIntoView()");
        await row.scrollIntoViewIfNeeded();
        const box = await row.boundingBox();
        expect(
          box && box.y >= 0 && box.y + box.height <= 844 && box.x + box.width <= 390,
          JSON.stringify(box),
        ).toBe(true);
        await row.getByRole('checkbox').check();
        await page.getByTestId('selected-count').getByText('1 selected').waitFor();
        await phone.shot('30-phone-row-reached');
        await row.locator('button.chip').click();
        await page.getByTestId('options-dialog').waitFor();
        await phone.shot('31-phone-options-open');
        expect(phone.errors).toEqual([]);
      });
    } finally {
      await phone.close();
    }
  });

  it('single-cell-batteries-are-not-flagged-and-offline-readings-do-not-alert', async () => {
    await withHost({ nodes: 4, seed: 5 }, async (h) => {
      await discoverAll(h);
      const [n1, n2, n3, n4] = simNodes(h);
      n1!.vbatMv = 3700; // 1S, healthy
      n2!.vbatMv = 4150; // 1S, full
      n3!.vbatMv = 3250; // 1S, low (3.25 V per cell)
      n4!.vbatMv = 7600; // 2S, healthy
      await runTask(h, '/api/status', {});
      const page = b.page;
      await page.goto(h.url + '/');
      await page.getByRole('button', { name: /^VBat/ }).click();
      const banner = page.getByTestId('banner-battery');
      await banner.getByText('1 device reporting low battery').waitFor();
      const row = (addr: string) =>
        page.locator(`[data-testid=device-table] [role=row][data-addr="${addr}"] .c-vbat`);
      await row(n3!.addr).locator('.lvl-bad', { hasText: '⚠' }).waitFor();
      for (const n of [n1!, n2!, n4!]) {
        await row(n.addr).locator('.lvl-good').waitFor();
        expect(await row(n.addr).textContent()).not.toContain('⚠');
      }
      await b.shot('32-battery-per-cell');
      // The low one goes offline: its old reading stays, greyed, and stops alerting.
      n3!.powerOff();
      await runTask(h, '/api/status', {});
      await banner.waitFor({ state: 'detached' });
      await row(n3!.addr).locator('.muted', { hasText: '3.2 V' }).waitFor();
      expect(b.errors).toEqual([]);
    });
  });

  it('control-by-preset-name-and-native-preset-and-power-follows-brightness', async () => {
    await withHost({ nodes: 3, seed: 7 }, async (h) => {
      await discoverAll(h, { newGroupName: 'Gates' });
      const form = new FormData();
      form.append('file', new Blob([makePresets(4)]), 'presets.json');
      const up = await fetch(h.url + '/api/presets/upload', { method: 'POST', body: form });
      expect(up.status).toBe(200);
      const native = await h.post('/api/native-presets', {
        label: 'Amber Pulse',
        params: { mode: 2, brightness: 90 },
      });
      expect(native.status, JSON.stringify(native.body)).toBe(200);
      const page = b.page;
      await page.goto(h.url + '/');
      await page.locator('.group-row', { hasText: 'Gates' }).locator('.group-main').click();
      await page.getByRole('button', { name: 'Control…' }).click();
      const control = page.getByTestId('control-dialog');
      await control.getByRole('radio', { name: 'Preset' }).check();
      await control
        .locator('select[name=preset] option', { hasText: 'Preset 3 (#3)' })
        .waitFor({ state: 'attached' });
      await control.locator('select[name=preset]').selectOption({ label: 'Preset 3 (#3)' });
      await control.locator('input[name=brightness]').fill('200');
      await b.shot('33-control-by-name');
      await control.getByRole('button', { name: 'Send' }).click();
      await toast(page, /'Preset 3' sent to group 'Gates': 1 frame/);
      await expect.poll(() => simNodes(h).every((n) => n.snapshot().presetId === 3)).toBe(true);
      // Power follows the brightness at once (not after the next poll).
      await expect.poll(() => rows(page).locator('.pill.on', { hasText: 'ON' }).count()).toBe(3);
      // A native preset by name.
      await control.locator('select[name=preset]').selectOption({ label: 'Amber Pulse' });
      await control.getByRole('button', { name: 'Send' }).click();
      await toast(page, "Native preset 'Amber Pulse' sent to group 'Gates'");
      await expect.poll(() => simNodes(h).every((n) => n.snapshot().effectMode === 2)).toBe(true);
      // Off sends at once.
      await control.getByRole('button', { name: 'Off' }).click();
      await toast(page, /Off sent to group 'Gates'/);
      await expect.poll(() => simNodes(h).every((n) => n.snapshot().bri === 0)).toBe(true);
      await expect.poll(() => rows(page).locator('.pill.off', { hasText: 'OFF' }).count()).toBe(3);
      expect(b.errorToasts).toEqual([]);
      expect(b.errors).toEqual([]);
    });
  });

  it('duplicate-group-names-are-warned-and-an-empty-namesake-is-reused', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      const page = b.page;
      await page.goto(h.url + '/');
      await page.getByTestId('new-group').click();
      const dlg = page.getByTestId('new-group-dialog');
      await dlg.locator('input[name=name]').fill('Track');
      await dlg.getByRole('button', { name: 'Create' }).click();
      await toast(page, "Created group 'Track'");
      await page.getByTestId('new-group').click();
      await dlg.locator('input[name=name]').fill('track ');
      await dlg
        .getByTestId('duplicate-name')
        .getByText(/A group named 'Track' already exists \(#1\)/)
        .waitFor();
      await b.shot('34-duplicate-group-name');
      await dlg.getByRole('button', { name: 'Cancel' }).click();
      // Discovery into a "new" group named like the empty one reuses it; nothing answers.
      await page.getByRole('button', { name: 'Discover…' }).click();
      const disc = page.getByTestId('discover-dialog');
      await disc.locator('input[name=newGroupName]').fill('Track');
      await disc.getByTestId('reuse-group').getByText("The empty group 'Track' (#1)").waitFor();
      await disc.getByRole('button', { name: 'Start' }).click();
      await disc.getByText('No devices answered.').waitFor({ timeout: 60_000 });
      expect(await disc.locator('input[name=newGroupName]').inputValue()).toBe('');
      const groups = (await h.get<{ groups: { name: string }[] }>('/api/groups')).body.groups;
      expect(groups.filter((g) => g.name === 'Track')).toHaveLength(1);
      expect(b.errors).toEqual([]);
    });
  });

  it('the-device-table-is-the-health-view-failed-and-config-columns-and-csv', async () => {
    await withHost({ nodes: 4, seed: 5 }, async (h) => {
      await discoverAll(h);
      const [n1, silent, apOpen] = simNodes(h);
      apOpen!.apActive = true;
      silent!.silence(true);
      await runTask(h, '/api/status', {});
      const failures = async (addr: string): Promise<number> =>
        (await h.get<{ links: { addr: string; failures: number }[] }>('/api/links')).body.links.find(
          (l) => l.addr === addr,
        )?.failures ?? -1;
      expect(await failures(silent!.addr)).toBeGreaterThan(0);
      const page = b.page;
      await page.goto(h.url + '/');
      await rows(page).nth(3).waitFor();
      // Off by default (the row fits a laptop); the Columns menu turns them on.
      expect(
        await page.locator('[data-testid=device-table] [role=columnheader]', { hasText: 'Failed' }).count(),
      ).toBe(0);
      await page.locator('.columns-menu summary').click();
      await page
        .getByRole('group', { name: 'Table columns' })
        .getByRole('checkbox', { name: /Failed/ })
        .check();
      await page
        .getByRole('group', { name: 'Table columns' })
        .getByRole('checkbox', { name: /Config/ })
        .check();
      const cell = (addr: string, col: string) =>
        page.locator(`[data-testid=device-table] [role=row][data-addr="${addr}"] .c-${col}`);
      await cell(silent!.addr, 'fail')
        .getByText(String(await failures(silent!.addr)), { exact: true })
        .waitFor();
      await cell(n1!.addr, 'fail').getByText('0', { exact: true }).waitFor();
      await cell(apOpen!.addr, 'config').locator('.pill.warn', { hasText: 'AP open' }).waitFor();
      await cell(n1!.addr, 'config').getByText('MAC filter', { exact: true }).waitFor();
      // Escape closes the menu.
      await page.keyboard.press('Escape');
      await page.getByRole('group', { name: 'Table columns' }).waitFor({ state: 'hidden' });
      await b.shot('39-health-columns');
      // The choice is this browser's and survives a reload.
      await page.reload();
      await cell(apOpen!.addr, 'config').locator('.pill', { hasText: 'AP open' }).waitFor();

      // CSV of the rows the filter shows, every health field included.
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export CSV' }).click();
      const file = await (await download).path();
      const lines = (await readFile(file, 'utf8')).trim().split('\r\n');
      const header = lines[0]!.split(',');
      expect(header).toEqual(
        expect.arrayContaining([
          'mac',
          'rssi_up_dbm',
          'rssi_down_dbm',
          'cells',
          'failed_exchanges',
          'config',
        ]),
      );
      expect(lines).toHaveLength(5);
      const silentName = (
        await h.get<{ devices: { addr: string; name: string }[] }>('/api/devices')
      ).body.devices.find((d) => d.addr === silent!.addr)!.name;
      const silentLine = lines.find((l) => l.startsWith(`${silentName},`))!.split(',');
      expect(Number(silentLine[header.indexOf('failed_exchanges')])).toBe(await failures(silent!.addr));

      // "Fit to window" forgets the choice.
      await page.locator('.columns-menu summary').click();
      await page.getByRole('button', { name: 'Fit to window' }).click();
      await cell(n1!.addr, 'fail').waitFor({ state: 'detached' });
      expect(b.errors).toEqual([]);
      expect(b.errorToasts).toEqual([]);
    });
  });

  it('a-status-poll-shows-answered-of-expected-while-it-runs', async () => {
    await withHost({ nodes: 12, seed: 9, timeScale: 1 }, async (h) => {
      await discoverAll(h);
      // Half of the fleet is silent: the poll waits for them, so it stays visible.
      for (const n of simNodes(h).slice(0, 3)) n.silence(true);
      const page = b.page;
      await page.goto(h.url + '/');
      await page.getByRole('button', { name: 'Status: all' }).click();
      const line = page.getByTestId('task-line');
      await line.getByText('polling').waitFor();
      await line
        .getByTestId('task-counts')
        .getByText(/answered \d+ of 12/)
        .waitFor();
      await b.shot('35-status-progress');
      await line.waitFor({ state: 'detached', timeout: 120_000 });
      // The silent nodes may be taken up by the field recovery (rejoining, not offline).
      await toast(page, /Status: \d+ answered/);
      expect(b.errors).toEqual([]);
    });
  });

  it('blackout-stops-a-running-pinned-scene-and-the-nodes-go-dark', async () => {
    // Real time: on a stepped clock a busy machine can run the 60 s delay out before the click.
    await withHost({ nodes: 4, seed: 13, timeScale: 1 }, async (h) => {
      await discoverAll(h);
      const scene = await h.post<{ scene: { key: string } }>('/api/scenes', {
        label: 'Race Start',
        actions: [
          { kind: 'native_effect', target: { kind: 'broadcast' }, params: { mode: 2, brightness: 200 } },
          { kind: 'delay', duration_ms: 60_000 },
          { kind: 'native_effect', target: { kind: 'broadcast' }, params: { mode: 3, brightness: 255 } },
        ],
      });
      expect(scene.status, JSON.stringify(scene.body)).toBe(200);
      const page = b.page;
      await page.goto(h.url + '/race');
      await page.getByTestId('race-page').waitFor();
      await page.getByLabel('Pin a scene').selectOption({ label: 'Race Start' });
      const pinned = page.locator('.race-run', { hasText: 'Race Start' });
      await pinned.waitFor();
      // Key 1 runs the first pinned scene (keys are ignored while a field has focus).
      await page.evaluate('document.activeElement && document.activeElement.blur()');
      await page.keyboard.press('1');
      await page
        .getByTestId('race-running')
        .getByText(/action 2 of 3/)
        .waitFor();
      await expect.poll(() => simNodes(h).filter((n) => n.snapshot().bri > 0).length).toBe(4);
      await b.shot('36-race-running');
      await page.getByTestId('blackout-big').click();
      await toast(page, `Blackout: all nodes sent off — scene '${scene.body.scene.key}' stopped`);
      await page.getByTestId('race-running').waitFor({ state: 'detached' });
      await expect.poll(() => simNodes(h).every((n) => n.snapshot().bri === 0)).toBe(true);
      // The key in the status bar works on every page.
      await page.goto(h.url + '/');
      await rows(page).first().waitFor();
      await page.keyboard.press('b');
      await toast(page, 'Blackout: all nodes sent off');
      await b.shot('37-blackout');
      expect(b.errors).toEqual([]);
    });
  });

  it('race-mode-hides-reboot-forget-master-and-firmware', async () => {
    await withHost({ nodes: 2, seed: 17 }, async (h) => {
      await discoverAll(h);
      const page = b.page;
      await page.goto(h.url + '/');
      await page.getByRole('button', { name: 'Firmware…' }).waitFor();
      const nodeCmd = page.getByLabel('Node command');
      expect(await nodeCmd.locator('option', { hasText: 'Reboot node' }).count()).toBe(1);
      await page.getByRole('link', { name: 'Race', exact: true }).click();
      await page.getByTestId('race-mode').check();
      await page.getByRole('link', { name: 'Devices', exact: true }).click();
      await page.getByText('RACE MODE').waitFor();
      await rows(page).first().waitFor();
      expect(await page.getByRole('button', { name: 'Firmware…' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Reload' }).count()).toBe(0);
      expect(await nodeCmd.locator('option', { hasText: /Reboot|Forget master/ }).count()).toBe(0);
      await rows(page).first().locator('button.chip').click();
      const opts = page.getByTestId('options-dialog');
      await opts.getByText('MAC filter', { exact: false }).first().waitFor();
      expect(await opts.getByRole('button', { name: /Reboot|Forget master|Reset to native/ }).count()).toBe(
        0,
      );
      await b.shot('38-race-mode-options');
      await opts.getByRole('button', { name: 'Close' }).first().click();
      // Off again: everything is back.
      await page.getByRole('link', { name: 'Race', exact: true }).click();
      await page.getByTestId('race-mode').uncheck();
      await page.getByRole('link', { name: 'Devices', exact: true }).click();
      await page.getByRole('button', { name: 'Firmware…' }).waitFor();
      expect(b.errors).toEqual([]);
    });
  });

  it('race-mode-and-pins-switched-in-one-browser-show-in-another-without-a-reload', async () => {
    // A second browser with its own profile (the tablet beside the track laptop): nothing
    // is shared between the two but the host.
    const tablet = await openBrowser({ width: 1024, height: 768 });
    try {
      await withHost({ nodes: 2, seed: 19 }, async (h) => {
        await discoverAll(h);
        const made = await h.post<{ scene: { key: string } }>('/api/scenes', {
          label: 'Start lights',
          actions: [],
        });
        expect(made.status, JSON.stringify(made.body)).toBe(200);
        const laptop = b.page;
        const other = tablet.page;
        // The tablet ran an older UI that kept race mode and pins in its own storage: those
        // copies are dropped once the host's settings load, never pushed to the host.
        // (Written before the app's own scripts run, on the first page of the host's origin.)
        await other.addInitScript(`
          if (location.protocol === 'http:' && !sessionStorage.getItem('seeded')) {
            sessionStorage.setItem('seeded', '1');
            localStorage.setItem('lightnet.raceMode', 'true');
            localStorage.setItem('lightnet.pinned', '["start_lights"]');
          }
        `);
        await other.goto(h.url + '/');
        await toast(other, /now shared by every browser/);
        const stored = await other.evaluate(
          "[localStorage.getItem('lightnet.raceMode'), localStorage.getItem('lightnet.pinned')]",
        );
        expect(stored).toEqual([null, null]);
        const kept = await h.get<{ console: { race_mode: boolean; pinned_scenes: string[] } }>(
          '/api/console',
        );
        expect(kept.body.console).toMatchObject({ race_mode: false, pinned_scenes: [] });
        await rows(other).first().waitFor();
        await other.getByRole('button', { name: 'Firmware…' }).waitFor();
        expect(await other.getByText('RACE MODE', { exact: true }).count()).toBe(0);

        await laptop.goto(h.url + '/race');
        await laptop.getByTestId('race-page').waitFor();
        await laptop.getByTestId('race-mode').check();
        await laptop.getByText('RACE MODE', { exact: true }).waitFor();
        // The tablet follows on its own: the pill shows and the destructive buttons go.
        await other.getByText('RACE MODE', { exact: true }).waitFor();
        await other.getByRole('button', { name: 'Firmware…' }).waitFor({ state: 'detached' });
        expect(await other.getByRole('button', { name: 'Reload' }).count()).toBe(0);

        // A scene pinned on the laptop is on the tablet's race panel (reached by the app's
        // own link: no reload), in race mode there too.
        await laptop.getByLabel('Pin a scene').selectOption({ label: 'Start lights' });
        await laptop.locator('.race-run', { hasText: 'Start lights' }).waitFor();
        await other.getByRole('link', { name: 'Race', exact: true }).click();
        await other.locator('.race-run', { hasText: 'Start lights' }).waitFor();
        await other.locator('[data-testid=race-mode]:checked').waitFor();
        await tablet.shot('39-race-mode-second-browser');

        // Switched off on the tablet: the laptop's panel follows.
        await other.getByTestId('race-mode').uncheck();
        await laptop.getByText('RACE MODE', { exact: true }).waitFor({ state: 'detached' });
        await laptop.locator('[data-testid=race-mode]:not(:checked)').waitFor();
        expect(b.errors).toEqual([]);
        expect(tablet.errors).toEqual([]);
        expect([...b.errorToasts, ...tablet.errorToasts]).toEqual([]);
      });
    } finally {
      await tablet.close();
    }
  });

  it('every-page-at-1280-1024-and-390', async () => {
    await withHost({ nodes: 8, seed: 21 }, async (h) => {
      await discoverAll(h, { newGroupName: 'Start Gate' });
      for (const [w, hgt] of [
        [1280, 800],
        [1024, 768],
        [390, 844],
      ] as const) {
        await b.page.setViewportSize({ width: w, height: hgt });
        for (const p of ['', 'scenes', 'race', 'help']) {
          await b.page.goto(`${h.url}/${p}`);
          await rows(b.page).first().or(b.page.locator('main')).first().waitFor();
          if (p === '') await rows(b.page).nth(7).waitFor();
          if (p === 'help') await b.page.getByTestId('help-marks').waitFor();
          expect(await b.page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(w);
          await b.shot(`40-page-${p || 'devices'}-${w}`);
        }
      }
      await b.page.setViewportSize({ width: 1280, height: 800 });
      expect(b.errors).toEqual([]);
    });
  });
});
