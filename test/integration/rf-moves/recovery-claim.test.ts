/**
 * The recovery's claim (used by an RF migration's targeted rebind): claimed nodes stay
 * rejoining but the sweep sends them nothing until the claim is released; then it restores
 * them as usual.
 */
import { describe, expect, it } from 'vitest';
import { withHost } from '../harness.ts';
import { discoverAll, simAddrs } from '../host/helpers.ts';

describe('recovery claim', () => {
  it('the sweep leaves claimed nodes alone and takes them over on release', async () => {
    await withHost({ nodes: 6, seed: 5 }, async (h) => {
      await discoverAll(h, { newGroupName: 'Track' });
      const { recovery, clock } = h.host.services;
      const fleet = h.host.sim!.fleet;
      const addrs = simAddrs(h);
      let setGroups = 0;
      const off = fleet.gateway.events.on('m2n', (f) => {
        if ((f.typeFull & 0x7f) === 0x02 && f.outcome === 'tx') setGroups++;
      });
      try {
        const release = recovery.claim(addrs);
        expect(recovery.add(addrs, 'manual', { settle: false }).sort()).toEqual([...addrs].sort());
        await clock.sleep(5000);
        expect(setGroups).toBe(0);
        expect(addrs.filter((a) => recovery.isRejoining(a)).sort()).toEqual([...addrs].sort());
        release();
        const end = clock.now() + 60_000;
        while (addrs.some((a) => recovery.isRejoining(a)) && clock.now() < end) await clock.sleep(100);
        expect(addrs.filter((a) => recovery.isRejoining(a))).toEqual([]);
        expect(setGroups).toBeGreaterThanOrEqual(addrs.length);
      } finally {
        off();
      }
    });
  }, 240_000);
});
