/**
 * The simulator's memory: what a power cycle keeps (flash) comes back on the same boards,
 * what it does not (RAM: group, live master without persistence, a volatile retune) does not.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScaledClock } from '../../../src/clock.ts';
import { silentLogger } from '../../../src/logger.ts';
import { DEFAULT_RF } from '../../../src/protocol/types.ts';
import { createFleet, type SimFleet } from '../../../src/sim/fleet.ts';
import { applyMemory, captureFleets, openSimMemory, SIM_MEMORY_FILE } from '../../../src/sim/memory.ts';

const CH4 = { ...DEFAULT_RF, freqHz: 869_200_000 };
const fleet = (): SimFleet => createFleet({ nodes: 3, seed: 11, clock: new ScaledClock(1) });

describe('simulator memory', () => {
  it('puts back each board its own flash image, and no RAM state', () => {
    const a = fleet();
    const [n0, n1] = a.nodes;
    n0!.editOption(0x05, [30, 0, 0, 0]);
    n0!.groupId = 7;
    n0!.master = a.gateway.addr;
    n0!.setMasterPersistence(true);
    n1!.retune(CH4);
    a.stop();

    const b = fleet();
    expect(applyMemory([b], captureFleets([a]))).toEqual({ gateways: 1, nodes: 3 });
    const [m0, m1, m2] = b.nodes;
    expect(m0!.overrides.fps).toBe(30);
    expect(m0!.snapshot().persisted).toMatchObject({ macFilterPersist: true, master: a.gateway.addr });
    // Booting restores a persisted master; the group is RAM (0 after every boot).
    expect(m0!.master).toBe(a.gateway.addr);
    expect(m0!.groupId).toBe(0);
    expect(m1!.snapshot().persisted.rf).toEqual(CH4);
    expect(m2!.snapshot().persisted.rf).toEqual(DEFAULT_RF);
  });

  it('follows flash writes to the file and ignores a file of other boards', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lightnet-simmem-unit-'));
    try {
      const a = fleet();
      const mem = await openSimMemory(dir, [a], silentLogger());
      a.nodes[2]!.retune(CH4);
      await mem.close();
      a.stop();
      const saved = JSON.parse(await readFile(join(dir, SIM_MEMORY_FILE), 'utf8')) as {
        nodes: Record<string, { rf: unknown }>;
      };
      expect(saved.nodes[a.nodes[2]!.mac]!.rf).toEqual(CH4);

      const b = fleet();
      await (await openSimMemory(dir, [b], silentLogger())).close();
      expect(b.nodes[2]!.snapshot().persisted.rf).toEqual(CH4);
      // Another seed: other MACs, nothing matches, a fresh fleet.
      const other = createFleet({ nodes: 3, seed: 99, clock: new ScaledClock(1) });
      expect(applyMemory([other], captureFleets([a])).nodes).toBe(0);
      expect(other.nodes.every((n) => n.snapshot().persisted.rf.freqHz === DEFAULT_RF.freqHz)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
