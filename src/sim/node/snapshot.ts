/** A read-only copy of a simulated node's state, for tests, diagnostics and the UI. */
import type { Addr, ControlFields, OffsetConfig, RfConfig } from '../../protocol/types.ts';
import type { RadioMode, RadioStats } from './radio.ts';
import type { SegmentState } from './led.ts';
import type { Overrides, StartblockRecord } from './config.ts';
import type { NodeState } from './types.ts';

export interface NodeSnapshot {
  addr: Addr;
  mac: string;
  devType: number;
  powered: boolean;
  radioMode: RadioMode;
  silenced: boolean;
  rf: RfConfig;
  groupId: number;
  master: Addr | null;
  macFilterEnabled: boolean;
  macFilterPersist: boolean;
  apActive: boolean;
  configByte: number;
  /** Live WLED brightness. */
  bri: number;
  /** `current.flags` (bit 0 follows bri > 0). */
  flags: number;
  effectMode: number;
  presetId: number;
  segment: SegmentState;
  overrides: Overrides;
  offset: { active: OffsetConfig; pending: OffsetConfig | null };
  armed: { flags: number; fields: ControlFields; offsetMs: number } | null;
  /** A fired armed effect waiting for its offset: when it applies (virtual ms), else null. */
  deferredApplyAt: number | null;
  phaseOffsetMs: number;
  controlSeen: boolean;
  indicator: { type: number; name: string; remainingMs: number } | null;
  startblock: { slots: number; firstSlot: number; display: Record<number, StartblockRecord> } | null;
  vbatMv: number;
  lastRssi: number;
  lastSnr: number;
  rebootCount: number;
  syncCount: number;
  timebaseMs: number | null;
  applyCount: number;
  /** The last effect apply; `at` is virtual ms (same time base as the clock). */
  lastApply: { tt0: boolean; reapply: boolean; at: number } | null;
  radioStats: RadioStats;
  persisted: { master: Addr | null; macFilterEnabled: boolean; macFilterPersist: boolean; rf: RfConfig };
}

const clone = <T>(v: T): T => structuredClone(v);

export function buildSnapshot(n: NodeState, now: number): NodeSnapshot {
  const led = n.led;
  const ind = led.activeIndicator();
  const p = n.persistedView();
  return {
    addr: n.addr,
    mac: n.mac,
    devType: n.devType,
    powered: n.isPowered,
    radioMode: n.radio.mode,
    silenced: n.radio.silenced,
    rf: { ...n.radio.rf },
    groupId: n.groupId,
    master: n.master,
    macFilterEnabled: n.macFilterEnabled,
    macFilterPersist: n.macFilterPersist,
    apActive: n.apActive,
    configByte: n.configByte,
    bri: led.bri,
    flags: led.flags,
    effectMode: led.seg.mode,
    presetId: led.presetId,
    segment: clone(led.seg),
    overrides: p.overrides,
    offset: { active: clone(led.active), pending: led.pending ? clone(led.pending) : null },
    armed: led.armed ? clone(led.armed) : null,
    deferredApplyAt: led.deferredApplyAt,
    phaseOffsetMs: led.phaseOffsetMs,
    controlSeen: led.controlSeen,
    indicator: ind ? { type: ind.type, name: ind.name, remainingMs: Math.max(0, ind.until - now) } : null,
    startblock: n.startblock
      ? {
          slots: n.startblock.slots,
          firstSlot: n.startblock.firstSlot,
          display: Object.fromEntries([...n.startblockDisplay].map(([k, v]) => [k, { ...v }])),
        }
      : null,
    vbatMv: n.vbatMv,
    lastRssi: n.lastRssi,
    lastSnr: n.lastSnr,
    rebootCount: n.rebootCount,
    syncCount: led.syncCount,
    timebaseMs: led.timebaseMs,
    applyCount: led.applyCount,
    lastApply: led.lastApply ? { ...led.lastApply } : null,
    radioStats: { ...n.radio.stats },
    persisted: {
      master: p.master,
      macFilterEnabled: p.macFilterEnabled,
      macFilterPersist: p.macFilterPersist,
      rf: p.rf,
    },
  };
}
