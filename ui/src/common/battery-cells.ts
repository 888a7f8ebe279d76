/**
 * Battery judged per cell: the pack size is inferred from the voltage (the smallest
 * usual pack whose cells would not read above 4.35 V: 1S/2S/3S/4S/6S), then the volts
 * per cell are compared with one per-cell warning level. A 1S node at 3.9 V is fine; a
 * 6S pack at 19.8 V (3.3 V/cell) is low. Pure, unit-tested; the health table, the alert
 * list, the CSV export and the device detail all judge batteries through this.
 *
 * The one home of the rule (the device table, its dialogs and the health views all judge
 * through here); `warnPerCellOf` is the one place that reads the stored thresholds.
 */
import type { BatteryThresholds } from '../../../src/domain/console-settings.ts';
import type { Level } from '../format.ts';

/** Pack sizes seen on gates and start blocks (5S is rare; it reads as a full 4S or an empty 6S). */
const PACKS = [1, 2, 3, 4, 6];
/** A LiPo cell never reads above this (HV cells charge to 4.35 V). */
const CELL_MAX_V = 4.35;
/** Below the warning level by this much per cell is critical. */
const BAD_MARGIN_PER_CELL_V = 0.1;
/** The host's default too (src/domain/console-settings.ts); shown until its settings arrive. */
export const DEFAULT_WARN_PER_CELL_V = 3.4;

/** Warn below `warnPerCell` volts per cell, "bad" 0.1 V lower: one fleet setting on the host. */
export type { BatteryThresholds } from '../../../src/domain/console-settings.ts';
export const DEFAULT_BATTERY: BatteryThresholds = { warnPerCell: DEFAULT_WARN_PER_CELL_V };

export interface BatteryState {
  /** Inferred cells in series; 0 when no voltage is reported. */
  cells: number;
  /** Volts per cell (0 when not reported). */
  perCellV: number;
  level: Level;
}

/** Cells in series judged from the voltage (3.3–4.2 V → 1S, 7.6 V → 2S, 22.8 V → 6S); 0 mV → 0. */
export function cellCount(mV: number): number {
  if (!mV) return 0;
  const v = mV / 1000;
  return PACKS.find((n) => v / n <= CELL_MAX_V) ?? 6;
}

/** The per-cell warning level from the fleet's thresholds (⚙ Settings, shared by every browser). */
export function warnPerCellOf(t: BatteryThresholds): number {
  return t.warnPerCell;
}

export function batteryState(mV: number, warnPerCell = DEFAULT_WARN_PER_CELL_V): BatteryState {
  const cells = cellCount(mV);
  if (cells === 0) return { cells: 0, perCellV: 0, level: 'none' };
  const perCellV = mV / 1000 / cells;
  const level: Level =
    perCellV < warnPerCell - BAD_MARGIN_PER_CELL_V ? 'bad' : perCellV < warnPerCell ? 'warn' : 'good';
  return { cells, perCellV, level };
}

/** The level alone, for the device table and its dialogs. */
export function batteryLevel(mV: number, t: BatteryThresholds = DEFAULT_BATTERY): Level {
  return batteryState(mV, t.warnPerCell).level;
}
