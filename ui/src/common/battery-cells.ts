/**
 * Battery judged per cell: the pack size is inferred from the voltage (Li-ion/LiPo,
 * 1S/2S/3S/4S/6S), then the per-cell voltage is compared with the warning level. A 1S
 * node at 3.9 V is fine; a 6S pack at 19.8 V (3.3 V/cell) is low. Pure, unit-tested;
 * the device table, the alert list and the CSV export all use this one function.
 */
import { DEFAULT_BATTERY, type BatteryThresholds, type Level } from '../format.ts';

/** Pack sizes the fleet uses; a voltage between two sizes is read as the larger pack. */
export const PACK_CELLS = [1, 2, 3, 4, 6] as const;
/** Highest plausible cell voltage (LiHV full charge plus reading error). */
const MAX_CELL_V = 4.4;
/** Below the warning level by this much per cell is critical. */
const BAD_MARGIN_PER_CELL_V = 0.1;

export interface BatteryState {
  /** Inferred cells in series; 0 when no voltage is reported. */
  cells: number;
  /** Volts per cell (0 when not reported). */
  perCellV: number;
  level: Level;
}

/** Cells in series for a pack reading `mV` (0 for no reading). */
export function packCells(mV: number): number {
  if (!(mV > 0)) return 0;
  const v = mV / 1000;
  for (const n of PACK_CELLS) if (v <= n * MAX_CELL_V) return n;
  return 6;
}

/**
 * Per-cell warning level from the stored thresholds (2S and 6S pack voltages, as the
 * Settings dialog keeps them): 6S packs use the 6S value, every other size the 2S one.
 */
export function warnPerCell(cells: number, t: BatteryThresholds = DEFAULT_BATTERY): number {
  return cells >= 6 ? t.warn6s / 6 : t.warn2s / 2;
}

export function batteryState(mV: number, t: BatteryThresholds = DEFAULT_BATTERY): BatteryState {
  const cells = packCells(mV);
  if (cells === 0) return { cells: 0, perCellV: 0, level: 'none' };
  const perCellV = mV / 1000 / cells;
  const warn = warnPerCell(cells, t);
  const level: Level = perCellV < warn - BAD_MARGIN_PER_CELL_V ? 'bad' : perCellV < warn ? 'warn' : 'good';
  return { cells, perCellV, level };
}
