import { describe, expect, it } from 'vitest';
import { Air, airtimeMs, type AirRadio, type LinkQuality } from '../../../src/sim/air.ts';
import { SimScheduler } from '../../../src/sim/scheduler.ts';
import { DEFAULT_RF, type RfConfig } from '../../../src/protocol/types.ts';
import { Prng } from '../../../src/util/prng.ts';
import { ManualClock } from './manual-clock.ts';

class FakeRadio implements AirRadio {
  rxEpoch = 0;
  listening = true;
  got: { bytes: Uint8Array; rssi: number; snr: number }[] = [];
  constructor(
    readonly id: string,
    public rf: RfConfig = { ...DEFAULT_RF },
  ) {}
  isListening(): boolean {
    return this.listening;
  }
  receive(bytes: Uint8Array, rssi: number, snr: number): void {
    this.got.push({ bytes, rssi, snr });
  }
  deafen(): void {
    this.listening = false;
    this.rxEpoch++;
  }
}

function world(): {
  clock: ManualClock;
  air: Air;
  gw: FakeRadio;
  add: (id: string, q: LinkQuality) => FakeRadio;
} {
  const clock = new ManualClock();
  const air = new Air(new SimScheduler(clock), new Prng(5));
  const gw = new FakeRadio('102030');
  air.registerHub(gw);
  const add = (id: string, q: LinkQuality): FakeRadio => {
    const r = new FakeRadio(id);
    air.register(r, q);
    return r;
  };
  return { clock, air, gw, add };
}

const PKT = new Uint8Array(16);

describe('Air (shared channel)', () => {
  it('delivers after the real airtime with the link RSSI/SNR plus small noise', () => {
    const { clock, air, gw, add } = world();
    const a = add('AAAAAA', { rssi: -80, snr: 7 });
    const { start, end } = air.transmit(a, PKT);
    expect(end - start).toBeCloseTo(51.456, 6);
    clock.advance(50);
    expect(gw.got).toHaveLength(0);
    clock.advance(5);
    expect(gw.got).toHaveLength(1);
    expect(Math.abs((gw.got[0]?.rssi ?? 0) + 80)).toBeLessThanOrEqual(2);
    expect(Math.abs((gw.got[0]?.snr ?? 0) - 7)).toBeLessThanOrEqual(1.5);
  });

  it('overlapping packets of similar strength are both lost at the receiver', () => {
    const { clock, air, gw, add } = world();
    const a = add('AAAAAA', { rssi: -80, snr: 7 });
    const b = add('BBBBBB', { rssi: -82, snr: 7 });
    air.transmit(a, PKT);
    clock.advance(20);
    air.transmit(b, PKT);
    clock.advance(200);
    expect(gw.got).toHaveLength(0);
    expect(air.stats.collisions).toBeGreaterThanOrEqual(2);
  });

  it('capture: a packet ≥ 6 dB stronger survives the overlap', () => {
    const { clock, air, gw, add } = world();
    const strong = add('AAAAAA', { rssi: -60, snr: 10 });
    const weak = add('BBBBBB', { rssi: -90, snr: 5 });
    air.transmit(weak, PKT);
    clock.advance(10);
    air.transmit(strong, Uint8Array.from([1, ...PKT.subarray(1)]));
    clock.advance(200);
    expect(gw.got.map((g) => g.bytes[0])).toEqual([1]);
  });

  it('a receiver that stops listening mid-packet loses it; one that starts late never locks on', () => {
    const { clock, air, add } = world();
    const a = add('AAAAAA', { rssi: -70, snr: 9 });
    const b = add('BBBBBB', { rssi: -70, snr: 9 });
    const c = add('CCCCCC', { rssi: -70, snr: 9 });
    c.listening = false;
    air.transmit(a, PKT);
    clock.advance(10);
    b.deafen();
    c.listening = true;
    clock.advance(100);
    expect(b.got).toHaveLength(0);
    expect(c.got).toHaveLength(0);
    expect(air.stats.deafDrops).toBe(1);
  });

  it('different channel (frequency or sync word) hears nothing and does not collide', () => {
    const { clock, air, gw, add } = world();
    const a = add('AAAAAA', { rssi: -70, snr: 9 });
    const other = add('BBBBBB', { rssi: -70, snr: 9 });
    other.rf = { ...DEFAULT_RF, freqHz: 868_200_000 };
    air.transmit(a, PKT);
    air.transmit(other, PKT);
    clock.advance(100);
    expect(gw.got).toHaveLength(1);
    expect(other.got).toHaveLength(0);
  });

  it('drops packets below the SNR floor of the spreading factor', () => {
    const { clock, air, gw, add } = world();
    const a = add('AAAAAA', { rssi: -120, snr: -12 });
    air.transmit(a, PKT);
    clock.advance(100);
    expect(gw.got).toHaveLength(0);
    expect(air.stats.snrDrops).toBe(1);
  });

  it('loss rate drops packets per receiver', () => {
    const { clock, air, gw, add } = world();
    const a = add('AAAAAA', { rssi: -70, snr: 9 });
    air.lossRate = 0.5;
    for (let i = 0; i < 200; i++) {
      air.transmit(a, PKT);
      clock.advance(100);
    }
    expect(gw.got.length).toBeGreaterThan(60);
    expect(gw.got.length).toBeLessThan(140);
    expect(air.stats.lossDrops).toBe(200 - gw.got.length);
  });

  it('CAD sees a transmission in progress, but not one that starts in the last half of the window', () => {
    const { clock, air, add } = world();
    const a = add('AAAAAA', { rssi: -70, snr: 9 });
    const b = add('BBBBBB', { rssi: -70, snr: 9 });
    const now = clock.now();
    expect(air.channelBusy(b, now, now + 4)).toBe(false);
    air.transmit(a, PKT);
    expect(air.channelBusy(b, now, now + 4)).toBe(true);
    expect(air.channelBusy(b, now - 4, now)).toBe(false);
    clock.advance(airtimeMs(DEFAULT_RF, 16) + 1);
    expect(air.channelBusy(b, clock.now(), clock.now() + 4)).toBe(false);
  });

  it('node-to-node links are weaker than either node to the gateway', () => {
    const { air, add } = world();
    add('AAAAAA', { rssi: -60, snr: 10 });
    add('BBBBBB', { rssi: -80, snr: 6 });
    expect(air.pairQuality('AAAAAA', '102030').rssi).toBe(-60);
    expect(air.pairQuality('AAAAAA', 'BBBBBB').rssi).toBeLessThan(-70);
    air.setPairQuality('AAAAAA', 'BBBBBB', { rssi: -40, snr: 12 });
    expect(air.pairQuality('BBBBBB', 'AAAAAA').rssi).toBe(-40);
  });
});
