/**
 * A restart of a simulated host is a power cycle of its boards, and the simulator keeps
 * exactly what their flash keeps (wire-protocol §3.3, §7.6, §8.1): a network moved to
 * another channel is still on it after the restart — gateway and nodes — so it is ready
 * there with its devices online, not in CONFLICT with a gateway back on the old channel.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sameRf } from '../../../src/domain/rf-channels.ts';
import { DEFAULT_RF } from '../../../src/protocol/types.ts';
import { SIM_MEMORY_FILE } from '../../../src/sim/memory.ts';
import type { SimOnMemory } from '../../../src/sim/sim-host.ts';
import type { TaskSnapshot } from '../../../src/tasks/task-manager.ts';
import { until } from '../../until.ts';
import { withHost, type Harness } from '../harness.ts';
import { devices, runTask } from '../host/helpers.ts';

interface NetRow {
  id: number;
  state: string;
  gateway_mac: string | null;
  conflict: unknown;
}
type DevRow = { addr: string; network_id: number; online: boolean };

const CH4 = { ...DEFAULT_RF, freqHz: 869_200_000 };
const nets = async (h: Harness): Promise<NetRow[]> =>
  (await h.get<{ networks: NetRow[] }>('/api/networks')).body.networks;

function simOf(h: Harness, mac: string): SimOnMemory {
  const s = h.host.sims.find((x) => x.fleet.gateway.mac.replace(/:/g, '') === mac);
  if (!s) throw new Error(`no sim ${mac}`);
  return s;
}

describe('the simulator remembers its fleet across a restart', () => {
  it('a network moved to ch 4 comes back ready on ch 4 with its devices online', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-simmem-'));
    try {
      let moved: string[] = [];
      await withHost({ nodes: 3, simGateways: 2, dataDir }, async (h) => {
        expect((await runTask(h, '/api/discover', { newGroupName: 'Track' })).state).toBe('done');
        const res = await h.post<{ task: TaskSnapshot }>('/api/networks/2/migrate', {
          region: 'EU868',
          channel_id: 4,
        });
        expect(res.status).toBe(200);
        const t = await h.waitTask(res.body.task.id, 300_000);
        expect(t.last_error).toBeNull();
        const sim = simOf(h, (await nets(h))[1]!.gateway_mac!);
        expect(sameRf(sim.fleet.gateway.storedRf, CH4)).toBe(true);
        moved = ((await devices(h)) as unknown as DevRow[])
          .filter((d) => d.network_id === 2)
          .map((d) => d.addr);
        for (const a of moved) expect(sameRf(sim.fleet.node(a)!.snapshot().rf, CH4)).toBe(true);
      });
      expect(moved.length).toBeGreaterThan(0);

      await withHost({ nodes: 3, simGateways: 2, dataDir }, async (h) => {
        const sim = simOf(h, (await nets(h))[1]!.gateway_mac!);
        // The boards came back on the channel their flash holds.
        expect(sameRf(sim.fleet.gateway.rf, CH4)).toBe(true);
        for (const a of moved) expect(sameRf(sim.fleet.node(a)!.snapshot().persisted.rf, CH4)).toBe(true);
        // The other network never moved.
        const other = h.host.sims.find((s) => s !== sim)!;
        expect(sameRf(other.fleet.gateway.rf, CH4)).toBe(false);
        const n2 = await until('network 2 ready with its devices online', async () => {
          const n = (await nets(h))[1]!;
          const mine = ((await devices(h)) as unknown as DevRow[]).filter((d) => d.network_id === 2);
          const online = mine.filter((d) => d.online).map((d) => d.addr);
          return n.state === 'ready' && moved.every((a) => online.includes(a)) ? n : null;
        });
        expect(n2.conflict ?? null).toBeNull();
        expect(sameRf(h.host.services.store.state.networks[1]!.rf!, CH4)).toBe(true);
      });
      // Written durably in the simulator's folder (here the data folder itself).
      expect(JSON.parse(await readFile(join(dataDir, SIM_MEMORY_FILE), 'utf8'))).toMatchObject({
        version: 1,
      });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 600_000);

  it('an unreadable memory file means a fresh fleet, and is replaced', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-simmem-'));
    try {
      await writeFile(join(dataDir, SIM_MEMORY_FILE), '{"version":1,"gateways":');
      await withHost({ nodes: 2, dataDir }, async (h) => {
        const sim = h.host.sim!;
        expect(sameRf(sim.fleet.gateway.rf, DEFAULT_RF)).toBe(true);
        for (const n of sim.fleet.nodes) expect(sameRf(n.snapshot().persisted.rf, DEFAULT_RF)).toBe(true);
      });
      const saved = JSON.parse(await readFile(join(dataDir, SIM_MEMORY_FILE), 'utf8')) as {
        gateways: Record<string, { rf: unknown }>;
        nodes: Record<string, unknown>;
      };
      expect(Object.keys(saved.nodes)).toHaveLength(2);
      expect(Object.values(saved.gateways)[0]!.rf).toEqual(DEFAULT_RF);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
