import { afterEach, describe, expect, it } from 'vitest';
import { openSim, type Item, type SimTestEnv, m2n } from './harness.ts';

const A = { mac: '7CDFA1000001', devType: 50, vbatMv: 3900, quality: { rssi: -60, snr: 10 } };
const B = { mac: '48279E000002', devType: 51, vbatMv: 3700, quality: { rssi: -75, snr: 8 } };

let env: SimTestEnv | null = null;
afterEach(async () => {
  await env?.close();
  env = null;
});

const ackFrom =
  (addr: string) =>
  (i: Item): boolean =>
    i.frame?.type === 0xfe && i.hex.slice(6, 12) === addr;

async function twoBoundNodes(): Promise<SimTestEnv> {
  const e = await openSim({ nodes: 2, seed: 21, nodeSpecs: [A, B], bootSpreadMs: 0 });
  await e.ready();
  // Past both boot announcements of both nodes.
  await e.sleep(7000);
  for (const [addr, group] of [
    ['000001', 1],
    ['000002', 2],
  ] as const) {
    const from = e.rx.length;
    await e.send(m2n(addr, { op: 'SET_GROUP', groupId: group }));
    await e.rx.waitFor(ackFrom(addr), 2000, from);
  }
  return e;
}

async function txDone(e: SimTestEnv, bytes: Uint8Array): Promise<void> {
  const from = e.rx.length;
  await e.send(bytes);
  await e.rx.waitFor((i) => i.ev?.kind === 'tx_done', 2000, from);
}

describe('armed effects fired by a trigger SYNC', () => {
  it('each group applies its armed CONTROL after its own offset; the OFFSET materialises', async () => {
    env = await twoBoundNodes();
    const syncEnds: number[] = [];
    env.sim.fleet.air.events.on('tx', (t) => {
      if (t.bytes[6] === 0x06 && t.bytes.length === 12) syncEnds.push(t.end);
    });
    await txDone(
      env,
      m2n('FFFFFF', { op: 'OFFSET', groupId: 255, offset: { mode: 'LINEAR', baseMs: 0, stepMs: 300 } }),
    );
    await txDone(
      env,
      m2n('FFFFFF', { op: 'CONTROL', groupId: 255, flags: 0x27, fields: { brightness: 99, mode: 8 } }),
    );
    const a = env.sim.fleet.node('000001');
    const b = env.sim.fleet.node('000002');
    expect(a?.snapshot().armed?.offsetMs).toBe(300);
    expect(b?.snapshot().armed?.offsetMs).toBe(600);
    expect(a?.snapshot().bri).toBe(128);
    await txDone(env, m2n('FFFFFF', { op: 'SYNC', ts24: 0, brightness: 0, flags: 0x01 }));
    await env.sleep(1000);
    const [sa, sb] = [a?.snapshot(), b?.snapshot()];
    expect(sa?.armed).toBeNull();
    expect(sa?.offset).toEqual({ active: { mode: 'LINEAR', baseMs: 0, stepMs: 300 }, pending: null });
    expect(sa?.bri).toBe(99);
    expect(sb?.bri).toBe(99);
    expect(sb?.effectMode).toBe(8);
    const end = syncEnds[0] ?? 0;
    expect((sa?.lastApply?.at ?? 0) - end).toBeCloseTo(300, 3);
    expect((sb?.lastApply?.at ?? 0) - end).toBeCloseTo(600, 3);
  });

  it('an immediate CONTROL whose OFFSET_MODE does not match the pending offset is dropped', async () => {
    env = await twoBoundNodes();
    await txDone(
      env,
      m2n('FFFFFF', { op: 'OFFSET', groupId: 1, offset: { mode: 'EXPLICIT', offsetMs: 100 } }),
    );
    await txDone(
      env,
      m2n('FFFFFF', { op: 'CONTROL', groupId: 255, flags: 0x05, fields: { brightness: 10 } }),
    );
    await env.sleep(200);
    expect(env.sim.fleet.node('000001')?.snapshot().bri).toBe(128);
    expect(env.sim.fleet.node('000002')?.snapshot().bri).toBe(10);
  });
});

describe('broadcast STREAM and its RX window', () => {
  it('fragments, opens a 2000 ms window, collects both ACKs; a frame inside re-opens it', async () => {
    env = await twoBoundNodes();
    const from = env.rx.length;
    const payload = Uint8Array.from([1, 1, 0x52, 0x31, 3, 0x42, 0x4f, 0x42]);
    await env.send(m2n('FFFFFF', { op: 'STREAM', payload }));
    await env.rx.waitFor((i) => i.hex === '0004F102D007', 2000, from);
    const mid = env.rx.length;
    await env.send(m2n('FFFFFF', { op: 'INDICATE', type: 4, durationSec: 2 }));
    await env.rx.waitFor((i) => i.hex === '0002F100', 6000, mid);
    await env.rx.waitFor(ackFrom('000001'), 10, from);
    await env.rx.waitFor(ackFrom('000002'), 10, from);
    const states = env.rx.hexSince(from).filter((h) => /^000[24]F1/.test(h));
    expect(states).toEqual(['0002F101', '0004F102D007', '0002F101', '0004F102D007', '0002F100']);
    expect(env.rx.hexSince(from).filter((h) => h === '0002F301')).toHaveLength(2);
    expect(env.sim.fleet.node('000001')?.snapshot().startblock?.display[1]?.name).toBe('BOB');
    // Node B shows slots 1..1 only when first slot = 1: it is a 1-slot startblock too.
    expect(env.sim.fleet.node('000002')?.snapshot().startblock?.display[1]?.channel).toBe('R1');
  });
});
