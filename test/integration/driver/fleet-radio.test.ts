/**
 * Fleet-scale status poll (services/devices/status/poll.ts) on the stepped clock: the
 * broadcast rounds leave stragglers, and every one of them is asked directly, up to three
 * times. Performance numbers live in bench/fleet.ts; these scenarios pin the behaviour.
 */
import { describe, expect, it } from 'vitest';
import type { StatusTarget } from '../../../src/gateway/types.ts';
import { snrFloorDb } from '../../../src/sim/air.ts';
import type { SimFleet } from '../../../src/sim/fleet.ts';
import { pollFleet } from '../../../src/services/devices/status/poll.ts';
import type { TaskContext } from '../../../src/tasks/task-manager.ts';
import { DEFAULT_RF } from '../../../src/protocol/types.ts';
import { inRange, withDriver } from './harness.ts';

const ctx = (): TaskContext => ({
  signal: new AbortController().signal,
  setMeta() {},
  bumpRx() {},
  checkpoint() {},
});

/** Binds every powered node to the gateway in `group` (what a discovery would have done). */
function bindDirectly(fleet: SimFleet, group: number): StatusTarget[] {
  for (const n of fleet.nodes) {
    n.groupId = group;
    n.master = fleet.gateway.addr;
  }
  return fleet.nodes.map((n) => ({ addr: n.addr, groupId: group }));
}

/** Unicast STATUS requests the gateway put on the air, per receiver, and when the first went. */
function watchUnicastStatus(fleet: SimFleet): { count: Map<string, number>; firstAt: () => number } {
  const count = new Map<string, number>();
  let first = Infinity;
  fleet.air.events.on('tx', (t) => {
    if (t.sender !== fleet.gateway.addr || t.bytes[6] !== 0x03) return;
    const to = Buffer.from(t.bytes.subarray(3, 6)).toString('hex').toUpperCase();
    if (to === 'FFFFFF') return;
    first = Math.min(first, t.start);
    count.set(to, (count.get(to) ?? 0) + 1);
  });
  return { count, firstAt: () => first };
}

describe('status poll at fleet scale', () => {
  it('a-300-node-poll-follows-up-every-straggler-the-rounds-left', async () => {
    await withDriver(
      { nodes: 300, seed: 1, gatewayUp: true, bootWaitMs: 8000 },
      async ({ fleet, driver, clock }) => {
        const targets = bindDirectly(fleet, 1);
        const uni = watchUnicastStatus(fleet);
        const heardAt = new Map<string, number>();
        driver.on('packet', (p) => {
          if (p.reply?.kind === 'STATUS_REPLY' && !heardAt.has(p.packet.sender))
            heardAt.set(p.packet.sender, p.ts);
        });
        const answered = await pollFleet(driver, clock, ctx(), 255, targets, () => {});

        const stragglers = targets.filter((t) => !((heardAt.get(t.addr) ?? Infinity) < uni.firstAt()));
        // The crowd of 300 leaves many behind: far more than the old limit of 32 follow-ups.
        expect(stragglers.length).toBeGreaterThan(60);
        // Every straggler was asked directly, none more than three times.
        expect(stragglers.filter((t) => !uni.count.has(t.addr)).map((t) => t.addr)).toEqual([]);
        expect(Math.max(...uni.count.values())).toBeLessThanOrEqual(3);
        // Nobody with a healthy link is left out.
        const healthy = fleet.nodes.filter(
          (n) => (fleet.air.qualityOf(n.addr)?.snr ?? -99) >= snrFloorDb(7) + 1.5,
        );
        expect(healthy.filter((n) => !answered.has(n.addr)).map((n) => n.addr)).toEqual([]);
      },
    );
  });

  it('a-weak-node-is-retried-before-it-counts-as-silent', async () => {
    const floor = snrFloorDb(7);
    // Node 0 sits at the edge: a packet gets through in one direction 1 time in 6.
    const weak = { rssi: -114, snr: floor - 1 };
    await withDriver(
      { nodes: 8, seed: 3, gatewayUp: true, nodeSpecs: [{ quality: weak }] },
      async ({ fleet, driver, clock }) => {
        const targets = bindDirectly(fleet, 2);
        const weakAddr = fleet.nodes[0]?.addr ?? '';
        const uni = watchUnicastStatus(fleet);
        const answered = await pollFleet(driver, clock, ctx(), 2, targets, () => {});
        // The healthy ones answered the broadcast; only the weak node was asked directly,
        // again after a missed reply (up to three times).
        expect([...uni.count.keys()]).toEqual([weakAddr]);
        const tries = uni.count.get(weakAddr) ?? 0;
        expect(tries).toBeGreaterThanOrEqual(answered.has(weakAddr) ? 1 : 3);
        expect(tries).toBeLessThanOrEqual(3);
        expect(targets.filter((t) => t.addr !== weakAddr && !answered.has(t.addr))).toEqual([]);
      },
    );
  });

  it('a-poll-at-sf12-follows-up-with-reply-windows-from-the-gateway-rf', async () => {
    // 1.2 s per reply on the air: SF7 timing would close every window before the reply.
    await withDriver(
      {
        nodes: 3,
        seed: 86,
        nodeSpecs: inRange(3),
        rf: { ...DEFAULT_RF, sf: 12 },
        bootWaitMs: 20_000,
        driverOptions: { discoveryAnnouncementMaxAgeMs: 0 },
      },
      async ({ fleet, driver, clock }) => {
        const targets = bindDirectly(fleet, 4);
        const [silent, ...live] = fleet.nodes.map((n) => n.addr);
        fleet.faults.silence(silent ?? '');
        const uni = watchUnicastStatus(fleet);
        const answered = await pollFleet(driver, clock, ctx(), 4, targets, () => {});
        expect([...answered].sort()).toEqual([...live].sort());
        // The silent node got its three direct tries; a live node whose broadcast reply
        // collided (a 131 ms CAD at SF12 lets close delays collide) was asked directly too.
        expect(uni.count.get(silent ?? '')).toBe(3);
        expect(Math.max(...uni.count.values())).toBeLessThanOrEqual(3);
      },
    );
  }, 180_000);
});
