import { afterEach, describe, expect, it } from 'vitest';
import { hex, openSim, type Item, type SimTestEnv, m2n } from './harness.ts';

const AABBCC = { mac: '246F28AABBCC', devType: 12, vbatMv: 3987, quality: { rssi: -70, snr: 9 } };

let env: SimTestEnv | null = null;
afterEach(async () => {
  await env?.close();
  env = null;
});

/** A forwarded packet from `sender` with the given N2M type. */
const fromNode =
  (sender: string, type: number) =>
  (i: Item): boolean =>
    i.frame?.type === type && i.hex.slice(6, 12) === sender;

/** The forwarded frame without its trailing RSSI (2 B) and SNR (1 B). */
const body = (i: Item): string => i.hex.slice(0, -6);

async function bootedWithNode(spec = AABBCC): Promise<SimTestEnv> {
  const e = await openSim({ nodes: 1, seed: 3, nodeSpecs: [spec] });
  await e.ready();
  // Its first boot announcement (TV-11 layout) tells us the radio is up.
  await e.rx.waitFor(fromNode(spec.mac.slice(6), 0x81), 5000);
  return e;
}

async function setGroup(e: SimTestEnv, addr: string, group: number): Promise<Item> {
  const from = e.rx.length;
  await e.send(m2n(addr, { op: 'SET_GROUP', groupId: group }));
  return e.rx.waitFor(fromNode(addr, 0xfe), 2000, from);
}

describe('simulated nodes answering host requests', () => {
  it('announces itself after boot to FF FF FF (TV-11 layout)', async () => {
    env = await bootedWithNode();
    const ann = await env.rx.waitFor(fromNode('AABBCC', 0x81));
    expect(body(ann)).toBe('001481AABBCCFFFFFF81020C00246F28AABBCC');
    const ev = ann.ev;
    expect(ev?.kind === 'packet' && ev.rssi).toBeLessThan(-60);
  });

  it('SET_GROUP: TX events, then the ACK forwarded with RSSI/SNR (TV-12, TV-13)', async () => {
    env = await bootedWithNode();
    const from = env.rx.length;
    await env.send(hex('00 05 02 AA BB CC 03'));
    const ack = await env.rx.waitFor(fromNode('AABBCC', 0xfe), 2000, from);
    const hexes = env.rx.hexSince(from);
    expect(hexes.slice(0, 3)).toEqual(['0002F101', '0002F301', '0002F100']);
    expect(body(ack)).toBe('000EFEAABBCC102030FE020000');
    expect(ack.ev?.kind === 'packet' && ack.ev.rssi).toBeGreaterThanOrEqual(-73);
    expect(ack.ev?.kind === 'packet' && ack.ev.rssi).toBeLessThanOrEqual(-67);
    const s = env.sim.fleet.node('AABBCC')?.snapshot();
    expect(s?.groupId).toBe(3);
    expect(s?.master).toBe('102030');
    expect(s?.indicator?.name).toBe('PAIR_CONFIRMED');
  });

  it('a fresh node ignores STATUS until a SET_GROUP binds it (MAC filter)', async () => {
    env = await bootedWithNode();
    let from = env.rx.length;
    await env.send(m2n('AABBCC', { op: 'STATUS', groupId: 0 }));
    await env.sleep(1200);
    expect(env.rx.since(from).filter(fromNode('AABBCC', 0x83))).toHaveLength(0);
    await setGroup(env, 'AABBCC', 3);
    from = env.rx.length;
    await env.send(m2n('AABBCC', { op: 'STATUS', groupId: 3 }));
    const st = await env.rx.waitFor(fromNode('AABBCC', 0x83), 2000, from);
    // flags 0x01 (bri > 0), configByte 0x01, effect 0, bri 128.
    expect(body(st).slice(0, 28)).toBe('0013' + '83AABBCC102030' + '83' + '010100' + '80');
    const reply = st.ev?.kind === 'packet' ? st.ev.reply : null;
    expect(reply?.kind).toBe('STATUS_REPLY');
    if (reply?.kind !== 'STATUS_REPLY') return;
    expect(Math.abs(reply.vbatMv - 3987)).toBeLessThanOrEqual(8);
    expect(reply.rssi).toBeLessThan(-60);
    // A unicast with a group the node is not in is dropped (pinned rule).
    from = env.rx.length;
    await env.send(m2n('AABBCC', { op: 'STATUS', groupId: 4 }));
    await env.sleep(1200);
    expect(env.rx.since(from).filter(fromNode('AABBCC', 0x83))).toHaveLength(0);
  });

  it('GET_CONFIG: method options get no reply; a CONFIG write reads back (TV-25..27)', async () => {
    env = await bootedWithNode();
    await setGroup(env, 'AABBCC', 3);
    let from = env.rx.length;
    await env.send(m2n('AABBCC', { op: 'GET_CONFIG', option: 0x81 }));
    await env.sleep(1200);
    expect(env.rx.since(from).filter(fromNode('AABBCC', 0x8a))).toHaveLength(0);

    from = env.rx.length;
    await env.send(hex('00 09 05 AA BB CC 06 00 00 96 00'));
    const ack = await env.rx.waitFor(fromNode('AABBCC', 0xfe), 2000, from);
    expect(body(ack)).toBe('000EFEAABBCC102030FE050000');

    from = env.rx.length;
    await env.send(hex('00 05 0A AA BB CC 06'));
    const rep = await env.rx.waitFor(fromNode('AABBCC', 0x8a), 2000, from);
    expect(body(rep)).toBe('00108AAABBCC1020308A0600009600');
  });

  it('CONFIG sent to broadcast is dropped without an ACK', async () => {
    env = await bootedWithNode();
    await setGroup(env, 'AABBCC', 3);
    const from = env.rx.length;
    await env.send(m2n('FFFFFF', { op: 'CONFIG', option: 0x05, data: [30, 0, 0, 0] }));
    await env.sleep(1200);
    expect(env.rx.since(from).filter(fromNode('AABBCC', 0xfe))).toHaveLength(0);
    expect(env.sim.fleet.node('AABBCC')?.snapshot().overrides.fps).toBe(75);
  });

  it('CONFIG 0x81 reboots the node before its ACK leaves; it announces again', async () => {
    env = await bootedWithNode();
    await setGroup(env, 'AABBCC', 3);
    const from = env.rx.length;
    await env.send(m2n('AABBCC', { op: 'CONFIG', option: 0x81, data: [1, 0, 0, 0] }));
    const ann = await env.rx.waitFor(fromNode('AABBCC', 0x81), 5000, from);
    expect(env.rx.since(from).filter(fromNode('AABBCC', 0xfe))).toHaveLength(0);
    expect(ann.hex.slice(6, 12)).toBe('AABBCC');
    const s = env.sim.fleet.node('AABBCC')?.snapshot();
    expect(s?.rebootCount).toBe(1);
    expect(s?.groupId).toBe(0);
    expect(s?.master).toBeNull();
  });

  it('STREAM to a startblock: fragments, RX window, one ACK, slot shown (TV-30)', async () => {
    const sb = { mac: '7CDFA1AABBCC', devType: 50, vbatMv: 3900, quality: { rssi: -65, snr: 10 } };
    env = await bootedWithNode(sb);
    await setGroup(env, 'AABBCC', 2);
    const cfg = await (async () => {
      const f = env.rx.length;
      await env.send(m2n('AABBCC', { op: 'CONFIG', option: 0x8c, data: [2, 0, 0, 0] }));
      return env.rx.waitFor(fromNode('AABBCC', 0xfe), 2000, f);
    })();
    expect(body(cfg)).toBe('000EFEAABBCC102030FE050000');
    const from = env.rx.length;
    await env.send(hex('00 0E 07 AA BB CC 01 02 52 31 05 41 6C 69 63 65'));
    const ack = await env.rx.waitFor(fromNode('AABBCC', 0xfe), 3000, from);
    expect(body(ack)).toBe('000EFEAABBCC102030FE070000');
    await env.rx.waitFor((i) => i.hex === '0002F100', 2000, from);
    const evs = env.rx.hexSince(from).filter((h) => h.startsWith('0002F') || h.startsWith('0004F'));
    expect(evs).toEqual(['0002F101', '0002F301', '0002F301', '0004F102E803', '0002F100']);
    const s = env.sim.fleet.node('AABBCC')?.snapshot();
    expect(s?.startblock?.display[2]).toEqual({ slot: 2, channel: 'R1', name: 'Alice' });
  });

  it('RF_CONFIG: out of range → ACK 2; valid → no ACK, node moves channel (TV-33)', async () => {
    env = await bootedWithNode();
    await setGroup(env, 'AABBCC', 3);
    let from = env.rx.length;
    const bad = {
      freqHz: 950_000_000,
      bwKhzX10: 1250,
      sf: 7,
      crDen: 5,
      syncWord: 0x12,
      txPowerDbm: 14,
      preamble: 8,
    };
    await env.send(m2n('AABBCC', { op: 'RF_CONFIG', rf: bad }));
    const nack = await env.rx.waitFor(fromNode('AABBCC', 0xfe), 2000, from);
    expect(body(nack)).toBe('000EFEAABBCC102030FE0D0200');

    from = env.rx.length;
    await env.send(hex('00 10 0D AA BB CC 40 AE BF 33 E2 04 07 05 12 0E 08 00'));
    await env.rx.waitFor((i) => i.hex === '0002F100', 2000, from);
    // Follow the node to 868.2 MHz (volatile gateway change).
    await env.send(hex('00 0E 02 00 40 AE BF 33 E2 04 07 05 12 0E 08 00'));
    const ann = await env.rx.waitFor(fromNode('AABBCC', 0x81), 8000, from);
    expect(env.rx.since(from).filter(fromNode('AABBCC', 0xfe))).toHaveLength(0);
    expect(ann.hex.slice(12, 18)).toBe('FFFFFF');
    await setGroup(env, 'AABBCC', 3);
    from = env.rx.length;
    await env.send(hex('00 05 0E AA BB CC 00'));
    const rep = await env.rx.waitFor(fromNode('AABBCC', 0x8e), 2000, from);
    expect(body(rep)).toBe('00178EAABBCC1020308E40AEBF33E2040705120E0800');
    expect(env.sim.fleet.node('AABBCC')?.snapshot().macFilterPersist).toBe(false);
  });
});
