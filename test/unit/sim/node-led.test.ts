import { describe, expect, it } from 'vitest';
import { LedEngine } from '../../../src/sim/node/led.ts';
import { SimScheduler } from '../../../src/sim/scheduler.ts';
import { FLAG } from '../../../src/protocol/flags.ts';
import type { OffsetConfig } from '../../../src/protocol/types.ts';
import { ManualClock } from './manual-clock.ts';

const ON = FLAG.POWER_ON | FLAG.HAS_BRI;
const ARM = FLAG.ARM_ON_SYNC;
const OFS = FLAG.OFFSET_MODE;
const LINEAR_200: OffsetConfig = { mode: 'LINEAR', baseMs: 0, stepMs: 200 };

function engine(group = 3): { led: LedEngine; clock: ManualClock } {
  const clock = new ManualClock();
  const sched = new SimScheduler(clock);
  const led = new LedEngine({
    now: () => sched.now(),
    localMs: () => sched.now() - 1_000_000,
    groupId: () => group,
    briS: () => 128,
    schedule: (ms, fn) => sched.after(ms, fn),
  });
  return { led, clock };
}

describe('node LED engine: offset gate (§8.11.1)', () => {
  it.each([
    ['OFFSET_MODE set, offset active → accept', OFS | ON, LINEAR_200, true],
    ['OFFSET_MODE clear, no offset → accept', ON, null, true],
    ['OFFSET_MODE set, no offset → drop', OFS | ON, null, false],
    ['OFFSET_MODE clear, offset pending → drop', ON, LINEAR_200, false],
  ] as const)('%s', (_name, flags, offset, accepted) => {
    const { led } = engine();
    if (offset) led.offset(offset);
    expect(led.control(flags, { brightness: 77 })).toBe(accepted);
    expect(led.bri).toBe(accepted ? 77 : 128);
  });

  it('PRESET is gated the same way and materialises the pending offset', () => {
    const { led } = engine();
    led.offset(LINEAR_200);
    expect(led.preset(0x05, 12, 255)).toBe(false);
    expect(led.preset(OFS, 12, 255)).toBe(true);
    expect(led.active).toEqual(LINEAR_200);
    expect(led.pending).toBeNull();
    expect(led.seg.mode).toBe(12);
    expect(led.bri).toBe(255);
    expect(led.phaseOffsetMs).toBe(600);
    // PRESET does not touch current.flags (apart from bit 0 following bri).
    expect(led.flags & ~FLAG.POWER_ON).toBe(0);
  });

  it('an immediate CONTROL does not materialise; its phase offset comes from the active config', () => {
    const { led } = engine();
    led.offset(LINEAR_200);
    expect(led.control(OFS | ON, { mode: 9 })).toBe(true);
    expect(led.pending).toEqual(LINEAR_200);
    expect(led.active).toEqual({ mode: 'NONE' });
    expect(led.phaseOffsetMs).toBe(0);
    expect(led.seg.mode).toBe(9);
  });
});

describe('node LED engine: armed CONTROL and SYNC (§8.11.3, §8.11.4)', () => {
  it('an armed CONTROL changes nothing until a trigger SYNC; 4-byte SYNC does not fire it', () => {
    const { led } = engine();
    expect(led.control(ARM | ON, { brightness: 200, mode: 5 })).toBe(true);
    expect(led.bri).toBe(128);
    expect(led.armed?.offsetMs).toBe(0);
    led.sync(0x1000, 50, undefined);
    expect(led.armed).not.toBeNull();
    led.sync(0x1100, 50, 0x01);
    expect(led.armed).toBeNull();
    expect(led.bri).toBe(200);
    expect(led.seg.mode).toBe(5);
  });

  it('fires after the per-group offset and materialises the pending OFFSET', () => {
    const { led, clock } = engine(3);
    led.offset(LINEAR_200);
    led.control(ARM | OFS | ON, { brightness: 90 });
    expect(led.armed?.offsetMs).toBe(600);
    led.sync(0x2000, 0, 0x01);
    expect(led.active).toEqual(LINEAR_200);
    expect(led.phaseOffsetMs).toBe(600);
    clock.advance(599);
    expect(led.bri).toBe(128);
    clock.advance(1);
    expect(led.bri).toBe(90);
  });

  it('a new armed CONTROL cancels a deferred apply', () => {
    const { led, clock } = engine(3);
    led.offset(LINEAR_200);
    led.control(ARM | OFS | ON, { brightness: 90 });
    led.sync(0x2000, 0, 0x01);
    led.control(ARM | OFS | ON, { brightness: 10 });
    clock.advance(1000);
    expect(led.bri).toBe(128);
  });

  it('POWER_ON without HAS_BRI takes the SYNC brightness when fired', () => {
    const { led } = engine();
    led.control(ARM | FLAG.POWER_ON, { mode: 2 });
    led.sync(1, 33, 0x01);
    expect(led.bri).toBe(33);
  });

  it('plain SYNC adopts its brightness only after a CONTROL without HAS_BRI', () => {
    const { led } = engine();
    led.sync(1, 10, undefined);
    expect(led.bri).toBe(128);
    led.control(ON, { brightness: 150 });
    led.sync(2, 10, undefined);
    expect(led.bri).toBe(150);
    led.control(FLAG.POWER_ON, { mode: 1 });
    led.sync(3, 10, undefined);
    expect(led.bri).toBe(10);
    led.control(0, {});
    expect(led.bri).toBe(0);
    led.sync(4, 99, undefined);
    expect(led.bri).toBe(0);
  });

  it('PRESET leaves an armed CONTROL queued', () => {
    const { led } = engine();
    led.control(ARM | ON, { brightness: 200 });
    led.preset(0, 3, 40);
    expect(led.armed).not.toBeNull();
    expect(led.bri).toBe(40);
  });

  it('timebase: hard set first, then slewed by at most 15 ms per SYNC', () => {
    const { led, clock } = engine();
    led.sync(5000, 0, undefined);
    const tb = led.timebaseMs ?? 0;
    clock.advance(1000);
    led.sync(6000 + 100, 0, undefined);
    expect(led.timebaseMs).toBe(tb + 15);
    clock.advance(1000);
    led.sync(7000 + 100 + 500, 0, undefined);
    expect(led.timebaseMs).toBe(tb + 600);
    expect(led.syncCount).toBe(3);
  });

  it('timebase unwraps the 24-bit stamp across a wrap', () => {
    const { led, clock } = engine();
    led.sync(0xffff00, 0, undefined);
    const tb = led.timebaseMs ?? 0;
    clock.advance(0x200);
    led.sync(0x000100, 0, undefined);
    expect(led.timebaseMs).toBe(tb);
  });
});

describe('node LED engine: indicators and headless scenes (§8.14)', () => {
  it('INDICATE overlays for its duration; CONTROL/PRESET cancel it, SYNC and OFFSET do not', () => {
    const { led, clock } = engine();
    led.indicate(4, 5);
    expect(led.activeIndicator()?.name).toBe('IDENTIFY');
    led.sync(1, 0, undefined);
    led.offset({ mode: 'NONE' });
    expect(led.activeIndicator()).not.toBeNull();
    clock.advance(5000);
    expect(led.activeIndicator()).toBeNull();
    led.indicate(1, 9);
    led.control(ON, { brightness: 1 });
    expect(led.activeIndicator()).toBeNull();
    led.indicate(1, 9);
    led.indicate(1, 0);
    expect(led.activeIndicator()).toBeNull();
    led.indicate(42, 9);
    expect(led.activeIndicator()).toBeNull();
  });

  it('HEADLESS scenes: brightness 0 means briS; All Off; unknown ignored', () => {
    const { led } = engine(2);
    led.headless(1, 0);
    expect(led.seg.colors[0]).toEqual([255, 0, 0]);
    expect(led.bri).toBe(128);
    led.headless(0, 77);
    expect(led.seg.mode).toBe(3);
    expect(led.phaseOffsetMs).toBe(800);
    led.headless(3, 200);
    expect(led.bri).toBe(0);
    led.headless(9, 200);
    expect(led.bri).toBe(0);
  });
});
