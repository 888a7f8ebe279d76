import { describe, expect, it } from 'vitest';
import { GatewayTxError } from '../../../src/gateway/errors.ts';
import { loraParamsFromRf, packetAirtimeMs } from '../../../src/protocol/airtime.ts';
import { DEFAULT_RF } from '../../../src/protocol/types.ts';
import type { GatewayReadiness } from '../../../src/gateway/types.ts';
import { fleetAddrs, inRange, withDriver } from './harness.ts';

describe('driver against the simulated fleet', () => {
  it('discovery-finds-every-node', async () => {
    await withDriver({ nodes: 24, seed: 11, nodeSpecs: inRange(24) }, async ({ driver, fleet }) => {
      const seen: string[] = [];
      const found = await driver.discover({ groupId: 0, onReply: (r) => seen.push(r.addr) });
      expect(found.map((f) => f.addr).sort()).toEqual(fleetAddrs(fleet));
      expect(seen.sort()).toEqual(fleetAddrs(fleet));
      for (const f of found) {
        const node = fleet.node(f.addr);
        expect(f.reply.mac.endsWith(f.addr)).toBe(true);
        expect(f.reply.devType).toBe(node?.devType);
        expect(f.reply.groupId).toBe(0);
      }
    });
  });

  it('discovery-without-boot-announcements-still-finds-every-node-by-rounds', async () => {
    await withDriver(
      { nodes: 24, seed: 12, nodeSpecs: inRange(24), driverOptions: { discoveryAnnouncementMaxAgeMs: 0 } },
      async ({ driver, fleet }) => {
        const found = await driver.discover({ groupId: 0 });
        expect(found.map((f) => f.addr).sort()).toEqual(fleetAddrs(fleet));
        expect(found.every((f) => f.source === 'reply')).toBe(true);
      },
    );
  });

  it('discovery-of-a-configured-or-empty-fleet-takes-one-window', async () => {
    await withDriver({ nodes: 6, seed: 13, nodeSpecs: inRange(6) }, async ({ driver, bindAll, clock }) => {
      await bindAll(2);
      const frames = driver.stats().framesSent;
      const t0 = clock.now();
      expect(await driver.discover({ groupId: 0 })).toEqual([]);
      expect(driver.stats().framesSent - frames).toBe(1);
      expect(clock.now() - t0).toBeLessThan(6000);
    });
    await withDriver({ nodes: 0, seed: 14 }, async ({ driver, clock }) => {
      const t0 = clock.now();
      expect(await driver.discover({ groupId: 255 })).toEqual([]);
      expect(driver.stats().framesSent).toBe(1);
      expect(clock.now() - t0).toBeLessThan(6000);
    });
  });

  it('status-marks-silent-nodes-offline: the result lists who answered, silent nodes are missing', async () => {
    await withDriver({ nodes: 8, seed: 21, nodeSpecs: inRange(8) }, async ({ driver, fleet, bindAll }) => {
      const addrs = await bindAll(2);
      expect(addrs).toEqual(fleetAddrs(fleet));
      const silent = [addrs[1], addrs[5]] as string[];
      for (const a of silent) fleet.faults.silence(a);
      const replies = await driver.statusBroadcast({ groupId: 2, expected: addrs.length });
      const answered = replies.map((r) => r.addr).sort();
      expect(answered).toEqual(addrs.filter((a) => !silent.includes(a)));
      // With the target list, the silent ones are also asked directly: still no answer.
      const framesBefore = driver.stats().framesSent;
      const again = await driver.statusBroadcast({
        groupId: 2,
        expected: addrs.length,
        targets: addrs.map((addr) => ({ addr, groupId: 2 })),
      });
      expect(again.map((r) => r.addr).sort()).toEqual(answered);
      expect(driver.stats().framesSent - framesBefore).toBeGreaterThanOrEqual(1 + silent.length);
      for (const r of replies) expect(r.reply.kind).toBe('STATUS_REPLY');
      const one = await driver.statusUnicast(silent[0] as string, 2);
      expect(one).toMatchObject({ ok: false, reason: 'no_reply' });
      fleet.faults.unsilence(silent[0] as string);
      expect(await driver.statusUnicast(silent[0] as string, 2)).toMatchObject({ ok: true });
    });
  });

  it('set-group-survives-packet-loss-by-retrying', async () => {
    await withDriver(
      { nodes: 6, seed: 31, nodeSpecs: inRange(6), driverOptions: { setGroupAttempts: 8 } },
      async ({ driver, fleet, clock }) => {
        const found = await driver.discover({ groupId: 0 });
        expect(found).toHaveLength(6);
        // A node that misses the first SET_GROUP (deaf for 0.7 s) gets it on a retry.
        const [first, ...rest] = found.map((f) => f.addr) as [string, ...string[]];
        fleet.faults.silence(first);
        clock.setTimeout(() => fleet.faults.unsilence(first), 700);
        const before = driver.stats().framesSent;
        expect(await driver.setGroup(first, 4)).toMatchObject({ ok: true, value: { ok: true, status: 0 } });
        expect(driver.stats().framesSent - before).toBeGreaterThanOrEqual(2);
        expect(fleet.node(first)?.groupId).toBe(4);
        // Random loss on every packet in both directions: retries carry every node through.
        fleet.faults.lossRate = 0.2;
        for (const a of rest) {
          expect(await driver.setGroup(a, 4)).toMatchObject({ ok: true, value: { ok: true, status: 0 } });
          expect(fleet.node(a)?.groupId).toBe(4);
        }
      },
    );
  });

  it('config-is-acknowledged and the value reads back', async () => {
    await withDriver({ nodes: 3, seed: 41, nodeSpecs: inRange(3) }, async ({ driver, bindAll }) => {
      const [a] = (await bindAll(1)) as [string];
      const w = await driver.config(a, 0x05, [60, 0, 0, 0]);
      expect(w).toMatchObject({ ok: true, value: { addr: a, ok: true, status: 0 } });
      const r = await driver.getConfig(a, 0x05);
      expect(r).toEqual({ ok: true, value: { addr: a, option: 0x05, data: [60, 0, 0, 0] } });
    });
  });

  it('get-config-of-a-method-option-times-out-cleanly', async () => {
    await withDriver({ nodes: 2, seed: 51, nodeSpecs: inRange(2) }, async ({ driver, bindAll }) => {
      const [a] = (await bindAll(1)) as [string];
      const before = driver.stats();
      const r = await driver.getConfig(a, 0x04);
      expect(r).toMatchObject({ ok: false, reason: 'no_reply' });
      expect(r.ok ? '' : r.detail).toMatch(/GET_CONFIG 0x04 from .*no reply within 1500 ms/);
      const after = driver.diagnostics();
      expect(after.framesSent - before.framesSent).toBe(1);
      expect(after.liveMatchers).toBe(0);
      expect(after.queueDepth).toBe(0);
      // Nothing is left behind: the next request works normally.
      expect(await driver.getConfig(a, 0x09)).toMatchObject({ ok: true, value: { option: 0x09 } });
    });
  });

  it('the-link-drops-mid-poll-and-the-driver-reconnects', async () => {
    await withDriver(
      { nodes: 6, seed: 61, nodeSpecs: inRange(6) },
      async ({ driver, fleet, bindAll, nextReadiness, sleep }) => {
        const addrs = await bindAll(3);
        const events: GatewayReadiness[] = [];
        driver.on('readiness', (r) => events.push(r));
        const poll = driver.statusBroadcast({ groupId: 3, expected: addrs.length });
        const outcome = poll.then(
          () => null,
          (e: unknown) => e,
        );
        await sleep(150);
        const down = nextReadiness((r) => !r.ready);
        fleet.faults.dropLink();
        const err = await outcome;
        expect(err).toBeInstanceOf(GatewayTxError);
        expect((err as GatewayTxError).reason).toBe('link_down');
        expect((await down).last_error).toMatch(/dropped/);
        expect(driver.master()).toMatchObject({ state: 'UNKNOWN', last_event: 'USB_ERROR' });
        expect(await driver.send('FFFFFF', { op: 'INDICATE', type: 4, durationSec: 1 })).toMatchObject({
          ok: false,
          reason: 'link_down',
        });
        await sleep(2500); // a reconnect attempt or two fail while the link is absent
        expect(driver.readiness().failure_count).toBeGreaterThan(0);
        const up = nextReadiness((r) => r.ready);
        fleet.faults.restoreLink();
        expect(await up).toMatchObject({ ready: true, failure_count: 0, last_error: null });
        expect(driver.master().state).toBe('IDLE');
        expect(events[0]).toMatchObject({ ready: false });
        expect(events.at(-1)).toMatchObject({ ready: true });
        const again = await driver.statusBroadcast({ groupId: 3, expected: addrs.length });
        expect(again.map((r) => r.addr).sort()).toEqual(addrs);
      },
    );
  });

  it('garbage-on-the-link does not cost a frame or a reply', async () => {
    await withDriver(
      { nodes: 6, seed: 71, nodeSpecs: inRange(6) },
      async ({ driver, fleet, bindAll, sleep }) => {
        const addrs = await bindAll(5);
        const noisy = setInterval(() => {
          fleet.faults.injectGarbage();
          // Raw noise with 0x00 and plausible LEN bytes: the host decoder must resynchronise.
          fleet.faults.injectGarbage(Uint8Array.from([0x00, 0x3f, 0x12, 0x00, 0x05, 0xf3, 0x7e]), {
            raw: true,
          });
        }, 3);
        try {
          for (let i = 0; i < 3; i++) {
            const replies = await driver.statusBroadcast({ groupId: 5, expected: addrs.length });
            expect(replies.map((r) => r.addr).sort()).toEqual(addrs);
            for (const a of addrs.slice(0, 2)) {
              expect(await driver.config(a, 0x09, [100 + i, 0, 0, 0])).toMatchObject({
                ok: true,
                value: { ok: true },
              });
            }
          }
        } finally {
          clearInterval(noisy);
        }
        await sleep(100);
        expect(driver.readiness().ready).toBe(true);
        expect(driver.stats().framesTimedOut).toBe(0);
      },
    );
  });

  it('a-resetting-board-comes-up-through-boot-noise', async () => {
    let n = 0;
    const noise = (): Uint8Array => {
      n++;
      return Uint8Array.from({ length: 300 }, (_, i) => ((i * 37 + n) % 251) + 1);
    };
    await withDriver({ nodes: 2, seed: 81, resetOnOpen: true, bootNoise: noise }, async ({ driver }) => {
      expect(n).toBeGreaterThan(0);
      expect(driver.readiness()).toMatchObject({
        ready: true,
        gateway_mac: expect.stringMatching(/^[0-9A-F:]{17}$/),
      });
      expect((await driver.queryState()).ok).toBe(true);
      expect(await driver.send('FFFFFF', { op: 'INDICATE', type: 4, durationSec: 1 })).toEqual({ ok: true });
    });
  });

  it('a-persisted-gateway-rf-change-reconnects-on-both-board-kinds', async () => {
    for (const resetOnOpen of [true, false]) {
      await withDriver({ nodes: 1, seed: 82, resetOnOpen }, async ({ driver, fleet, nextReadiness }) => {
        const gw = fleet.gateway;
        const boots = gw.stats.boots;
        const rf = { ...gw.rf, sf: 8 };
        const up = nextReadiness((r) => r.ready);
        expect(await driver.setGatewayRf(rf, true)).toEqual({ ok: true, value: { reason: 0, rf } });
        await up;
        // Rebooted (once for the change; a CP2102 board also resets when the port reopens).
        expect(gw.stats.boots).toBeGreaterThan(boots);
        expect(gw.rf.sf).toBe(8);
        expect(driver.readiness()).toMatchObject({ ready: true, failure_count: 0 });
        expect(await driver.getGatewayRf()).toMatchObject({ ok: true, value: { sf: 8 } });
      });
    }
  });

  it('slow-rf-settings-stretch-the-outcome-guard', async () => {
    // SF12 at 62.5 kHz: a 21-byte CONTROL takes ~3.2 s on the air, past the 2 s floor.
    const rf = { ...DEFAULT_RF, sf: 12, bwKhzX10: 625 };
    await withDriver({ nodes: 2, seed: 83, nodeSpecs: inRange(2), rf }, async ({ driver }) => {
      const fields = {
        brightness: 255,
        mode: 35,
        speed: 128,
        intensity: 64,
        custom1: 1,
        custom2: 2,
        custom3: 31,
        check1: true,
        palette: 10,
        color1: [1, 2, 3],
        color2: [4, 5, 6],
        color3: [7, 8, 9],
      } as const;
      const out = await driver.send('FFFFFF', { op: 'CONTROL', groupId: 255, flags: 0x07, fields });
      expect(out).toEqual({ ok: true });
      const airtime = packetAirtimeMs(21, loraParamsFromRf(rf));
      expect(airtime).toBeGreaterThan(3000);
      expect(driver.stats()).toMatchObject({ framesSent: 1, framesTimedOut: 0 });
      expect(driver.stats().airtimeMs).toBeCloseTo(airtime, 6);
    });
  });

  // Gateway and nodes on the same slow settings. At SF12 a reply takes 1.1-1.3 s on the air
  // (SF10: ~0.33 s), after the node's 50-300 ms delay and a 4-symbol CAD, so the SF7 windows
  // (1.15 s unicast status, 0.6 s idle gap) would close before replies arrive. At SF12 the
  // 131 ms CAD lets nodes that drew similar delays collide almost always, and the weakest
  // lose every overlap, so the SF12 fleet is kept small.
  for (const [sf, nodes, seed] of [
    [10, 6, 84],
    [12, 2, 86],
  ] as const) {
    it(`a-fleet-at-sf${sf}-is-discovered-and-polled-with-stretched-reply-windows`, async () => {
      await withDriver(
        {
          nodes,
          seed,
          nodeSpecs: inRange(nodes),
          rf: { ...DEFAULT_RF, sf },
          // Boot announcements (slow at these settings) are over: only replies count.
          bootWaitMs: 20_000,
          // The gateway's autosync (every 30 s, 1.2 s on the air at SF12, sent without LBT)
          // leaves it deaf to a reply it overlaps: a lost reply needs a second attempt,
          // which GET_CONFIG does not make by default (operator retry).
          driverOptions: { discoveryAnnouncementMaxAgeMs: 0, getConfigAttempts: 2 },
        },
        async ({ driver, fleet }) => {
          expect(await driver.getGatewayRf()).toMatchObject({ ok: true, value: { sf } });
          const found = await driver.discover({ groupId: 0 });
          const addrs = fleetAddrs(fleet);
          expect(found.map((f) => f.addr).sort()).toEqual(addrs);
          expect(found.every((f) => f.source === 'reply')).toBe(true);
          for (const a of addrs) {
            expect(await driver.setGroup(a, 6)).toMatchObject({ ok: true, value: { ok: true } });
          }
          for (const a of addrs) {
            expect(await driver.statusUnicast(a, 6)).toMatchObject({ ok: true, value: { addr: a } });
          }
          expect(await driver.getConfig(addrs[0] as string, 0x09)).toMatchObject({ ok: true });
          // Last: a poll that needed a second round returns at the count while nodes heard in
          // round 1 still send their round-2 replies (1.2 s each at SF12), which would collide
          // with an immediate follow-up unicast. Nodes whose delays differ by less than the
          // CAD (131 ms at SF12) collide, so replies lost that way are asked for by unicast.
          const polled = await driver.statusBroadcast({
            groupId: 6,
            expected: addrs.length,
            targets: addrs.map((addr) => ({ addr, groupId: 6 })),
          });
          expect(polled.map((r) => r.addr).sort()).toEqual(addrs);
          expect(driver.diagnostics().liveMatchers).toBe(0);
        },
      );
    });
  }

  it('a-200-node-discovery-completes', async () => {
    await withDriver({ nodes: 200, seed: 91, bootSpreadMs: 3000 }, async ({ driver, fleet }) => {
      const found = await driver.discover({ groupId: 0 });
      const all = new Set(fleetAddrs(fleet));
      expect(found.every((f) => all.has(f.addr))).toBe(true);
      expect(new Set(found.map((f) => f.addr)).size).toBe(found.length);
      // Collisions and capture starve the weakest nodes in a crowded channel; rounds and
      // boot announcements still find nearly everyone within the round bound.
      expect(found.length).toBeGreaterThanOrEqual(180);
      expect(driver.diagnostics().liveMatchers).toBe(0);
    });
  });
});
