/** Shared bits of bench/networks*.ts: the scenarios, a clock wait and the table printer. */
import type { SteppedClock } from '../src/clock.ts';
import type { SimFleet } from '../src/sim/fleet.ts';

export interface Scenario {
  label: string;
  gateways: number;
  sameChannel: boolean;
}

/**
 * Common random numbers: a measured phase starts every random stream of the simulated air
 * and nodes from a state derived from (seed, phase) only, whatever the phases before it drew,
 * so each fleet layout meets the same draws per node and a change of timing in one phase does
 * not re-roll the next. `chained` (the old method) leaves the streams running on.
 */
export function restartRandom(fleets: readonly SimFleet[], phase: string, chained: boolean): void {
  if (chained) return;
  for (const f of fleets) f.restartRandom(phase);
}

export async function waitUntil(clock: SteppedClock, pred: () => boolean, maxMs: number): Promise<boolean> {
  const end = clock.now() + maxMs;
  while (!pred()) {
    if (clock.now() >= end) return false;
    await clock.sleep(100);
  }
  return true;
}

export function printTable(title: string, rows: string[][]): void {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length))) ?? [];
  console.log(`\n${title}`);
  rows.forEach((r, i) => {
    console.log(r.map((cell, c) => cell.padStart(widths[c] ?? 0)).join('  '));
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  });
}
