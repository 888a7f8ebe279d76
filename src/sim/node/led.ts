/**
 * The visible side of a node (§8.10, §8.11, §8.14): WLED brightness and main segment, the
 * offset configuration with its acceptance gate and materialisation rules, armed CONTROLs
 * fired by a trigger SYNC, the SYNC timebase and brightness rules, indicator overlays and
 * headless scenes. Addressing (receiver, sender and group filters) is done by the caller.
 */
import type { ControlFields, OffsetConfig, Rgb } from '../../protocol/types.ts';
import { FLAG } from '../../protocol/flags.ts';
import { computeOffsetMs } from '../../protocol/packets.ts';
import type { SimTimer } from '../scheduler.ts';

export interface SegmentState {
  mode: number;
  speed: number;
  intensity: number;
  custom1: number;
  custom2: number;
  custom3: number;
  check1: boolean;
  check2: boolean;
  check3: boolean;
  palette: number;
  colors: [Rgb, Rgb, Rgb];
}

export interface ArmedControl {
  flags: number;
  fields: ControlFields;
  offsetMs: number;
}

export interface IndicatorState {
  type: number;
  name: string;
  until: number;
}

/** WLED's default boot colour (orange) — what headless scene 4 restores. */
export const BOOT_COLOR: Rgb = [255, 160, 0];

/** Indicator catalog of node v0.1.14 (§6.12). */
export const INDICATORS: readonly string[] = [
  'PAIR_CONFIRMED',
  'PROBE_REJECTED',
  'HEADLESS_ENTER',
  'HEADLESS_EXIT',
  'IDENTIFY',
  'PAIRING_TX',
  'AP_ENABLED',
  'AP_DISABLED',
  'ACTION_LOCKED',
];
export const IND = { PAIR_CONFIRMED: 0, AP_ENABLED: 6, AP_DISABLED: 7 } as const;

const NONE: OffsetConfig = { mode: 'NONE' };
const SYNC_WRAP = 1 << 24;
const HARD_SYNC_ERROR_MS = 200;
const SLEW_MS = 15;

export function defaultSegment(): SegmentState {
  return {
    mode: 0,
    speed: 128,
    intensity: 128,
    custom1: 128,
    custom2: 128,
    custom3: 16,
    check1: false,
    check2: false,
    check3: false,
    palette: 0,
    colors: [BOOT_COLOR, [0, 0, 0], [0, 0, 0]],
  };
}

export interface LedHost {
  now(): number;
  /** Node-local millis since boot. */
  localMs(): number;
  groupId(): number;
  briS(): number;
  schedule(ms: number, fn: () => void): SimTimer;
}

export class LedEngine {
  bri: number;
  /** `current.flags`: the last accepted CONTROL's flags, bit 0 re-derived as bri > 0. */
  flags = 0;
  seg: SegmentState = defaultSegment();
  presetId = 0;
  active: OffsetConfig = NONE;
  pending: OffsetConfig | null = null;
  armed: ArmedControl | null = null;
  phaseOffsetMs = 0;
  controlSeen = false;
  indicator: IndicatorState | null = null;
  /** Effect timebase (master clock − local clock − phase offset), null before the first SYNC. */
  timebaseMs: number | null = null;
  syncCount = 0;
  applyCount = 0;
  lastApply: { tt0: boolean; reapply: boolean; at: number } | null = null;
  private lastMaster32: number | null = null;
  private lastSyncLocal = 0;
  private deferred: SimTimer | null = null;
  /** When a fired armed effect with an offset will apply (virtual ms), null if none waits. */
  private deferredAt: number | null = null;

  constructor(private readonly host: LedHost) {
    this.bri = host.briS();
    this.deriveFlagsPower();
  }

  /** Cancels timers (reboot). */
  dispose(): void {
    this.deferred?.cancel();
    this.deferred = null;
  }

  /** Virtual time at which a fired, offset-delayed effect applies; null when none is waiting. */
  get deferredApplyAt(): number | null {
    return this.deferred ? this.deferredAt : null;
  }

  get effectiveOffset(): OffsetConfig {
    return this.pending ?? this.active;
  }

  /** §8.11.1: OFFSET_MODE in the packet must match whether an offset is in effect. */
  passesGate(flags: number): boolean {
    return ((flags & FLAG.OFFSET_MODE) !== 0) === (this.effectiveOffset.mode !== 'NONE');
  }

  setBrightness(v: number): void {
    this.bri = v;
    this.deriveFlagsPower();
  }

  startIndicator(type: number, durationSec: number): void {
    const name = INDICATORS[type];
    if (name === undefined) return;
    this.indicator = { type, name, until: this.host.now() + durationSec * 1000 };
  }

  cancelIndicator(): void {
    this.indicator = null;
  }

  activeIndicator(): IndicatorState | null {
    return this.indicator && this.indicator.until > this.host.now() ? this.indicator : null;
  }

  /** OPC_INDICATE (§8.14): duration 0 cancels, unknown types are ignored. */
  indicate(type: number, durationSec: number): void {
    if (durationSec === 0) this.cancelIndicator();
    else this.startIndicator(type, durationSec);
  }

  /** OPC_OFFSET (§8.11.2): stored as pending, overwriting any earlier pending change. */
  offset(cfg: OffsetConfig): void {
    this.pending = cfg;
  }

  /** OPC_PRESET after the group filter (§8.10). Returns false if the gate drops it. */
  preset(flags: number, presetId: number, brightness: number): boolean {
    if (!this.passesGate(flags)) return false;
    this.materialise();
    this.cancelIndicator();
    // No WLED preset files exist in the simulator: preset n shows effect n.
    if (presetId > 0) {
      this.presetId = presetId;
      this.seg.mode = presetId;
    }
    this.setBrightness(brightness);
    this.phaseOffsetMs = flags & FLAG.OFFSET_MODE ? computeOffsetMs(this.active, this.host.groupId()) : 0;
    this.controlSeen = true;
    return true;
  }

  /** OPC_CONTROL after parsing and the group filter (§8.11.3). Returns false if gated. */
  control(flags: number, fields: ControlFields): boolean {
    if (!this.passesGate(flags)) return false;
    this.flags = flags;
    this.cancelIndicator();
    this.controlSeen = true;
    this.deferred?.cancel();
    this.deferred = null;
    const offsetMode = (flags & FLAG.OFFSET_MODE) !== 0;
    if (flags & FLAG.ARM_ON_SYNC) {
      const offsetMs = offsetMode ? computeOffsetMs(this.effectiveOffset, this.host.groupId()) : 0;
      this.armed = { flags, fields: { ...fields }, offsetMs };
      return true;
    }
    // Firmware quirk (§8.11.2): an immediate CONTROL does not materialise a pending offset,
    // and its phase offset comes from the still-active config.
    this.apply(fields, flags, undefined);
    this.armed = null;
    this.phaseOffsetMs = offsetMode ? computeOffsetMs(this.active, this.host.groupId()) : 0;
    return true;
  }

  /** OPC_SYNC (§8.11.4). */
  sync(ts24: number, syncBri: number, syncFlags: number | undefined): void {
    this.syncTimebase(ts24);
    const fire = syncFlags !== undefined && (syncFlags & 0x01) !== 0;
    const armed = this.armed;
    if (fire && armed) {
      this.materialise();
      this.armed = null;
      this.phaseOffsetMs = armed.offsetMs;
      const usesSyncBri = (armed.flags & FLAG.POWER_ON) !== 0 && (armed.flags & FLAG.HAS_BRI) === 0;
      const run = (): void => this.apply(armed.fields, armed.flags, usesSyncBri ? syncBri : undefined);
      this.deferred?.cancel();
      this.deferred = null;
      if (armed.offsetMs === 0) run();
      else {
        this.deferredAt = this.host.now() + armed.offsetMs;
        this.deferred = this.host.schedule(armed.offsetMs, () => {
          this.deferred = null;
          run();
        });
      }
      return;
    }
    if (this.controlSeen && (this.flags & FLAG.HAS_BRI) === 0) {
      this.setBrightness(this.flags & FLAG.POWER_ON ? syncBri : 0);
    }
  }

  /** OPC_HEADLESS catalog (§6.11); unknown scenes are ignored. */
  headless(sceneId: number, brightness: number): void {
    const bri = brightness === 0 ? this.host.briS() : brightness;
    const white: Rgb = [255, 255, 255];
    switch (sceneId) {
      case 0:
        this.seg.mode = 3;
        this.seg.colors[0] = white;
        this.phaseOffsetMs = computeOffsetMs({ mode: 'LINEAR', baseMs: 0, stepMs: 400 }, this.host.groupId());
        this.setBrightness(bri);
        return;
      case 1:
      case 2:
      case 4:
        this.seg.mode = 0;
        this.seg.colors[0] = sceneId === 1 ? [255, 0, 0] : sceneId === 2 ? [0, 255, 0] : BOOT_COLOR;
        this.setBrightness(bri);
        return;
      case 3:
        this.setBrightness(0);
        return;
      default:
        return;
    }
  }

  private materialise(): void {
    if (this.pending) {
      this.active = this.pending;
      this.pending = null;
    }
  }

  private apply(f: ControlFields, flags: number, syncBri: number | undefined): void {
    const s = this.seg;
    if (f.mode !== undefined) s.mode = f.mode;
    if (f.speed !== undefined) s.speed = f.speed;
    if (f.intensity !== undefined) s.intensity = f.intensity;
    if (f.custom1 !== undefined) s.custom1 = f.custom1;
    if (f.custom2 !== undefined) s.custom2 = f.custom2;
    if (f.custom3 !== undefined) s.custom3 = f.custom3;
    if (f.check1 !== undefined) s.check1 = f.check1;
    if (f.check2 !== undefined) s.check2 = f.check2;
    if (f.check3 !== undefined) s.check3 = f.check3;
    if (f.palette !== undefined) s.palette = f.palette;
    if (f.color1) s.colors[0] = f.color1;
    if (f.color2) s.colors[1] = f.color2;
    if (f.color3) s.colors[2] = f.color3;
    if ((flags & FLAG.POWER_ON) === 0) this.setBrightness(0);
    else if (flags & FLAG.HAS_BRI && f.brightness !== undefined) this.setBrightness(f.brightness);
    else if (syncBri !== undefined) this.setBrightness(syncBri);
    else this.deriveFlagsPower();
    this.applyCount++;
    this.lastApply = {
      tt0: (flags & FLAG.FORCE_TT0) !== 0,
      reapply: (flags & FLAG.FORCE_REAPPLY) !== 0,
      at: this.host.now(),
    };
  }

  private syncTimebase(ts24: number): void {
    const local = this.host.localMs();
    let master32: number;
    if (this.lastMaster32 === null) master32 = ts24;
    else {
      const expected = this.lastMaster32 + (local - this.lastSyncLocal);
      // Nearest value congruent to ts24 modulo 2^24 (unwrap within ±2^23 ms).
      master32 = ts24 + SYNC_WRAP * Math.round((expected - ts24) / SYNC_WRAP);
    }
    this.lastMaster32 = master32;
    this.lastSyncLocal = local;
    this.syncCount++;
    const desired = master32 - local - this.phaseOffsetMs;
    if (this.timebaseMs === null || this.armed || Math.abs(desired - this.timebaseMs) > HARD_SYNC_ERROR_MS) {
      this.timebaseMs = desired;
    } else {
      const err = desired - this.timebaseMs;
      this.timebaseMs += Math.max(-SLEW_MS, Math.min(SLEW_MS, err));
    }
  }

  /** Flags bit 0 follows `bri > 0` on every state change. */
  private deriveFlagsPower(): void {
    this.flags = (this.flags & ~FLAG.POWER_ON) | (this.bri > 0 ? FLAG.POWER_ON : 0);
  }
}
