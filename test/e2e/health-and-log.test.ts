/**
 * Browser scenarios for the operator's console additions: the Log page filtered to one
 * device, a device's history chart after polls, the alert list with acknowledge, and a
 * link test with its results table. Screenshots of each page at 1280, 1024 and 390 px.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fleetState } from '../../bench/fleet-state.ts';
import { serializeState } from '../../src/state/migrations.ts';
import { withHost, type Harness } from '../integration/harness.ts';
import { discoverAll, runTask, simAddrs } from '../integration/host/helpers.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';

let b: BrowserHandle;
beforeAll(async () => {
  b = await openBrowser({ width: 1280, height: 800 });
});
afterAll(async () => {
  await b?.close();
});
// The tests share one page, and each host closes when its test ends: the page must not
// outlive its host (its reconnects to a closed port are the previous test's, not this one's).
beforeEach(() => {
  b.errors.length = 0;
});
afterEach(async () => {
  await b.page.goto('about:blank');
});

const SIZES = [
  [1280, 800],
  [1024, 768],
  [390, 844],
] as const;

/** Screenshots at the three widths, back to 1280 afterwards. */
async function shots(name: string): Promise<void> {
  for (const [w, hgt] of SIZES) {
    await b.page.setViewportSize({ width: w, height: hgt });
    await b.shot(`${name}-${w}`);
  }
  await b.page.setViewportSize({ width: 1280, height: 800 });
}

async function nameOf(h: Harness, addr: string): Promise<string> {
  const devs = (await h.get<{ devices: { addr: string; name: string }[] }>('/api/devices')).body.devices;
  return devs.find((d) => d.addr === addr)?.name ?? addr;
}

describe('health and log pages', () => {
  it('log-page-filters-one-devices-entries', async () => {
    await withHost({ nodes: 6, seed: 5 }, async (h) => {
      await discoverAll(h);
      const [, silent] = simAddrs(h) as [string, string];
      await runTask(h, '/api/status', {});
      h.host.sim?.fleet.faults.silence(silent);
      await runTask(h, '/api/status', {});
      const page = b.page;
      await page.goto(h.url + '/log');
      await page.getByRole('heading', { name: 'Activity log' }).waitFor();
      await page.getByTestId('log-table').getByText('task done').first().waitFor();
      await page.getByLabel('Device').selectOption(silent);
      const rows = page.locator('[data-testid=log-table] tbody tr');
      await rows.filter({ hasText: 'device offline' }).first().waitFor();
      // The filter re-renders the table after the select: wait until only its rows remain.
      await expect
        .poll(
          async () => {
            const shown = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-device')));
            return shown.length > 0 && shown.every((d) => d === silent);
          },
          { timeout: 10_000 },
        )
        .toBe(true);
      const devicesShown = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-device')));
      expect(devicesShown.length).toBeGreaterThan(0);
      expect(new Set(devicesShown)).toEqual(new Set([silent]));
      // Text search narrows further, and a new live entry arrives for the filter.
      await page.getByLabel('Search the log').fill('back online');
      await page.getByText('No entries match.').waitFor();
      h.host.sim?.fleet.faults.unsilence(silent);
      await runTask(h, '/api/status', {});
      await rows.filter({ hasText: 'device back online' }).first().waitFor();
      await page.getByLabel('Search the log').fill('');
      await rows.filter({ hasText: 'device offline' }).first().waitFor();
      await shots('log-page');
      expect(b.errors).toEqual([]);
    });
  });

  it('history-chart-shows-points-after-polls-and-alerts-can-be-acknowledged', async () => {
    // Polls follow each other within one 10 s bucket of simulated time: one sample per reply here.
    await withHost({ nodes: 6, seed: 5, overrides: { history: { bucketS: 0 } } }, async (h) => {
      await discoverAll(h);
      const [first, silent] = simAddrs(h) as [string, string];
      const nodeSamples = async (): Promise<number> =>
        (
          await h.get<{ samples: { node_rssi: (number | null)[] } }>(`/api/devices/${first}/history`)
        ).body.samples.node_rssi.filter((v) => v !== null).length;
      // Polls until the device was heard both ways three times: a reply lost on the
      // simulated air (its link is seeded, the timing on a loaded machine is not) costs
      // one more poll, not the test.
      for (let polls = 0; polls < 8 && (await nodeSamples()) < 2; polls++)
        await runTask(h, '/api/status', {});
      h.host.sim?.fleet.faults.silence(silent);
      // At least one poll after the silence, so that device is called offline.
      let after = 0;
      do await runTask(h, '/api/status', {});
      while (++after < 4 && (await nodeSamples()) < 3);
      const page = b.page;
      await page.goto(h.url + '/health');
      await page.getByRole('heading', { name: 'Fleet health' }).waitFor();
      // The silenced device is an open alert; acknowledging moves it out of the open list.
      const silentName = await nameOf(h, silent);
      const alerts = page.getByTestId('alerts');
      const alert = alerts.locator('li', { hasText: silentName });
      await alert.getByText('Offline').waitFor();
      await page.getByTestId('group-count-0').getByText('5/6').waitFor();
      await shots('health-overview');
      await alert.getByRole('button', { name: 'Acknowledge' }).click();
      await alerts.locator('li', { hasText: silentName }).waitFor({ state: 'detached' });
      // Kept on the host, for every browser (not in this one's storage).
      await expect
        .poll(async () => (await h.get<{ console: { acknowledged_alerts: string[] } }>('/api/console')).body)
        .toMatchObject({ console: { acknowledged_alerts: [`offline:${silent}`] } });

      const firstName = await nameOf(h, first);
      await page.getByTestId('health-table').getByRole('button', { name: firstName, exact: true }).click();
      const detail = page.getByTestId('device-detail');
      await detail.waitFor();
      const chart = detail.getByTestId('chart-rssi');
      // Every reply is a sample (discovery's host-side only); the three polls are heard both ways.
      const hist = (
        await h.get<{ samples: { host_rssi: number[]; node_rssi: (number | null)[] } }>(
          `/api/devices/${first}/history`,
        )
      ).body.samples;
      const nodePoints = hist.node_rssi.filter((v) => v !== null).length;
      expect(nodePoints).toBeGreaterThanOrEqual(3);
      await expect
        .poll(async () => Number(await chart.getAttribute('data-points')))
        .toBe(hist.host_rssi.length + nodePoints);
      await detail.getByTestId('uptime').waitFor();
      // The device's own link test, from its detail view.
      await detail.getByRole('button', { name: 'Link test (10 exchanges)' }).click();
      const own = detail.getByTestId('linktest-results').locator('tbody tr');
      await own.first().waitFor({ timeout: 120_000 });
      expect(await own.count()).toBe(1);
      // The row shows what the host measured: 10 exchanges sent, and as many answered as
      // the simulated air let through (a good link; one exchange lost to a collision on a
      // loaded machine is the air's doing, not the page's).
      const measured = (
        await h.get<{ task: { name: string; result: { devices: { sent: number; received: number }[] } } }>(
          '/api/task',
        )
      ).body.task;
      expect(measured.name).toBe('link_test');
      const [one] = measured.result.devices;
      expect(one?.sent).toBe(10);
      expect(one?.received).toBeGreaterThanOrEqual(8);
      expect((await own.locator('td').nth(1).textContent())?.trim()).toBe(`${one?.received}/10`);
      await shots('health-device-detail');
      await detail.getByRole('button', { name: 'Close' }).first().click();

      await page.getByRole('tab', { name: 'Weakest links' }).click();
      await page.getByTestId('weak-links').locator('tbody tr').first().waitFor();
      await shots('health-weakest-links');
      expect(b.errors).toEqual([]);
    });
  });

  it('health-page-draws-a-large-fleet-a-page-at-a-time', async () => {
    // 130 stored devices, none heard since the start: the page opens with the first 50
    // table rows and grows as its end scrolls into view; "show all" draws the rest.
    const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-e2e-health-'));
    try {
      await writeFile(join(dataDir, 'state.json'), serializeState(fleetState(130, 4)));
      await withHost({ nodes: 0, dataDir, timeScale: 1 }, async (h) => {
        const page = b.page;
        await page.goto(h.url + '/health');
        const table = page.getByTestId('health-table');
        const rows = table.locator('tbody tr');
        await table.getByText('50 of 130 shown').waitFor();
        expect(await rows.count()).toBe(51);
        await table.getByText('50 of 130 shown').scrollIntoViewIfNeeded();
        await table.getByText('100 of 130 shown').waitFor();
        // "show all" sits above the table: drawing more rows never moves it (it used to sit
        // in the last row, which scrolling to it replaced — red under load).
        await page.getByTestId('health-shown').getByRole('button', { name: 'show all' }).click();
        await expect.poll(() => rows.count()).toBe(130);
        // The filter reaches every device, drawn or not.
        const last = (await h.get<{ devices: { name: string; addr: string }[] }>('/api/devices')).body.devices
          .map((d) => d.name)
          .sort()
          .at(-1)!;
        await page.getByLabel('Filter devices').fill(last);
        await expect.poll(() => rows.count()).toBe(1);
        expect(b.errors).toEqual([]);
      });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('link-test-shows-loss-and-round-trip-per-device', async () => {
    await withHost({ nodes: 4, seed: 5 }, async (h) => {
      await discoverAll(h);
      const [, silent] = simAddrs(h) as [string, string];
      h.host.sim?.fleet.faults.silence(silent);
      const page = b.page;
      await page.goto(h.url + '/health');
      await page.getByRole('tab', { name: 'Link test' }).click();
      await page.getByRole('button', { name: /Pick all shown \(4\)/ }).click();
      await page.getByLabel('Exchanges per device').fill('3');
      await page.getByRole('button', { name: 'Start link test (4 devices)' }).click();
      const results = page.getByTestId('linktest-results');
      await results.waitFor({ timeout: 120_000 });
      const silentName = await nameOf(h, silent);
      const bad = results.locator('tr', { hasText: silentName });
      await expect.poll(async () => (await bad.locator('td').nth(1).textContent())?.trim()).toBe('0/3');
      expect((await bad.locator('td').nth(2).textContent())?.trim()).toBe('100 %');
      const rows = await results.locator('tbody tr').count();
      expect(rows).toBe(4);
      // Every row shows what the host measured (an answered exchange on the simulated air
      // can still be lost to a collision on a loaded machine, so the counts come from the host).
      const measured = (
        await h.get<{
          task: { result: { devices: { name: string; sent: number; received: number; loss_pct: number }[] } };
        }>('/api/task')
      ).body.task.result.devices;
      for (let i = 0; i < rows; i++) {
        const row = results.locator('tbody tr').nth(i);
        const name = (await row.locator('td').nth(0).textContent())?.trim();
        const m = measured.find((d) => d.name === name);
        expect(m?.sent).toBe(3);
        expect((await row.locator('td').nth(1).textContent())?.trim()).toBe(`${m?.received}/3`);
        expect((await row.locator('td').nth(2).textContent())?.trim()).toBe(`${m?.loss_pct} %`);
        if (name !== silentName) {
          expect(m?.received).toBeGreaterThanOrEqual(1);
          expect(await row.locator('td').nth(3).textContent()).toMatch(/^\d+ \/ \d+ \/ \d+ ms$/);
        }
      }
      await shots('health-link-test');
      expect(b.errors).toEqual([]);
    });
  });
});
