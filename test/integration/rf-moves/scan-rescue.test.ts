/**
 * Channel scan and rescue on the stepped clock (issue 27): a node moved on its own
 * settings page to another channel is stranded; a 5-channel scan finds it (≤ 16 s), a
 * rescue brings it back into its network and group (≤ 6 s), the gateway always ends on
 * its home channel; meanwhile ordinary traffic fails at once `offchannel`.
 */
import { describe, expect, it } from 'vitest';
import { findChannel, sameRf } from '../../../src/domain/rf-channels.ts';
import type { TaskSnapshot } from '../../../src/tasks/task-manager.ts';
import { withHost, type Harness } from '../harness.ts';
import { until } from '../../until.ts';

const CH1 = findChannel('EU868', 1)!.rf;
const CH4 = findChannel('EU868', 4)!.rf;

interface Row {
  addr: string;
  groupId: number;
  online: boolean;
  group_pending?: boolean;
}

async function fleetInGroup(h: Harness, n: number): Promise<Row[]> {
  const disc = await h.post<{ task: TaskSnapshot }>('/api/discover', { newGroupName: 'Gates' });
  expect(disc.status).toBe(200);
  await h.waitTask(disc.body.task.id);
  return until('every node in group 1', async () => {
    const r = await h.get<{ devices: Row[] }>('/api/devices');
    const rows = r.body.devices;
    return rows.length === n && rows.every((d) => d.groupId === 1 && d.online) ? rows : null;
  });
}

const taskDone = async (h: Harness, res: { status: number; body: { task: TaskSnapshot } }) => {
  expect(res.status).toBe(200);
  const t = await h.waitTask(res.body.task.id, 120_000);
  expect(t.last_error).toBeNull();
  return t;
};

describe('channel scan and rescue', () => {
  it('finds a node stranded on another channel (5 channels) and rescues it into its group', async () => {
    await withHost({ nodes: 6, seed: 11 }, async (h) => {
      const rows = await fleetInGroup(h, 6);
      const lost = rows[2]!.addr;
      const sim = h.host.sim!;
      sim.fleet.faults.retuneNode(lost, CH4);
      // The host notices it is gone (a status poll), as an operator would.
      await until(
        'the stranded node offline',
        async () => {
          const st = await h.post<{ task: TaskSnapshot }>('/api/status', {});
          if (st.status === 200) await h.waitTask(st.body.task.id);
          const r = await h.get<{ devices: Row[] }>('/api/devices');
          const d = r.body.devices.find((x) => x.addr === lost);
          return d && !d.online;
        },
        120_000,
      );

      // Meanwhile, traffic through the leased gateway fails at once, naming the network.
      const scanReq = h.post<{ task: TaskSnapshot }>('/api/networks/1/channel-scan', {
        region: 'EU868',
        include_home: true,
      });
      const scan = await taskDone(h, await scanReq);
      const res = scan.result as {
        channels: { channel_id: number; heard: { addr: string; known: boolean; sought: boolean }[] }[];
        returned_home: boolean;
        summary: { channels: number };
      };
      expect(res.returned_home).toBe(true);
      expect(res.summary.channels).toBe(5);
      const ch4 = res.channels.find((c) => c.channel_id === 4)!;
      expect(ch4.heard.map((x) => x.addr)).toContain(lost);
      expect(ch4.heard.find((x) => x.addr === lost)?.known).toBe(true);
      // The home channel hears the bound nodes? No: bound nodes answer DEVICES from their master.
      expect(sameRf(sim.fleet.gateway.rf, CH1)).toBe(true);
      const dev = (await h.get<{ devices: (Row & { rf_seen?: { rf: unknown } })[] }>('/api/devices')).body
        .devices;
      expect(dev.find((d) => d.addr === lost)?.rf_seen?.rf).toEqual(CH4);

      const resc = await taskDone(
        h,
        await h.post<{ task: TaskSnapshot }>('/api/devices/rescue', {
          addrs: [lost],
          network_id: 1,
          from: { region: 'EU868', channel_id: 4 },
        }),
      );
      const rr = resc.result as {
        nodes: { addr: string; outcome: string; seconds: number }[];
        returned_home: boolean;
      };
      expect(rr.returned_home).toBe(true);
      expect(rr.nodes[0]).toMatchObject({ addr: lost, outcome: 'home' });
      const node = sim.fleet.node(lost)!.snapshot();
      expect(node.rf).toEqual(CH1);
      expect(node.groupId).toBe(1);
      expect(sameRf(sim.fleet.gateway.rf, CH1)).toBe(true);
    });
  }, 180_000);

  it('while a scan holds the gateway, ordinary traffic fails offchannel at once; a cancel brings the gateway home', async () => {
    await withHost({ nodes: 3, seed: 5 }, async (h) => {
      await fleetInGroup(h, 3);
      const scan = await h.post<{ task: TaskSnapshot }>('/api/networks/1/channel-scan', {});
      expect(scan.status).toBe(200);
      const sim = h.host.sim!;
      await until('gateway off its channel', async () => !sameRf(sim.fleet.gateway.rf, CH1));
      const r = await h.host.services.driver.send('FFFFFF', {
        op: 'PRESET',
        groupId: 255,
        flags: 0,
        presetId: 1,
        brightness: 10,
      });
      expect(r).toMatchObject({ ok: false, reason: 'offchannel' });
      expect(r.ok ? '' : r.detail).toContain('Network 1');
      // A scene meanwhile: each action is degraded with the lease's text, nothing stops it.
      const scene = await h.post<{
        result: {
          ok: boolean;
          aborted_at_index?: number;
          actions: { state: string; error: string | null }[];
        };
      }>('/api/scenes/during-scan/run', {
        stop_on_error: true,
        actions: [
          { kind: 'native_effect', target: { kind: 'broadcast' }, params: { mode: 1, brightness: 44 } },
          { kind: 'native_effect', target: { kind: 'broadcast' }, params: { mode: 1, brightness: 55 } },
        ],
      });
      const lease = 'offchannel: the gateway of Network 1 is scanning channels (task channel_scan)';
      expect(scene.body.result.aborted_at_index).toBeUndefined();
      expect(scene.body.result.actions).toEqual([
        expect.objectContaining({ state: 'degraded', error: lease, frames_sent: 0 }),
        expect.objectContaining({ state: 'degraded', error: lease, frames_sent: 0 }),
      ]);
      const busy = await h.post('/api/networks/1/channel-scan', {});
      expect(busy.status).toBe(409);
      await h.post('/api/task/cancel', {});
      const t = await h.waitTask(scan.body.task.id);
      expect(t.last_error).toBe('cancelled');
      expect(sameRf(sim.fleet.gateway.rf, CH1)).toBe(true);
      const after = await h.host.services.driver.send('FFFFFF', {
        op: 'PRESET',
        groupId: 255,
        flags: 0,
        presetId: 1,
        brightness: 10,
      });
      expect(after.ok).toBe(true);
    });
  }, 120_000);

  it('Blackout during a scan waits for the gateway to come home and then goes out', async () => {
    await withHost({ nodes: 3, seed: 6 }, async (h) => {
      await fleetInGroup(h, 3);
      const scan = await h.post<{ task: TaskSnapshot }>('/api/networks/1/channel-scan', {});
      const sim = h.host.sim!;
      await until('gateway off its channel', async () => !sameRf(sim.fleet.gateway.rf, CH1));
      const b = await h.post<{ ok: boolean }>('/api/blackout', {});
      expect(b.status).toBe(200);
      expect(b.body.ok).toBe(true);
      await h.waitTask(scan.body.task.id);
      expect(sameRf(sim.fleet.gateway.rf, CH1)).toBe(true);
    });
  }, 120_000);

  it('bad input: 400 naming the field; unknown network 404', async () => {
    await withHost({ nodes: 1, seed: 5 }, async (h) => {
      expect(
        (await h.post<{ error: string }>('/api/networks/1/channel-scan', { channel_ids: [9] })).body.error,
      ).toMatch(/^channel_ids/);
      expect(
        (await h.post<{ error: string }>('/api/networks/1/migrate', { region: 'EU868' })).body.error,
      ).toMatch(/^channel_id/);
      const far = await h.post<{ error: string }>('/api/networks/1/migrate', {
        rf: { ...CH1, freqHz: 950_000_000 },
      });
      expect(far.status).toBe(400);
      expect(far.body.error).toMatch(/^rf\.freqHz/);
      const same = await h.post<{ error: string }>('/api/networks/1/migrate', {
        region: 'EU868',
        channel_id: 1,
      });
      expect(same.status).toBe(400);
      expect(same.body.error).toMatch(/already/);
      expect((await h.post('/api/networks/9/channel-scan', {})).status).toBe(404);
      const r = await h.post<{ error: string }>('/api/devices/rescue', {
        addrs: [],
        network_id: 1,
        from: { channel_id: 2 },
      });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatch(/^addrs/);
      expect((await h.get<{ pinned: unknown[] }>('/api/networks/1/pinned')).body.pinned).toEqual([]);
    });
  }, 60_000);
});
