import { describe, expect, it } from 'vitest';
import { createFleet } from '../../../src/sim/fleet.ts';
import { toHex } from '../../../src/protocol/bytes.ts';
import { ManualClock } from './manual-clock.ts';

function describeFleet(seed: number): string[] {
  const f = createFleet({ nodes: 30, seed, clock: new ManualClock() });
  return f.nodes.map((n) => `${n.mac}/${n.devType}/${n.vbatMv}/${f.air.qualityOf(n.addr)?.rssi.toFixed(2)}`);
}

/** Boots a fleet on a manual clock and records every transmission (time offset, bytes). */
function bootTrace(seed: number): string[] {
  const clock = new ManualClock();
  const f = createFleet({ nodes: 15, seed, clock });
  const t0 = clock.now();
  const trace: string[] = [];
  f.air.events.on('tx', (t) => trace.push(`${(t.start - t0).toFixed(3)} ${toHex(t.bytes)}`));
  f.air.events.on('lost', (l) => trace.push(`lost ${l.receiver} ${l.sender} ${l.reason}`));
  f.start();
  clock.advance(12_000);
  f.stop();
  return trace;
}

describe('seeded fleet', () => {
  it('the same seed gives the same fleet; another seed a different one', () => {
    expect(describeFleet(7)).toEqual(describeFleet(7));
    expect(describeFleet(8)).not.toEqual(describeFleet(7));
  });

  it('a realistic mix: unique addresses, ~15% startblocks, batteries on startblocks and some LED nodes', () => {
    const f = createFleet({ nodes: 40, seed: 3, clock: new ManualClock() });
    expect(new Set(f.nodes.map((n) => n.addr)).size).toBe(40);
    expect(f.nodes.every((n) => n.addr !== f.gateway.addr)).toBe(true);
    const sb = f.nodes.filter((n) => n.devType === 50 || n.devType === 51);
    expect(sb.length).toBe(6);
    expect(sb.every((n) => n.vbatMv >= 3300 && n.vbatMv <= 4200)).toBe(true);
    const led = f.nodes.filter((n) => n.devType < 50);
    expect(led.some((n) => n.vbatMv === 0)).toBe(true);
    expect(led.some((n) => n.vbatMv > 0)).toBe(true);
    const rssi = f.nodes.map((n) => f.air.qualityOf(n.addr)?.rssi ?? 0);
    expect(Math.max(...rssi)).toBeLessThanOrEqual(-40);
    expect(Math.min(...rssi)).toBeGreaterThanOrEqual(-115);
  });

  it('boot traffic (announcements, collisions, autosync) is identical for the same seed', () => {
    const a = bootTrace(42);
    expect(a.filter((l) => !l.startsWith('lost')).length).toBeGreaterThan(20);
    expect(bootTrace(42)).toEqual(a);
    expect(bootTrace(43)).not.toEqual(a);
  });

  it('node specs override the seeded values', () => {
    const f = createFleet({
      nodes: 2,
      seed: 1,
      clock: new ManualClock(),
      nodeSpecs: [{ mac: '24:6F:28:AA:BB:CC', devType: 12, vbatMv: 0, quality: { rssi: -50, snr: 11 } }],
    });
    expect(f.node('AABBCC')?.devType).toBe(12);
    expect(f.node('246F28AABBCC')?.mac).toBe('246F28AABBCC');
    expect(f.air.qualityOf('AABBCC')).toEqual({ rssi: -50, snr: 11 });
  });

  it('refuses nonsense sizes', () => {
    expect(() => createFleet({ nodes: -1, seed: 1, clock: new ManualClock() })).toThrow(RangeError);
  });
});
