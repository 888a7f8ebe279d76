/**
 * The Networks dialog's actions (issues 26/27) in the real browser against simulated
 * gateways: create (occupied channel greyed, the host's refusal shown as worded), rename,
 * delete (refused while not empty, then done); a gateway in no network assigned as the
 * replacement of a network and as a new network; pinned nodes listed and unpinned; a conflict with its differing fields and
 * three resolutions, the gateway retuned or the nodes moved to it; a move to another channel reaching done; a scan
 * finding a stranded node and Bring home putting it back in its group.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { describeRf, findChannel, sameRf } from '../../src/domain/rf-channels.ts';
import type { Radio } from '../../src/gateway/radio/radio.ts';
import type { GatewayDriver } from '../../src/gateway/types.ts';
import type { RfConfig } from '../../src/protocol/types.ts';
import type { TaskSnapshot } from '../../src/tasks/task-manager.ts';
import { withHost, type Harness } from '../integration/harness.ts';
import { devices, discoverAll } from '../integration/host/helpers.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';
import { until } from '../until.ts';
import { snrFloorDb } from '../../src/sim/air.ts';

type Page = BrowserHandle['page'];

interface NetRow {
  id: number;
  name: string;
  state: string;
  gateway_mac: string | null;
  rf: RfConfig | null;
  device_count: number;
}

const CH1 = findChannel('EU868', 1)!.rf;
const CH3 = findChannel('EU868', 3)!.rf;
const CH4 = findChannel('EU868', 4)!.rf;

const nets = async (h: Harness): Promise<NetRow[]> =>
  (await h.get<{ networks: NetRow[] }>('/api/networks')).body.networks;

/** The Networks dialog, from Settings (there with one gateway too). */
async function openNetworks(page: Page) {
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByTestId('networks-open').click();
  const dialog = page.locator('dialog[open][data-testid=networks-dialog]');
  await dialog.waitFor();
  return dialog;
}

/** The driver of the gateway with this MAC (someone retuning the board). */
function driverOf(h: Harness, mac: string): GatewayDriver {
  const radio = h.host.services.driver as Radio;
  const g = radio.gateways.find((x) => x.driver.readiness().gateway_mac?.replace(/:/g, '') === mac);
  if (!g) throw new Error(`no driver for ${mac}`);
  return g.driver;
}

let b: BrowserHandle;
beforeAll(async () => {
  b = await openBrowser({ width: 1280, height: 900 });
});
afterAll(async () => {
  await b?.close();
});
beforeEach(async () => {
  await b.page.goto('about:blank');
  b.errors.length = 0;
  b.errorToasts.length = 0;
});

describe('the Networks dialog actions', () => {
  it('creates-renames-and-deletes-a-network-showing-the-hosts-refusals', async () => {
    await withHost({ nodes: 2, seed: 3 }, async (h) => {
      await discoverAll(h);
      const page = b.page;
      await page.goto(h.url + '/');
      const dialog = await openNetworks(page);

      // New network: channel 1 is Network 1's, greyed and named; a taken name is refused.
      await dialog.getByRole('button', { name: 'New network…' }).click();
      const create = page.locator('dialog[open][data-testid=network-create]');
      await create.waitFor();
      const ch1 = create.getByTestId('channel-1');
      await ch1.getByText('used by Network 1').waitFor();
      expect(await ch1.getByRole('radio').isDisabled()).toBe(true);
      await create.getByLabel('Name').fill('Network 1');
      await create.getByTestId('channel-3').getByRole('radio').check();
      await create.getByRole('button', { name: 'Create' }).click();
      const refusal = create.getByTestId('network-error');
      await refusal.waitFor();
      expect(await refusal.textContent()).toMatch(/name/i);
      await create.getByLabel('Name').fill('Track B');
      await create.getByRole('button', { name: 'Create' }).click();
      await create.waitFor({ state: 'detached' });
      const created = await until('the new network', async () =>
        (await nets(h)).find((n) => n.name === 'Track B'),
      );
      expect(created.rf).toEqual(CH3);
      const card = dialog.getByTestId(`network-card-${created.id}`);
      await card.getByText('Track B', { exact: true }).waitFor();
      await card.getByTestId('network-channel').getByText(describeRf(CH3)).waitFor();
      await card.getByTestId('network-state').getByText('NO GATEWAY').waitFor();

      // Rename.
      await card.getByRole('button', { name: 'Rename' }).click();
      await card.getByLabel('New name').fill('Track C');
      await card.getByRole('button', { name: 'Save' }).click();
      await card.getByText('Track C', { exact: true }).waitFor();
      expect((await nets(h)).find((n) => n.id === created.id)?.name).toBe('Track C');

      // Network 1 has devices and a gateway: Delete is not offered, the reason is shown (and
      // is the button's tooltip); the host still refuses on its own.
      const one = dialog.getByTestId('network-card-1');
      const del1 = one.getByRole('button', { name: 'Delete' });
      expect(await del1.isDisabled()).toBe(true);
      const count = (await nets(h)).find((n) => n.id === 1)!.device_count;
      expect(count).toBeGreaterThan(0);
      const them = count === 1 ? 'it' : 'them';
      const reason = `Forget its ${count} device${count === 1 ? '' : 's'} first (Devices → tick ${them} → Forget…), or let another network's gateway discover ${them}, then Release gateway…`;
      expect(await one.getByTestId('network-delete-why').textContent()).toBe(reason);
      expect(await del1.getAttribute('title')).toBe(reason);
      const refused = await fetch(`${h.url}/api/networks/1`, { method: 'DELETE' });
      expect(refused.status).toBe(409);
      expect(((await refused.json()) as { error: string }).error).toMatch(
        /still has \d+ device\(s\): forget them \(Devices → tick them → Forget…, or POST \/api\/devices\/forget\).*, then release its gateway [0-9A-F]{12} \(Release gateway… on its card, or POST \/api\/gateways\/[0-9A-F]{12}\/release\)/,
      );
      // The empty one offers it, with no reason shown.
      expect(await card.getByRole('button', { name: 'Delete' }).isDisabled()).toBe(false);
      expect(await card.getByTestId('network-delete-why').count()).toBe(0);

      // The empty one goes.
      await card.getByRole('button', { name: 'Delete' }).click();
      await page.locator('dialog[open][data-testid=confirm]').getByRole('button', { name: 'Delete' }).click();
      await card.waitFor({ state: 'detached' });
      expect((await nets(h)).map((n) => n.name)).toEqual(['Network 1']);
    });
  }, 120_000);

  it('releases-a-networks-gateway-from-its-card-so-the-delete-hint-leads-somewhere', async () => {
    await withHost({ nodes: 0, seed: 5, simGateways: 2 }, async (h) => {
      const two = (await nets(h))[1]!;
      const mac = two.gateway_mac!;
      const page = b.page;
      await page.goto(h.url + '/');
      const dialog = await openNetworks(page);
      const card = dialog.getByTestId(`network-card-${two.id}`);
      await card.getByTestId('network-state').getByText('IDLE').waitFor();
      // The hint names the button that does the step, and the button is there.
      expect(await card.getByTestId('network-delete-why').textContent()).toBe(
        'Release its gateway first (Release gateway…)',
      );
      expect(await card.getByRole('button', { name: 'Delete' }).isDisabled()).toBe(true);
      const hostRefusal = await fetch(`${h.url}/api/networks/${two.id}`, { method: 'DELETE' });
      expect(hostRefusal.status).toBe(409);
      expect(((await hostRefusal.json()) as { error: string }).error).toContain(
        `release it first (Release gateway… on its card, or POST /api/gateways/${mac}/release)`,
      );

      // The confirm says what happens; cancelling changes nothing.
      await card.getByRole('button', { name: 'Release gateway…' }).click();
      const confirm = page.locator('dialog[open][data-testid=confirm]');
      await confirm.waitFor();
      const body = (await confirm.textContent()) ?? '';
      const shown = mac.match(/.{2}/g)!.join(':');
      expect(body).toContain(shown);
      expect(body).toMatch(/becomes a spare/);
      expect(body).toMatch(/keeps its 0 devices, their groups and its channel/);
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await confirm.waitFor({ state: 'detached' });
      expect((await nets(h))[1]!.gateway_mac).toBe(mac);

      await card.getByRole('button', { name: 'Release gateway…' }).click();
      await confirm.getByRole('button', { name: 'Release gateway' }).click();
      await card.getByTestId('network-state').getByText('NO GATEWAY').waitFor();
      await dialog.getByTestId('unassigned-gateway').getByText(shown, { exact: false }).first().waitFor();
      const after = (await nets(h)).find((n) => n.id === two.id)!;
      expect(after.gateway_mac).toBeNull();
      expect(after.rf).toEqual(two.rf);
      // Nothing left to release: the button is gone, Delete is offered.
      expect(await card.getByRole('button', { name: 'Release gateway…' }).count()).toBe(0);
      expect(await card.getByRole('button', { name: 'Delete' }).isDisabled()).toBe(false);
      expect(await card.getByTestId('network-delete-why').count()).toBe(0);
    });
  }, 120_000);

  it('assigns-a-gateway-in-no-network-as-a-replacement-then-as-a-new-network', async () => {
    await withHost({ nodes: 0, seed: 4, simGateways: 2 }, async (h) => {
      const two = (await nets(h))[1]!;
      const mac = two.gateway_mac!;
      expect((await h.post(`/api/gateways/${mac}/release`)).status).toBe(200);
      const page = b.page;
      await page.goto(h.url + '/');
      const dialog = await openNetworks(page);

      // As a new network while Network 2 still claims its channel: the host refuses, naming both.
      const free = dialog.getByTestId('unassigned-gateway');
      await free.getByRole('button', { name: 'Assign…' }).click();
      await free.getByLabel('Name').fill('Track X');
      await free.getByRole('button', { name: 'Assign' }).click();
      const refusal = free.getByTestId('assign-error');
      await refusal.waitFor();
      expect(await refusal.textContent()).toMatch(/Track X.*Network 2|Network 2.*Track X/);

      // The replacement of Network 2 (which lost its gateway): its pinned nodes first.
      await free.getByRole('radio', { name: /replacement/ }).check();
      await free.getByLabel('Network to replace the gateway of').selectOption({ value: '2' });
      await free.getByTestId('pinned-none').waitFor();
      await free.getByRole('button', { name: 'Assign' }).click();
      await dialog.getByTestId('unassigned-gateway').waitFor({ state: 'detached' });
      await until('network 2 served again', async () => {
        const n = (await nets(h)).find((x) => x.id === 2);
        return n?.gateway_mac === mac && n.state === 'ready';
      });

      // Released again, Network 2 deleted from the dialog, the gateway becomes a new network.
      expect((await h.post(`/api/gateways/${mac}/release`)).status).toBe(200);
      const card2 = dialog.getByTestId('network-card-2');
      await card2.getByTestId('network-state').getByText('NO GATEWAY').waitFor();
      await card2.getByRole('button', { name: 'Delete' }).click();
      await page.locator('dialog[open][data-testid=confirm]').getByRole('button', { name: 'Delete' }).click();
      await card2.waitFor({ state: 'detached' });
      const free2 = dialog.getByTestId('unassigned-gateway');
      await free2.getByRole('button', { name: 'Assign…' }).click();
      await free2.getByLabel('Name').fill('Track B');
      await free2.getByRole('button', { name: 'Assign' }).click();
      const made = await until('the new network with its gateway', async () =>
        (await nets(h)).find((n) => n.name === 'Track B' && n.gateway_mac === mac && n.state === 'ready'),
      );
      // It kept the channel the gateway is on.
      expect(made.rf).toEqual(two.rf);
      await dialog.getByTestId(`network-card-${made.id}`).getByText('Track B', { exact: true }).waitFor();
      await dialog.getByTestId('unassigned-gateway').waitFor({ state: 'detached' });
    });
  }, 120_000);

  it('lists-pinned-nodes-before-a-swap-and-unpins-them-with-one-click', async () => {
    await withHost({ nodes: 3, seed: 13 }, async (h) => {
      const rows = await discoverAll(h, { newGroupName: 'Gates' });
      const [a, c] = [rows[0]!, rows[1]!];
      const sim = h.host.sim!;
      // Pinned on their own settings pages; a status poll reports it.
      sim.fleet.faults.masterPersistence(true, a.addr);
      sim.fleet.faults.masterPersistence(true, c.addr);
      const st = await h.post<{ task: TaskSnapshot }>('/api/status', {});
      await h.waitTask(st.body.task.id);
      const page = b.page;
      await page.goto(h.url + '/');
      const dialog = await openNetworks(page);
      const card = dialog.getByTestId('network-card-1');
      await card.getByRole('button', { name: 'Pinned nodes' }).click();
      const list = card.getByTestId('pinned-1');
      await list.getByText(/2 nodes of Network 1 are pinned/).waitFor();
      await list.getByTestId(`pinned-row-${a.addr}`).getByRole('button', { name: 'Unpin' }).click();
      await list.getByTestId(`pinned-row-${a.addr}`).waitFor({ state: 'detached' });
      await list.getByText(/1 node of Network 1 is pinned/).waitFor();
      const left = (await h.get<{ pinned: { addr: string }[] }>('/api/networks/1/pinned')).body.pinned;
      expect(left.map((p) => p.addr)).toEqual([c.addr]);
      expect(sim.fleet.node(a.addr)!.configByte & 0x02).toBe(0);
      expect(b.errors).toEqual([]);
    });
  }, 120_000);

  it('shows-a-conflict-with-its-fields-and-three-resolutions-and-retunes-the-gateway', async () => {
    await withHost({ nodes: 2, seed: 5, simGateways: 2 }, async (h) => {
      await discoverAll(h);
      const two = (await nets(h))[1]!;
      const recorded = two.rf!;
      const page = b.page;
      await page.goto(h.url + '/');
      const dialog = await openNetworks(page);
      // Someone retunes Network 2's board.
      expect((await driverOf(h, two.gateway_mac!).setGatewayRf(CH4, true)).ok).toBe(true);
      const card = dialog.getByTestId('network-card-2');
      await card.getByTestId('network-state').getByText('CONFLICT').waitFor({ timeout: 60_000 });
      const panel = card.getByTestId('conflict-panel');
      const freq = panel.locator('[data-field=freqHz]');
      await freq.getByText(`${(recorded.freqHz / 1e6).toFixed(3)} MHz`).waitFor();
      await freq.getByText(`${(CH4.freqHz / 1e6).toFixed(3)} MHz`).waitFor();
      for (const name of ['Retune the gateway', 'Move the nodes…', "Adopt the gateway's settings…"])
        await panel.getByRole('button', { name }).waitFor();
      await b.shot('networks-conflict');
      // On a phone the card, its table and its buttons stay inside the window.
      await page.setViewportSize({ width: 390, height: 844 });
      await panel.getByRole('button', { name: 'Retune the gateway' }).scrollIntoViewIfNeeded();
      await b.shot('networks-conflict-390');
      expect(
        await page.evaluate<number>('document.documentElement.scrollWidth - innerWidth'),
      ).toBeLessThanOrEqual(0);
      const over = await page.evaluate<number>(
        `(() => { const d = document.querySelector('dialog[open][data-testid=networks-dialog] .modal-body'); return d ? d.scrollWidth - d.clientWidth : 0; })()`,
      );
      expect(over, 'the Networks dialog scrolls sideways at 390 px').toBeLessThanOrEqual(0);
      await page.setViewportSize({ width: 1280, height: 900 });

      // Adopt warns that it strands the nodes; cancelled, nothing changes.
      await panel.getByRole('button', { name: "Adopt the gateway's settings…" }).click();
      const confirm = page.locator('dialog[open][data-testid=confirm]');
      await confirm.getByText(/stranded/).waitFor();
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      expect((await nets(h))[1]!.rf).toEqual(recorded);

      // Retune: the gateway goes back to the network's channel, the conflict is gone.
      await panel.getByRole('button', { name: 'Retune the gateway' }).click();
      await panel.waitFor({ state: 'detached', timeout: 60_000 });
      // The toast says what is known: the gateway is retuned; the devices show as they answer.
      const note = page.getByTestId('toasts').getByText(/^Gateway of Network 2 retuned to EU868 ch \d/);
      await note.waitFor();
      expect(await note.textContent()).toMatch(/show online as they answer there; any that stay offline/);
      expect(await page.getByTestId('toasts').textContent()).not.toMatch(/is back on/);
      await b.shot('networks-retuned-toast');
      await page.setViewportSize({ width: 390, height: 844 });
      await b.shot('networks-retuned-toast-390');
      await page.setViewportSize({ width: 1280, height: 900 });
      const after = (await nets(h))[1]!;
      expect(after.state).toBe('ready');
      expect(sameRf(driverOf(h, two.gateway_mac!).radioSettings().rf, recorded)).toBe(true);
      await card.getByTestId('network-state').getByText('CONFLICT').waitFor({ state: 'detached' });
      expect(b.errors).toEqual([]);
    });
  }, 120_000);

  it('resolves-a-conflict-by-moving-the-nodes-to-the-gateways-channel', async () => {
    await withHost({ nodes: 2, seed: 8, simGateways: 2 }, async (h) => {
      await discoverAll(h, { newGroupName: 'Gates' });
      const two = (await nets(h))[1]!;
      const page = b.page;
      await page.goto(h.url + '/');
      const dialog = await openNetworks(page);
      expect((await driverOf(h, two.gateway_mac!).setGatewayRf(CH4, true)).ok).toBe(true);
      const card = dialog.getByTestId('network-card-2');
      const panel = card.getByTestId('conflict-panel');
      await panel.getByRole('button', { name: 'Move the nodes…' }).click();
      const move = page.locator('dialog[open][data-testid=network-move]');
      await move.getByTestId('move-target').getByText(describeRf(CH4)).waitFor();
      await move.getByRole('button', { name: 'Move', exact: true }).click();
      const result = move.getByTestId('move-result');
      await result.waitFor({ timeout: 150_000 });
      const on2 = (await devices(h)).filter((d) => d.network_id === 2);
      expect(await result.textContent()).toContain(
        `${on2.length} of ${on2.length} device(s) back in their groups`,
      );
      await until("network 2 on the gateway's channel, no conflict", async () => {
        const n = (await nets(h))[1]!;
        return n.state === 'ready' && sameRf(n.rf!, CH4);
      });
      await panel.waitFor({ state: 'detached' });
      expect(b.errors).toEqual([]);
    });
  }, 180_000);

  it('moves-a-network-to-another-channel-from-the-dialog-to-done', async () => {
    await withHost({ nodes: 3, seed: 6 }, async (h) => {
      await discoverAll(h, { newGroupName: 'Gates' });
      const page = b.page;
      await page.goto(h.url + '/');
      const dialog = await openNetworks(page);
      await dialog
        .getByTestId('network-card-1')
        .getByRole('button', { name: 'Move to another channel…' })
        .click();
      const move = page.locator('dialog[open][data-testid=network-move]');
      await move.waitFor();
      await move.getByTestId('move-preview').getByText('3 device(s) will move').waitFor();
      await move
        .getByTestId('move-preview')
        .getByText(/0 device\(s\) with master persistence on/)
        .waitFor();
      // Its own channel is marked, not offered as taken by another.
      await move.getByTestId('channel-1').getByText('this network now').waitFor();
      await move.getByTestId('channel-3').getByRole('radio').check();
      await b.shot('networks-move');
      await move.getByRole('button', { name: 'Move', exact: true }).click();
      // Progress in the dialog while it runs, then the result.
      await move.getByTestId('dialog-task').waitFor();
      const result = move.getByTestId('move-result');
      await result.waitFor({ timeout: 150_000 });
      expect(await result.textContent()).toContain('3 of 3 device(s) back in their groups');
      // After the move the preview's future tense is gone: the result says what happened.
      expect(await move.getByTestId('move-preview').count()).toBe(0);
      expect(await move.getByTestId('move-intro').count()).toBe(0);
      const words = (await move.textContent()) ?? '';
      expect(words).not.toContain('will move');
      expect(words).not.toContain('would stay on the old channel');
      expect(words).toContain(`Moved to ${describeRf(CH3)}`);
      await b.shot('networks-move-done');
      const n = (await nets(h))[0]!;
      expect(n.rf).toEqual(CH3);
      const rows = await devices(h);
      expect(rows.every((d) => d.online && d.groupId === 1)).toBe(true);
      for (const node of h.host.sim!.fleet.nodes) expect(node.snapshot().rf).toEqual(CH3);
      await dialog
        .getByTestId('network-card-1')
        .getByTestId('network-channel')
        .getByText(describeRf(CH3))
        .waitFor();
      expect(b.errors).toEqual([]);
    });
  }, 180_000);

  it('moves-a-network-of-nodes-never-discovered-at-390px-every-node-home-and-no-interrupted-words', async () => {
    // A fresh two-gateway start: every node announced itself and sits in group 0.
    await withHost({ nodes: 4, seed: 1, simGateways: 2 }, async (h) => {
      const sim = h.host.sims.find((s) => s.fleet.gateway.mac.replace(/:/g, '') === '48CA43102030')!;
      const floor = snrFloorDb(7);
      const healthy = sim.fleet.nodes
        .filter((n) => (sim.fleet.air.qualityOf(n.addr)?.snr ?? -99) >= floor + 1.5)
        .map((n) => n.addr);
      await until('the nodes known in group 0', async () => {
        const rows = await devices(h);
        return healthy.every((a) => rows.some((d) => d.addr === a && d.online && d.groupId === 0));
      });
      const page = b.page;
      await page.setViewportSize({ width: 390, height: 844 });
      // Whether the dialog ever called the running move interrupted.
      await page.addInitScript(`
        window.__interrupted = false;
        addEventListener('DOMContentLoaded', () => {
          new MutationObserver(() => {
            const t = document.querySelector('[data-testid=move-target]');
            if (t && /interrupted/.test(t.textContent)) window.__interrupted = true;
          }).observe(document.body, { childList: true, subtree: true, characterData: true });
        });
      `);
      try {
        await page.goto(h.url + '/');
        const dialog = await openNetworks(page);
        await dialog
          .getByTestId('network-card-1')
          .getByRole('button', { name: 'Move to another channel…' })
          .click();
        const move = page.locator('dialog[open][data-testid=network-move]');
        await move.getByTestId('channel-2').getByText('used by Network 2', { exact: false }).waitFor();
        // On a phone a channel's note stays under its own channel's text, not at the row's
        // start where it read as the next channel's label.
        for (const id of [1, 2]) {
          const row = move.getByTestId(`channel-${id}`);
          const text = (await row.locator('strong').boundingBox())!;
          const note = (await row.locator('.muted').boundingBox())!;
          const next = (await move.getByTestId(`channel-${id + 1}`).boundingBox())!;
          expect(note.x, `channel ${id}'s note indented with its text`).toBeGreaterThanOrEqual(text.x - 1);
          expect(note.y + note.height, `channel ${id}'s note above the next channel`).toBeLessThanOrEqual(
            next.y + 1,
          );
        }
        await move.getByTestId('channel-3').getByRole('radio').check();
        await b.shot('networks-move-group0-390');
        await move.getByRole('button', { name: 'Move', exact: true }).click();
        // A quick move can be done before the first look: either word, never the interrupted one.
        await move
          .getByTestId('move-target')
          .getByText(/Moving to|Moved to/)
          .first()
          .waitFor();
        const result = move.getByTestId('move-result');
        await result.waitFor({ timeout: 150_000 });
        const text = (await result.textContent()) ?? '';
        const r = (await h.get<{ task: TaskSnapshot }>('/api/task')).body.task.result as {
          summary: { devices: number; rebound: number };
          stranded: string[];
        };
        for (const a of healthy) expect(r.stranded).not.toContain(a);
        expect(text).toContain(`${r.summary.rebound} of ${r.summary.devices} device(s) back`);
        expect(r.summary.rebound).toBeGreaterThanOrEqual(healthy.length);
        await move.getByTestId('move-target').getByText('Moved to', { exact: false }).waitFor();
        expect(await page.evaluate('window.__interrupted'), 'the running move was called interrupted').toBe(
          false,
        );
        await b.shot('networks-move-group0-done-390');
        expect(b.errors).toEqual([]);
      } finally {
        await page.setViewportSize({ width: 1280, height: 900 });
      }
    });
  }, 240_000);

  it('after-a-move-that-left-nodes-behind-the-scan-it-asks-for-is-the-default', async () => {
    await withHost({ nodes: 3, seed: 6 }, async (h) => {
      const page = b.page;
      await page.addInitScript(`
        const Real = window.EventSource;
        window.EventSource = class extends Real {
          constructor(...a) { super(...a); window.__stream = this; }
        };
      `);
      await page.goto(h.url + '/');
      await page.getByTestId('gateway-pill').waitFor();
      const lost = h.host.sim!.fleet.nodes[0]!.addr;
      // The last task as the stream announces it: this network's move, one node left behind.
      const moveEnd = {
        id: 99,
        name: 'rf_migration',
        state: 'done',
        meta: { network_id: 1, stage: 'rebind' },
        result: {
          network_id: 1,
          from: { rf: CH1, channel: describeRf(CH1) },
          to: { rf: CH3, channel: describeRf(CH3) },
          summary: { devices: 3, rebound: 2, not_moved: 0, skipped_offline: 0, stranded: 1 },
          stranded: [lost],
          not_moved: [],
          skipped_offline: [],
          hint: 'nodes left behind: scan both channels',
        },
        last_error: null,
      };
      await page.evaluate(
        `window.__stream.dispatchEvent(new MessageEvent('task', { data: ${JSON.stringify(JSON.stringify(moveEnd))} }))`,
      );
      const dialog = await openNetworks(page);
      await dialog.getByTestId('network-card-1').getByRole('button', { name: 'Scan channels…' }).click();
      const scan = page.locator('dialog[open][data-testid=channel-scan]');
      const ask = scan.getByTestId('scan-after-move');
      await ask
        .getByText(`${describeRf(CH1)} (old channel) and ${describeRf(CH3)} (new channel)`, { exact: false })
        .waitFor();
      expect(await ask.getByRole('checkbox').isChecked()).toBe(true);
      const sent = page.waitForRequest((r) => r.url().endsWith('/api/networks/1/channel-scan'));
      await scan.getByRole('button', { name: 'Scan', exact: true }).click();
      expect((await sent).postDataJSON()).toEqual({
        region: 'EU868',
        channel_ids: [1, 3],
        include_home: true,
        seek: [lost],
      });
      await scan.getByTestId('scan-result').waitFor({ timeout: 120_000 });
      expect(b.errors).toEqual([]);
    });
  }, 180_000);

  it('scans-channels-finds-a-stranded-node-and-brings-it-home-into-its-group', async () => {
    await withHost({ nodes: 4, seed: 11 }, async (h) => {
      const rows = await discoverAll(h, { newGroupName: 'Gates' });
      const lost = rows[1]!.addr;
      h.host.sim!.fleet.faults.retuneNode(lost, CH4);
      // The host notices it is gone (a status poll), as an operator would.
      await until(
        'the stranded node offline',
        async () => {
          const st = await h.post<{ task: TaskSnapshot }>('/api/status', {});
          if (st.status === 200) await h.waitTask(st.body.task.id);
          return (await devices(h)).find((d) => d.addr === lost)?.online === false;
        },
        120_000,
      );
      const page = b.page;
      await page.goto(h.url + '/');
      const dialog = await openNetworks(page);
      await dialog.getByTestId('network-card-1').getByRole('button', { name: 'Scan channels…' }).click();
      const scan = page.locator('dialog[open][data-testid=channel-scan]');
      await scan.waitFor();
      await scan.getByRole('button', { name: 'Scan', exact: true }).click();
      const result = scan.getByTestId('scan-result');
      await result.waitFor({ timeout: 120_000 });
      // Channel 4 heard the lost node: known, of Network 1, stranded there.
      const row = result.getByTestId('scan-row-EU868-4');
      const heard = row.getByTestId(`heard-${lost}`);
      await heard.getByText('stranded here').waitFor();
      await b.shot('networks-scan-result');
      await scan.getByTestId('scan-cannot-hear').waitFor();
      expect(sameRf(h.host.sim!.fleet.gateway.rf, CH1)).toBe(true);

      await heard.getByRole('button', { name: 'Bring home' }).click();
      const rescued = scan.getByTestId('rescue-result');
      await rescued.getByText(/back in its network and group/).waitFor({ timeout: 120_000 });
      const node = h.host.sim!.fleet.node(lost)!.snapshot();
      expect(node.rf).toEqual(CH1);
      expect(node.groupId).toBe(1);
      await until('the node back online in its group', async () => {
        const d = (await devices(h)).find((x) => x.addr === lost);
        return d?.online && d.groupId === 1;
      });
      expect(b.errors).toEqual([]);
    });
  }, 240_000);
});
