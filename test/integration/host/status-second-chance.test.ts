/**
 * A status poll does not call a gate offline for three unlucky exchanges (issue 19: "the
 * first status poll after recovery marks 0 healthy nodes offline"): a device that was
 * answering before the poll gets a second round of tries; a device that is really gone
 * still ends offline, with its reason.
 */
import { describe, expect, it } from 'vitest';
import { OPC } from '../../../src/protocol/types.ts';
import { FOLLOW_UP_ATTEMPTS, SECOND_CHANCE_ATTEMPTS } from '../../../src/services/devices/status/poll.ts';
import type { Harness } from '../harness.ts';
import { withHost } from '../harness.ts';
import { devices, discoverAll, runTask } from './helpers.ts';

/** Counts unicast STATUS frames sent on the air to `addr`; runs `atCount` once at `n`. */
function countStatusFrames(
  h: Harness,
  addr: string,
  n: number,
  atCount: () => void,
): { frames: () => number } {
  let frames = 0;
  h.host.sim?.fleet.gateway.events.on('m2n', (f) => {
    if (f.outcome !== 'tx' || f.receiver !== addr || (f.typeFull & 0x7f) !== OPC.STATUS) return;
    frames++;
    if (frames === n) atCount();
  });
  return { frames: () => frames };
}

describe('status poll: second chance for devices that were answering', () => {
  it('a-gate-that-misses-its-first-tries-but-answers-later-stays-online', async () => {
    await withHost({ nodes: 6, seed: 11 }, async (h) => {
      const [a] = (await discoverAll(h)).map((r) => r.addr) as [string];
      const faults = h.host.sim?.fleet.faults;
      // The gate goes deaf for exactly its first round of tries, then hears again.
      faults?.silence(a);
      const seen = countStatusFrames(h, a, FOLLOW_UP_ATTEMPTS + 1, () => faults?.unsilence(a));
      const poll = await runTask(h, '/api/status', { macs: [a] });
      expect(poll.result).toMatchObject({ updated: 1, offline: 0 });
      expect(seen.frames()).toBeGreaterThan(FOLLOW_UP_ATTEMPTS);
      expect((await devices(h)).find((r) => r.addr === a)).toMatchObject({ online: true, state: 'online' });
    });
  });

  it('the-fleet-poll-gives-a-straggler-that-was-answering-its-second-chance', async () => {
    await withHost({ nodes: 6, seed: 12 }, async (h) => {
      const [a] = (await discoverAll(h)).map((r) => r.addr) as [string];
      const faults = h.host.sim?.fleet.faults;
      faults?.silence(a);
      // Deaf through the broadcast round and its first unicast tries.
      const seen = countStatusFrames(h, a, FOLLOW_UP_ATTEMPTS + 1, () => faults?.unsilence(a));
      const poll = await runTask(h, '/api/status', {});
      expect(poll.state).toBe('done');
      expect(seen.frames()).toBeGreaterThan(FOLLOW_UP_ATTEMPTS);
      // (Other weak links of the seeded fleet may miss the poll; this one must not.)
      expect((await devices(h)).find((r) => r.addr === a)).toMatchObject({ online: true, state: 'online' });
    });
  });

  it('a-gate-that-is-gone-ends-offline-after-both-rounds', async () => {
    await withHost({ nodes: 6, seed: 13 }, async (h) => {
      const [a] = (await discoverAll(h)).map((r) => r.addr) as [string];
      h.host.sim?.fleet.faults.silence(a);
      const seen = countStatusFrames(h, a, 0, () => {});
      const poll = await runTask(h, '/api/status', { macs: [a] });
      expect(poll.result).toMatchObject({ updated: 0, offline: 1 });
      expect(seen.frames()).toBe(FOLLOW_UP_ATTEMPTS + SECOND_CHANCE_ATTEMPTS);
      const row = (await devices(h)).find((r) => r.addr === a);
      expect(row).toMatchObject({ online: false, state: 'offline', offline_reason: 'no reply' });
    });
  });
});
