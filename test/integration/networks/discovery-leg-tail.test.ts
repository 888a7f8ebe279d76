/**
 * Discovery's tail with several networks (devices/discovery/rounds.ts, "Several networks"): a found
 * node whose SET_GROUPs are never acknowledged gets its tries beside the next DEVICES
 * rounds (not before them), and a leg of more than 16 nodes goes on until it had its
 * minimum of tries; the other network is unaffected. Stepped clock (the harness's default).
 */
import { describe, expect, it } from 'vitest';
import { decodeLoraPacket } from '../../../src/protocol/packets.ts';
import { OPC } from '../../../src/protocol/types.ts';
import { snrFloorDb } from '../../../src/sim/air.ts';
import {
  LEG_ATTEMPT_TIMEOUT_MS,
  PIPELINE_ATTEMPT_TIMEOUT_MS,
} from '../../../src/services/devices/radio/unicast-pipeline.ts';
import type { SimOnMemory } from '../../../src/sim/sim-host.ts';
import { withHost } from '../harness.ts';
import { devices, runTask } from '../host/helpers.ts';

const LONG = 240_000;
/** discovery/rounds.ts LEG_MIN_TRIES. */
const LEG_MIN_TRIES = 20;
/** A leg's per-try reply window: a serial round would wait this long after a try. */
const TRY_WINDOW_MS = LEG_ATTEMPT_TIMEOUT_MS;

const healthy = (s: SimOnMemory): string[] =>
  s.fleet.nodes
    .filter((n) => (s.fleet.air.qualityOf(n.addr)?.snr ?? -99) >= snrFloorDb(7) + 1.5)
    .map((n) => n.addr);

describe('discovery tail per network', () => {
  it(
    'an-unacknowledging-node-gets-its-tries-beside-the-rounds-and-its-minimum-of-tries',
    { timeout: LONG },
    async () => {
      await withHost({ nodes: 20, seed: 5, simGateways: 2 }, async (h) => {
        const [a, b] = h.host.sims as [SimOnMemory, SimOnMemory];
        const victim = healthy(a)[0];
        expect(victim).toBeDefined();
        // The node acts on SET_GROUP but its ACKs never go out: the host cannot bind it.
        a.fleet.faults.nodeAcksLost(victim as string, true);
        const gw = a.fleet.gateway.addr;
        const setGroups: number[] = [];
        const devicesRounds: number[] = [];
        const off = a.fleet.air.events.on('tx', (e) => {
          if (e.sender !== gw) return;
          const p = decodeLoraPacket(e.bytes);
          if (!p) return;
          const op = p.typeFull & 0x7f;
          if (op === OPC.SET_GROUP && p.receiver === victim) setGroups.push(e.start);
          if (op === OPC.DEVICES) devicesRounds.push(e.start);
        });
        const t = await runTask(h, '/api/discover', { newGroupName: 'Track' });
        off();
        expect(t.state, t.last_error ?? '').toBe('done');
        // Found, never acknowledged: reported as such, and it had at least its minimum of tries.
        expect((t.result as { assign_failed: number }).assign_failed).toBeGreaterThanOrEqual(1);
        expect(setGroups.length).toBeGreaterThanOrEqual(LEG_MIN_TRIES);
        // Beside the rounds: some DEVICES round went out while a try was still waiting for its
        // ACK (a serial round waits out each try's window first).
        const beside = devicesRounds.some((d) => setGroups.some((s) => d > s && d - s < TRY_WINDOW_MS));
        expect(beside).toBe(true);
        // Everyone else is bound, on both networks.
        const rows = await devices(h);
        expect(rows.find((r) => r.addr === victim)?.online).toBe(false);
        for (const addr of [...healthy(a), ...healthy(b)].filter((x) => x !== victim)) {
          expect(rows.find((r) => r.addr === addr)?.online, addr).toBe(true);
        }
      });
    },
  );

  it('a-cancel-reaches-both-legs-and-their-retries-beside-the-rounds', { timeout: LONG }, async () => {
    await withHost({ nodes: 20, seed: 5, simGateways: 2 }, async (h) => {
      const [a] = h.host.sims as [SimOnMemory, SimOnMemory];
      const { clock } = h.host.services;
      const victim = healthy(a)[0] as string;
      a.fleet.faults.nodeAcksLost(victim, true);
      const gw = a.fleet.gateway.addr;
      let tries = 0;
      let afterEnd = 0;
      let ended = false;
      const off = a.fleet.air.events.on('tx', (e) => {
        const p = e.sender === gw ? decodeLoraPacket(e.bytes) : null;
        if (!p || (p.typeFull & 0x7f) !== OPC.SET_GROUP || p.receiver !== victim) return;
        tries++;
        if (ended) afterEnd++;
      });
      const start = await h.post<{ task: { id: number } }>('/api/discover', { newGroupName: 'Track' });
      // Cancel while the victim's tries run beside the rounds (some tries in, fewer than owed).
      while (tries < 8) await clock.sleep(50);
      expect((await h.post('/api/task/cancel')).body).toMatchObject({ ok: true, cancelled: true });
      const t = await h.waitTask(start.body.task.id);
      ended = true;
      expect(t).toMatchObject({ state: 'error', last_error: 'cancelled' });
      // Nothing of the cancelled task goes on after it ended.
      await clock.sleep(5000);
      off();
      expect(afterEnd).toBe(0);
    });
  });

  it(
    'a-leg-past-16-nodes-binds-4-at-a-time-and-waits-the-legs-shorter-window-per-try',
    { timeout: LONG },
    async () => {
      await withHost({ nodes: 20, seed: 5, simGateways: 2 }, async (h) => {
        const [a] = h.host.sims as [SimOnMemory, SimOnMemory];
        const victim = healthy(a)[0] as string;
        a.fleet.faults.nodeAcksLost(victim, true);
        const gw = a.fleet.gateway.addr;
        const frames: { start: number; end: number; to: string }[] = [];
        const off = a.fleet.air.events.on('tx', (e) => {
          const p = e.sender === gw ? decodeLoraPacket(e.bytes) : null;
          if (p && (p.typeFull & 0x7f) === OPC.SET_GROUP)
            frames.push({ start: e.start, end: e.end, to: p.receiver });
        });
        const t = await runTask(h, '/api/discover', { newGroupName: 'Track' });
        off();
        expect(t.state, t.last_error ?? '').toBe('done');
        // Bursts: SET_GROUPs sent back to back (the next one starts right after the last ended).
        let burst = 1;
        let widest = 1;
        for (let i = 1; i < frames.length; i++) {
          const prev = frames[i - 1] as { end: number };
          burst = (frames[i] as { start: number }).start - prev.end < 30 ? burst + 1 : 1;
          widest = Math.max(widest, burst);
        }
        // One gateway's pipeline keeps 3 in flight; a leg that found more than 16 keeps 4.
        expect(widest).toBe(4);
        // The victim's tries follow each other after the leg's window (plus the 100 ms
        // backoff), not after the one-gateway window.
        const tries = frames.filter((f) => f.to === victim).map((f) => f.start);
        const gaps = tries.slice(1).map((x, i) => x - (tries[i] as number));
        expect(Math.min(...gaps)).toBeGreaterThanOrEqual(LEG_ATTEMPT_TIMEOUT_MS);
        expect(Math.min(...gaps)).toBeLessThan(PIPELINE_ATTEMPT_TIMEOUT_MS);
      });
    },
  );
});
