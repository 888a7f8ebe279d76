/**
 * Radio-efficiency benchmark: for a corpus of race-day scenes, the packets, bytes and
 * airtime of the original host's straightforward plan against ours (decisions §11), both
 * from the same dispatch planner (optimizations off / on) and priced by the same cost
 * estimator at SF7 / 125 kHz. Prints a table; asserts nothing.
 *
 *   npm run bench:radio
 *
 * Fleet: 24 LED gates in groups 1..12 (two per group); native presets saved by an editor
 * that stores all 14 fields (as the original's does).
 */
import { fullPresetParams, resolvePresetRef, type NativePreset } from '../src/domain/scenes/native-preset.ts';
import { validateSceneActions } from '../src/domain/scenes/validation.ts';
import { estimateCost, loraInfo } from '../src/services/scenes/cost-estimator.ts';
import type { PlanDevice } from '../src/services/scenes/plan/planner.ts';
import { planScene } from '../src/services/scenes/plan/scene.ts';
import { DEFAULT_RF } from '../src/protocol/types.ts';
import { CORPUS } from './radio-corpus.ts';

const GROUPS = 12;
const devices: PlanDevice[] = [];
for (let g = 1; g <= GROUPS; g++) {
  for (let k = 0; k < 2; k++) {
    const addr = `A0${g.toString(16).padStart(2, '0')}0${k}`.toUpperCase();
    devices.push({ addr, groupId: g, groupPending: false, brightness: 128, startblock: null });
  }
}

const full = (
  id: number,
  key: string,
  mode: number,
  color1: [number, number, number],
  flags: number,
): NativePreset => ({
  id,
  key,
  label: key,
  created: '2026-01-01T00:00:00Z',
  updated: '2026-01-01T00:00:00Z',
  params: fullPresetParams({
    mode,
    speed: 128,
    intensity: 128,
    custom1: 0,
    custom2: 0,
    custom3: 0,
    check1: false,
    check2: false,
    check3: false,
    palette: 0,
    color1,
    color2: [0, 0, 0],
    color3: [0, 0, 0],
    brightness: 220,
  }),
  flags,
});

const presets: NativePreset[] = [
  full(0, 'breathe_green_armed', 2, [0, 255, 0], 0x02),
  full(1, 'solid_red', 0, [255, 0, 0], 0),
  full(2, 'strobe_white', 23, [255, 255, 255], 0),
  full(3, 'wipe_blue_armed', 3, [0, 0, 255], 0x02),
  full(4, 'running_amber', 15, [255, 160, 0], 0),
];

const lora = loraInfo(DEFAULT_RF, 'default');
const ctx = (optimize: boolean) => ({
  devices,
  optimize,
  preset: (ref: string) => resolvePresetRef(ref, presets),
});

interface Row {
  name: string;
  o: { packets: number; bytes: number; airtime: number };
  n: { packets: number; bytes: number; airtime: number };
}

const rows: Row[] = [];
for (const [name, raw] of CORPUS) {
  const actions = validateSceneActions(raw, {
    presetExists: (r) => resolvePresetRef(r, presets) !== undefined,
  });
  const price = (optimize: boolean) => {
    const plan = planScene(actions, ctx(optimize));
    const bad = plan.find((a) => a.degraded);
    if (bad) throw new Error(`${name}: action ${bad.index} degraded (${bad.degraded})`);
    // Airtime of the radio only: the scene's delays are the same in both plans.
    const delays = plan.reduce((n, a) => n + a.delayMs, 0);
    const t = estimateCost(plan, lora).total;
    return { packets: t.packets, bytes: t.bytes, airtime: t.airtime_ms - delays };
  };
  rows.push({ name, o: price(false), n: price(true) });
}

const pct = (o: number, n: number): string => (o === 0 ? '-' : `${(((o - n) / o) * 100).toFixed(0)}%`);
const header = [
  'scene',
  'pkts orig',
  'pkts ours',
  'bytes orig',
  'bytes ours',
  'air ms orig',
  'air ms ours',
  'saved',
];
const table: string[][] = rows.map((r) => [
  r.name,
  String(r.o.packets),
  String(r.n.packets),
  String(r.o.bytes),
  String(r.n.bytes),
  String(r.o.airtime),
  String(r.n.airtime),
  pct(r.o.airtime, r.n.airtime),
]);
const sum = (f: (r: Row) => number): number => rows.reduce((n, r) => n + f(r), 0);
const tot = {
  op: sum((r) => r.o.packets),
  np: sum((r) => r.n.packets),
  ob: sum((r) => r.o.bytes),
  nb: sum((r) => r.n.bytes),
  oa: sum((r) => r.o.airtime),
  na: sum((r) => r.n.airtime),
};
table.push([
  `TOTAL (${rows.length} scenes)`,
  String(tot.op),
  String(tot.np),
  String(tot.ob),
  String(tot.nb),
  String(tot.oa),
  String(tot.na),
  pct(tot.oa, tot.na),
]);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => (r[i] ?? '').length)));
const line = (cells: string[]): string =>
  cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
console.log(
  `Radio cost per scene, original plan vs ours (SF${lora.sf}, ${lora.bw_hz / 1000} kHz, ${GROUPS} groups, ${devices.length} gates)\n`,
);
console.log(line(header));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
table.forEach((r, i) => {
  if (i === table.length - 1) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  console.log(line(r));
});
console.log(
  `\npackets −${pct(tot.op, tot.np)}, bytes −${pct(tot.ob, tot.nb)}, airtime −${pct(tot.oa, tot.na)} ` +
    `(airtime excludes the scenes' own delays; bytes = body + 9 per packet as the original counts)`,
);
