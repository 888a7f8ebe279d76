/** Shared bits of bench/networks*.ts: the scenarios, a clock wait and the table printer. */
import type { SteppedClock } from '../src/clock.ts';

export interface Scenario {
  label: string;
  gateways: number;
  sameChannel: boolean;
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
