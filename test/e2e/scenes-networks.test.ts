/**
 * Browser scenario with two simulated gateways: the scene editor shows the fan-out in the
 * estimate and a scope selector; restricting the scope to one network removes the fan-out,
 * is saved with the scene, and the run goes out on that network only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPC } from '../../src/protocol/types.ts';
import { withHost } from '../integration/harness.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';

let b: BrowserHandle;
beforeAll(async () => {
  b = await openBrowser();
});
afterAll(async () => {
  await b?.close();
});

describe('scenes page with two networks', () => {
  it('operator-sees-the-fan-out-restricts-the-scope-saves-and-runs-on-one-network', async () => {
    await withHost({ nodes: 2, simGateways: 2 }, async (h) => {
      const d = await h.post<{ task: { id: number } }>('/api/discover', { newGroupName: 'Track' });
      await h.waitTask(d.body.task.id);
      const page = b.page;
      await page.goto(h.url + '/');
      await page.getByRole('link', { name: 'Scenes' }).click();
      await page.getByRole('button', { name: 'New scene', exact: true }).click();
      await page.getByLabel('Scene label').fill('Both tracks go');
      await page.getByLabel('New action kind').selectOption({ label: 'SYNC (fire armed actions)' });
      await page.getByRole('button', { name: '+ Add', exact: true }).click();
      // A sync-only scene reaches every network: one SYNC per gateway, in parallel.
      await page.locator('[data-testid=total-cost][data-pending=false]', { hasText: /Total: 2p/ }).waitFor();
      await page
        .getByTestId('fan-out')
        .getByText(/^Fan-out 2 gateways · wall \d+ ms · air \d+ ms$/)
        .waitFor();
      const scope = page.getByTestId('scene-scope');
      await scope.getByRole('button', { name: 'Automatic' }).waitFor();
      await b.shot('scene-fan-out');

      // Restricted to Network 1: one SYNC, no fan-out.
      await scope.getByRole('button', { name: 'Network 1' }).click();
      await page.locator('[data-testid=total-cost][data-pending=false]', { hasText: /Total: 1p/ }).waitFor();
      expect(await page.getByTestId('fan-out').count()).toBe(0);
      await page.getByRole('button', { name: /^Create/ }).click();
      await page.locator('.toast', { hasText: "Saved scene 'Both tracks go'" }).waitFor();
      const saved = (await h.get<{ scenes: { label: string; networks?: number[] }[] }>('/api/scenes')).body
        .scenes;
      expect(saved.map((s) => [s.label, s.networks])).toEqual([['Both tracks go', [1]]]);

      // The run sends the SYNC through network 1's gateway only.
      const syncs = new Map<string, number>();
      const offs = h.host.sims.map((s) =>
        s.fleet.gateway.events.on('m2n', (m) => {
          if ((m.typeFull & 0x7f) === OPC.SYNC)
            syncs.set(s.fleet.gateway.mac, (syncs.get(s.fleet.gateway.mac) ?? 0) + 1);
        }),
      );
      await page.getByRole('button', { name: 'Run' }).click();
      await page
        .getByTestId('last-run')
        .getByText(/Last run: OK · 1 actions/)
        .waitFor({ timeout: 60_000 });
      for (const off of offs) off();
      expect([...syncs.values()]).toEqual([1]);
      expect(b.errors).toEqual([]);
    });
  });
});
