import { afterEach, describe, expect, it } from 'vitest';
import { hex, openSim, type Item, type SimTestEnv, m2n } from './harness.ts';

const NODE = { mac: '246F28AABBCC', devType: 12, vbatMv: 0, quality: { rssi: -60, snr: 10 } };

let env: SimTestEnv | null = null;
afterEach(async () => {
  await env?.close();
  env = null;
});

const fromNode =
  (type: number) =>
  (i: Item): boolean =>
    i.frame?.type === type && i.hex.slice(6, 12) === 'AABBCC';

async function booted(): Promise<SimTestEnv> {
  const e = await openSim({ nodes: 1, seed: 9, nodeSpecs: [NODE] });
  await e.ready();
  await e.rx.waitFor(fromNode(0x81), 5000);
  return e;
}

describe('fault injection', () => {
  it('packet loss: at rate 1 nothing arrives, at rate 0 the ACK does', async () => {
    env = await booted();
    env.sim.fleet.faults.lossRate = 1;
    let from = env.rx.length;
    await env.send(m2n('AABBCC', { op: 'SET_GROUP', groupId: 5 }));
    await env.rx.waitFor((i) => i.ev?.kind === 'tx_done', 2000, from);
    await env.sleep(1500);
    expect(env.rx.since(from).filter(fromNode(0xfe))).toHaveLength(0);
    expect(env.sim.fleet.node('AABBCC')?.snapshot().groupId).toBe(0);
    expect(env.sim.fleet.air.stats.lossDrops).toBeGreaterThan(0);
    env.sim.fleet.faults.lossRate = 0;
    from = env.rx.length;
    await env.send(m2n('AABBCC', { op: 'SET_GROUP', groupId: 5 }));
    await env.rx.waitFor(fromNode(0xfe), 2000, from);
    expect(() => (env!.sim.fleet.faults.lossRate = 2)).toThrow(RangeError);
  });

  it('a silenced node neither hears nor answers until unsilenced', async () => {
    env = await booted();
    env.sim.fleet.faults.silence('AABBCC');
    let from = env.rx.length;
    await env.send(m2n('FFFFFF', { op: 'DEVICES', groupId: 255 }));
    await env.sleep(1500);
    expect(env.rx.since(from).filter(fromNode(0x81))).toHaveLength(0);
    env.sim.fleet.faults.unsilence('AABBCC');
    from = env.rx.length;
    await env.send(m2n('FFFFFF', { op: 'DEVICES', groupId: 255 }));
    await env.rx.waitFor(fromNode(0x81), 2000, from);
  });

  it('a rebooted node forgets its group and announces itself again', async () => {
    env = await booted();
    let from = env.rx.length;
    await env.send(m2n('AABBCC', { op: 'SET_GROUP', groupId: 5 }));
    await env.rx.waitFor(fromNode(0xfe), 2000, from);
    from = env.rx.length;
    env.sim.fleet.faults.reboot('24:6F:28:AA:BB:CC');
    const ann = await env.rx.waitFor(fromNode(0x81), 5000, from);
    expect(ann.hex.slice(12, 18)).toBe('FFFFFF');
    expect(ann.hex.slice(24, 26)).toBe('00');
    expect(env.sim.fleet.node('AABBCC')?.snapshot().rebootCount).toBe(1);
  });

  it('a field power-up reboots a seeded share of the powered nodes; persistence keeps the master', async () => {
    env = await openSim({ nodes: 6, seed: 9 });
    await env.ready();
    await env.sleep(3000);
    const fleet = env.sim.fleet;
    const gw = fleet.gateway.addr;
    fleet.sched.runExternal(() => {
      for (const n of fleet.nodes) {
        n.groupId = 4;
        n.master = gw;
      }
    });
    fleet.faults.masterPersistence(true, fleet.nodes[0]?.addr);
    fleet.faults.powerOff(fleet.nodes[1]?.addr ?? '');
    const half = fleet.faults.rebootFleet({ fraction: 0.5, spreadMs: 500 });
    expect(half).toHaveLength(3); // half of the 5 powered nodes, rounded
    expect(half).not.toContain(fleet.nodes[1]?.addr);
    await env.sleep(1500);
    for (const n of fleet.nodes) {
      if (!n.isPowered) continue;
      const rebooted = half.includes(n.addr);
      expect(n.groupId, n.addr).toBe(rebooted ? 0 : 4);
      expect(n.master, n.addr).toBe(!rebooted || n === fleet.nodes[0] ? gw : null);
    }
    expect(() => fleet.faults.rebootFleet({ fraction: 2 })).toThrow(RangeError);
  });

  it('garbage bytes on the link: the host decoder resynchronises (no 0x00 by default)', async () => {
    env = await booted();
    const from = env.rx.length;
    const written = env.sim.fleet.faults.injectGarbage();
    expect(written.length).toBeGreaterThan(0);
    expect(written.includes(0)).toBe(false);
    await env.send(hex('00 01 7F'));
    const rep = await env.rx.waitFor((i) => i.frame?.type === 0xf5, 2000, from);
    expect(rep.hex).toBe('0002F500');
    expect(env.sim.fleet.faults.injectGarbage(Uint8Array.from([0, 1, 0, 2]))).toEqual(
      Uint8Array.from([1, 2]),
    );
    expect(env.sim.fleet.faults.injectGarbage(Uint8Array.from([0, 1]), { raw: true })).toEqual(
      Uint8Array.from([0, 1]),
    );
  });

  it('a stray "00 nn" towards the gateway swallows the next frame; a 25 ms pause heals it', async () => {
    env = await booted();
    let from = env.rx.length;
    env.sim.fleet.faults.injectHostNoise(Uint8Array.from([0x00, 0x05]));
    await env.send(hex('00 01 7F'));
    await env.sleep(200);
    expect(env.rx.since(from).filter((i) => i.frame?.type === 0xf5)).toHaveLength(0);
    from = env.rx.length;
    await env.send(hex('00 01 7F'));
    await env.rx.waitFor((i) => i.frame?.type === 0xf5, 2000, from);
  });

  it('link drop: the host link breaks, opens are refused, restore lets it reconnect', async () => {
    env = await booted();
    const closed = new Promise<Error | undefined>((r) => env?.link.onClose(r));
    env.sim.fleet.faults.dropLink();
    expect((await closed)?.message).toMatch(/dropped/);
    expect(env.sim.fleet.faults.linkDropped).toBe(true);
    await expect(env.link.open()).rejects.toThrow();
    // The fleet keeps running meanwhile (autosync, node timers).
    await env.sleep(1000);
    env.sim.fleet.faults.restoreLink();
    await env.link.open();
    const from = env.rx.length;
    await env.send(hex('00 01 7F'));
    await env.rx.waitFor((i) => i.frame?.type === 0xf5, 2000, from);
    expect(env.sim.endpoint.connectionCount).toBe(2);
  });

  it('a deaf gateway radio forwards nothing', async () => {
    env = await booted();
    env.sim.fleet.faults.gatewayDeaf = true;
    const from = env.rx.length;
    await env.send(m2n('FFFFFF', { op: 'DEVICES', groupId: 255 }));
    await env.rx.waitFor((i) => i.ev?.kind === 'tx_done', 2000, from);
    await env.sleep(1500);
    expect(env.rx.since(from).filter(fromNode(0x81))).toHaveLength(0);
    expect(env.sim.fleet.node('AABBCC')?.snapshot().radioStats.repliesSent).toBeGreaterThan(1);
  });

  it('resetOnOpen: every connection sees the boot sequence (and optional boot noise)', async () => {
    env = await openSim({
      nodes: 0,
      seed: 1,
      resetOnOpen: true,
      bootNoise: () => Uint8Array.from([0x45, 0x54, 0xff]),
    });
    await env.ready();
    expect(env.rx.rawBytes).toBeGreaterThan(0);
    expect(env.rx.hexSince(0).slice(0, 2)).toEqual(['0002F100', '0002F101']);
    await env.link.close();
    const before = env.sim.fleet.gateway.stats.boots;
    await env.link.open();
    await env.rx.waitFor((i) => i.hex === '0002F100', 2000, env.rx.length);
    expect(env.sim.fleet.gateway.stats.boots).toBe(before + 1);
  });
});
