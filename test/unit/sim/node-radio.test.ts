import { describe, expect, it } from 'vitest';
import { Air } from '../../../src/sim/air.ts';
import { NodeRadio } from '../../../src/sim/node/radio.ts';
import { SimScheduler } from '../../../src/sim/scheduler.ts';
import { DEFAULT_RF } from '../../../src/protocol/types.ts';
import { Prng } from '../../../src/util/prng.ts';
import { HubRadio } from './fixtures.ts';
import { ManualClock } from './manual-clock.ts';

function setup(): { clock: ManualClock; sched: SimScheduler; air: Air; gw: HubRadio; radio: NodeRadio } {
  const clock = new ManualClock();
  const sched = new SimScheduler(clock);
  const air = new Air(sched, new Prng(1));
  const gw = new HubRadio('102030');
  air.registerHub(gw);
  const radio = new NodeRadio('AABBCC', DEFAULT_RF, air, sched, new Prng(2));
  air.register(radio, { rssi: -60, snr: 10 });
  radio.start();
  return { clock, sched, air, gw, radio };
}

const PKT = Uint8Array.from([0xaa, 0xbb, 0xcc, 0x10, 0x20, 0x30, 0xfe, 2, 0, 0]);

describe('node radio: reply slot with listen-before-talk (§8.5)', () => {
  it('is deaf from queueing until the end of its TX, which starts 50..300 ms later', () => {
    const { clock, air, radio } = setup();
    const starts: number[] = [];
    air.events.on('tx', (t) => starts.push(t.start));
    const t0 = clock.now();
    expect(radio.queue(PKT)).toBe(true);
    expect(radio.isListening()).toBe(false);
    clock.advance(49);
    expect(starts).toHaveLength(0);
    clock.advance(300);
    expect(starts).toHaveLength(1);
    const delay = (starts[0] ?? 0) - t0;
    expect(delay).toBeGreaterThanOrEqual(50 + 4.096);
    expect(delay).toBeLessThanOrEqual(300 + 4.096);
    clock.advance(100);
    expect(radio.isListening()).toBe(true);
    expect(radio.stats.repliesSent).toBe(1);
  });

  it('drops a second reply while the slot is taken', () => {
    const { clock, radio } = setup();
    expect(radio.queue(PKT)).toBe(true);
    expect(radio.queue(PKT)).toBe(false);
    clock.advance(500);
    expect(radio.stats).toMatchObject({ repliesQueued: 1, repliesSent: 1, repliesDropped: 1 });
  });

  it('backs off 100..200 ms while the channel is busy and gives up after 5 s', () => {
    const { clock, sched, air, radio } = setup();
    const jammer = new HubRadio('EEEEEE');
    air.register(jammer, { rssi: -50, snr: 10 });
    // Keep the channel busy for 6 s with back-to-back long packets.
    const jam = (): void => {
      air.transmit(jammer, new Uint8Array(60), () => sched.now() - t0 < 6000 && jam());
    };
    const t0 = clock.now();
    sched.runExternal(jam);
    radio.queue(PKT);
    clock.advance(6000);
    expect(radio.stats.cadBusy).toBeGreaterThan(20);
    expect(radio.stats.repliesAbandoned).toBe(1);
    expect(radio.stats.repliesSent).toBe(0);
    expect(radio.slotBusy).toBe(false);
  });

  it('a silenced radio drops its queued reply and refuses new ones', () => {
    const { clock, radio } = setup();
    radio.queue(PKT);
    radio.silence(true);
    expect(radio.queue(PKT)).toBe(false);
    clock.advance(1000);
    expect(radio.stats.repliesSent).toBe(0);
    radio.silence(false);
    expect(radio.isListening()).toBe(true);
  });
});
