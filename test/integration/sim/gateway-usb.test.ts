import { afterEach, describe, expect, it } from 'vitest';
import { hex, openSim, type SimTestEnv } from './harness.ts';
import { toHex } from '../../../src/protocol/bytes.ts';

let env: SimTestEnv | null = null;
afterEach(async () => {
  await env?.close();
  env = null;
});

describe('simulated gateway over USB', () => {
  it('boots with F1 00 and runs the first autosync right away', async () => {
    env = await openSim({ nodes: 0, seed: 1 });
    await env.ready();
    expect(env.rx.hexSince(0).slice(0, 4)).toEqual(['0002F100', '0002F101', '0002F301', '0002F100']);
  });

  it('answers identify with the unframed TV-02 string', async () => {
    env = await openSim({ nodes: 0, seed: 1 });
    await env.ready();
    const from = env.rx.length;
    await env.send(hex('00 01 01 FF'));
    const item = await env.rx.waitFor((i) => i.kind === 'identify', 2000, from);
    expect(item.mac).toBe('48:CA:43:10:20:30');
  });

  it('answers a state request with EV_STATE_REPORT (TV-03)', async () => {
    env = await openSim({ nodes: 0, seed: 1 });
    await env.ready();
    const from = env.rx.length;
    await env.send(hex('00 01 7F'));
    const item = await env.rx.waitFor((i) => i.frame?.type === 0xf5, 2000, from);
    expect(item.hex).toBe('0002F500');
  });

  it('gateway-reports-TX-to-a-state-request-during-airtime (§4.3), IDLE again after TX_DONE', async () => {
    env = await openSim({ nodes: 0, seed: 1 });
    await env.ready();
    const from = env.rx.length;
    // CONTROL broadcast: ~51 ms of airtime at SF7/125 kHz.
    await env.send(hex('00 0E 08 FF FF FF 03 05 83 C8 02 03 06 FF 80 00'));
    await env.rx.waitFor((i) => i.hex === '0002F101', 2000, from);
    const askedAt = env.rx.length;
    await env.send(hex('00 01 7F'));
    const during = await env.rx.waitFor((i) => i.frame?.type === 0xf5, 2000, askedAt);
    expect(during.hex).toBe('0002F501');
    // The report came while the packet was still on air: TX_DONE follows it.
    const done = await env.rx.waitFor((i) => i.ev?.kind === 'tx_done', 2000, askedAt);
    expect(done.at).toBeGreaterThan(during.at);
    await env.rx.waitFor((i) => i.hex === '0002F100', 2000, askedAt);
    const after = env.rx.length;
    await env.send(hex('00 01 7F'));
    const idle = await env.rx.waitFor((i) => i.frame?.type === 0xf5, 2000, after);
    expect(idle.hex).toBe('0002F500');
  });

  it('state-request-in-the-same-write-as-an-M2N-frame-answers-TX (§2.3)', async () => {
    env = await openSim({ nodes: 0, seed: 1 });
    await env.ready();
    const from = env.rx.length;
    // One write: the firmware starts the transmission before it parses the next frame.
    await env.send([...hex('00 0E 08 FF FF FF 03 05 83 C8 02 03 06 FF 80 00'), ...hex('00 01 7F')]);
    const report = await env.rx.waitFor((i) => i.frame?.type === 0xf5, 2000, from);
    expect(report.hex).toBe('0002F501');
    const done = await env.rx.waitFor((i) => i.ev?.kind === 'tx_done', 2000, from);
    expect(done.at).toBeGreaterThan(report.at);
    await env.rx.waitFor((i) => i.hex === '0002F100', 2000, from);
    const after = env.rx.length;
    await env.send(hex('00 01 7F'));
    expect((await env.rx.waitFor((i) => i.frame?.type === 0xf5, 2000, after)).hex).toBe('0002F500');
  });

  it('ignores a frame with a wrong body length: no TX, no outcome', async () => {
    env = await openSim({ nodes: 0, seed: 1 });
    await env.ready();
    const from = env.rx.length;
    // SET_GROUP with a 2-byte body (must be exactly 1), then a state request as a barrier.
    await env.send(hex('00 06 02 AA BB CC 03 04'));
    await env.sleep(300);
    await env.send(hex('00 01 7F'));
    await env.rx.waitFor((i) => i.frame?.type === 0xf5, 2000, from);
    expect(env.rx.hexSince(from)).toEqual(['0002F500']);
    expect(env.sim.fleet.gateway.stats.framesIgnored).toBe(1);
  });

  it('rejects the second of two back-to-back frames with TXPENDING (TV-06)', async () => {
    env = await openSim({ nodes: 0, seed: 1 });
    await env.ready();
    const from = env.rx.length;
    const frame = hex('00 0E 08 FF FF FF 03 05 83 C8 02 03 06 FF 80 00');
    // One write: both frames reach the gateway together, as on a 921600 baud line.
    await env.send([...frame, ...frame]);
    await env.rx.waitFor((i) => i.hex === '0002F100', 2000, from);
    const got = env.rx.hexSince(from);
    // The reject may come before or after the TX state event (TX starts ~1 ms after the frame).
    expect([...got].sort()).toEqual(['0002F100', '0002F101', '0002F301', '0003F40801'].sort());
    expect(got.filter((h) => h.startsWith('0002F'))).toEqual(['0002F101', '0002F301', '0002F100']);
  });

  it('transmits a TV-16 CONTROL exactly, with sender = gateway last3', async () => {
    env = await openSim({ nodes: 0, seed: 1 });
    await env.ready();
    const onAir: { hex: string; ms: number }[] = [];
    env.sim.fleet.air.events.on('tx', ({ bytes, start, end }) =>
      onAir.push({ hex: toHex(bytes), ms: end - start }),
    );
    const from = env.rx.length;
    await env.send(hex('00 0E 08 FF FF FF 03 05 83 C8 02 03 06 FF 80 00'));
    await env.rx.waitFor((i) => i.ev?.kind === 'tx_done', 2000, from);
    expect(onAir.map((t) => t.hex)).toEqual(['102030FFFFFF08030583C8020306FF8000']);
    // The packet occupies the air for its real airtime (17 B at SF7/125 kHz).
    expect(onAir[0]?.ms).toBeCloseTo(51.456, 2);
  });

  it('times a TX cycle like the hardware: F1 01 after ~1 ms, F3 01 + F1 00 ~11 ms after the airtime', async () => {
    env = await openSim({ nodes: 0, seed: 1 });
    await env.ready();
    let airEnd = 0;
    env.sim.fleet.air.events.on('tx', ({ end }) => (airEnd = end));
    const from = env.rx.length;
    const t0 = env.clock.now();
    await env.send(hex('00 0E 08 FF FF FF 03 05 83 C8 02 03 06 FF 80 00'));
    const tx = await env.rx.waitFor((i) => i.hex === '0002F101', 2000, from);
    const done = await env.rx.waitFor((i) => i.ev?.kind === 'tx_done', 2000, from);
    const idle = await env.rx.waitFor((i) => i.hex === '0002F100', 2000, from);
    expect(tx.at - t0).toBeLessThanOrEqual(2);
    // §4.6: write → TX_DONE = airtime + 12–16 ms on real hardware.
    expect(done.at - t0 - 51.456).toBeGreaterThanOrEqual(12);
    expect(done.at - t0 - 51.456).toBeLessThanOrEqual(16);
    expect(done.at - airEnd).toBeGreaterThanOrEqual(11);
    expect(done.at - airEnd).toBeLessThan(12);
    expect(idle.at).toBe(done.at);
  });

  it('re-stamps SYNC with its own 24-bit millis; flags only when non-zero (TV-22)', async () => {
    env = await openSim({ nodes: 0, seed: 1 });
    await env.ready();
    const onAir: Uint8Array[] = [];
    env.sim.fleet.air.events.on('tx', ({ bytes }) => onAir.push(bytes));
    let from = env.rx.length;
    await env.send(hex('00 09 06 AA BB CC 56 34 12 00 01'));
    await env.rx.waitFor((i) => i.hex === '0002F100', 2000, from);
    const millis = env.sim.fleet.gateway.millis();
    const p = onAir[0] as Uint8Array;
    expect(toHex(p.subarray(0, 7))).toBe('102030FFFFFF06');
    const ts = (p[7] as number) | ((p[8] as number) << 8) | ((p[9] as number) << 16);
    expect(ts).not.toBe(0x123456);
    expect(ts).toBeLessThanOrEqual(millis & 0xffffff);
    expect(ts).toBeGreaterThan((millis & 0xffffff) - 2000);
    expect(toHex(p.subarray(10))).toBe('0001');
    // 5-byte form with flags 0 goes out as the 4-byte form.
    from = env.rx.length;
    await env.send(hex('00 09 06 FF FF FF 00 00 00 40 00'));
    await env.rx.waitFor((i) => i.hex === '0002F100', 2000, from);
    expect((onAir[1] as Uint8Array).length).toBe(11);
    expect(onAir[1]?.[10]).toBe(0x40);
  });

  it('retries a SYNC rejected as busy on its own (unsolicited TX_DONE)', async () => {
    env = await openSim({ nodes: 0, seed: 1 });
    await env.ready();
    const onAir: string[] = [];
    env.sim.fleet.air.events.on('tx', ({ bytes }) => onAir.push(toHex(bytes)));
    const from = env.rx.length;
    await env.send([...hex('00 06 0C FF FF FF 04 05'), ...hex('00 09 06 FF FF FF 00 00 00 07 01')]);
    await env.rx.waitFor((i) => i.ev?.kind === 'tx_done', 2000, from);
    await env.sleep(400);
    const evs = env.rx.hexSince(from);
    expect(evs).toContain('0003F40601');
    expect(evs.filter((h) => h === '0002F301')).toHaveLength(2);
    expect(onAir).toHaveLength(2);
    expect(onAir[1]?.slice(0, 14)).toBe('102030FFFFFF06');
    expect(onAir[1]?.slice(-4)).toBe('0701');
  });

  it('sends an autosync with the last host brightness after 30 virtual s', async () => {
    env = await openSim({ nodes: 0, seed: 1 });
    await env.ready();
    const onAir: string[] = [];
    env.sim.fleet.air.events.on('tx', ({ bytes }) => onAir.push(toHex(bytes)));
    await env.send(hex('00 08 04 FF FF FF 03 05 0C 2A'));
    const from = env.rx.length;
    await env.rx.waitFor((i) => i.ev?.kind === 'tx_done', 2000, from);
    const start = env.clock.now();
    const next = env.rx.length;
    await env.rx.waitFor((i) => i.ev?.kind === 'tx_done', 40_000, next);
    expect(env.clock.now() - start).toBeGreaterThan(25_000);
    expect(onAir).toHaveLength(2);
    expect(onAir[1]).toMatch(/^102030FFFFFF06[0-9A-F]{6}2A$/);
  });

  it('changes its RF config live and reports it (TV-31, TV-32)', async () => {
    env = await openSim({ nodes: 0, seed: 1 });
    await env.ready();
    let from = env.rx.length;
    await env.send(hex('00 0E 02 00 40 AE BF 33 E2 04 07 05 12 0E 08 00'));
    let item = await env.rx.waitFor((i) => i.frame?.type === 0xf6, 2000, from);
    expect(item.hex).toBe('000EF60040AEBF33E2040705120E0800');
    from = env.rx.length;
    await env.send(hex('00 01 03'));
    item = await env.rx.waitFor((i) => i.frame?.type === 0xf6, 2000, from);
    expect(item.hex).toBe('000EF60040AEBF33E2040705120E0800');
    // Out of range (SF 13) is rejected with the still-active config.
    from = env.rx.length;
    await env.send(hex('00 0E 02 00 40 AE BF 33 E2 04 0D 05 12 0E 08 00'));
    item = await env.rx.waitFor((i) => i.frame?.type === 0xf6, 2000, from);
    expect(item.hex).toBe('000EF60140AEBF33E2040705120E0800');
  });

  it('reboots after a persisted RF change: the USB link drops and comes back', async () => {
    env = await openSim({ nodes: 0, seed: 1 });
    await env.ready();
    const closed = new Promise<Error | undefined>((r) => env?.link.onClose(r));
    const from = env.rx.length;
    await env.send(hex('00 0E 02 01 40 AE BF 33 E2 04 07 05 12 0E 08 00'));
    await env.rx.waitFor((i) => i.frame?.type === 0xf6, 2000, from);
    expect(await closed).toBeInstanceOf(Error);
    // While rebooting the port is gone; once back, a new connection sees the new config.
    await expect(env.link.open()).rejects.toThrow();
    await env.sleep(500);
    await env.link.open();
    const from2 = env.rx.length;
    await env.send(hex('00 01 03'));
    const item = await env.rx.waitFor((i) => i.frame?.type === 0xf6, 2000, from2);
    expect(item.hex).toBe('000EF60040AEBF33E2040705120E0800');
    expect(env.sim.fleet.gateway.stats.boots).toBe(2);
  });

  it('behind a UART bridge (resetOnOpen) the port stays open across the persisted-RF reboot', async () => {
    env = await openSim({ nodes: 0, seed: 1, resetOnOpen: true });
    await env.ready();
    let closed = false;
    env.link.onClose(() => (closed = true));
    const boots = env.sim.fleet.gateway.stats.boots;
    const from = env.rx.length;
    await env.send(hex('00 0E 02 01 40 AE BF 33 E2 04 09 05 12 0E 08 00'));
    await env.rx.waitFor((i) => i.frame?.type === 0xf6, 2000, from);
    // The boot ends with F1 00 on the same link; the new config is active.
    await env.rx.waitFor((i) => i.hex === '0002F100', 2000, env.rx.length);
    expect(closed).toBe(false);
    expect(env.sim.fleet.gateway.stats.boots).toBe(boots + 1);
    expect(env.sim.fleet.gateway.rf.sf).toBe(9);
  });
});
