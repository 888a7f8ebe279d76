/**
 * Pure helpers of the scene editor: offset formula preview, the timeline of a scene
 * from its estimate, flag-override summaries and offset-mode warnings. No DOM.
 */

export type OffsetSpec =
  | { mode: 'none' }
  | { mode: 'linear'; base_ms: number; step_ms: number }
  | { mode: 'vshape'; base_ms: number; step_ms: number; center: number }
  | { mode: 'modulo'; base_ms: number; step_ms: number; cycle: number }
  | { mode: 'explicit'; values: { id: number; offset_ms: number }[] };

export interface Estimate {
  packets: number;
  bytes: number;
  airtime_ms: number;
  wall_clock_ms: number;
  detail?: Record<string, unknown>;
}

const clampOffset = (ms: number): number => Math.max(0, Math.min(65535, Math.round(ms)));

/** The per-group delay (ms) the formula gives, clamped to the wire's 0..65535. */
export function offsetFor(spec: OffsetSpec, gid: number): number | null {
  switch (spec.mode) {
    case 'none':
      return null;
    case 'linear':
      return clampOffset(spec.base_ms + gid * spec.step_ms);
    case 'vshape':
      return clampOffset(spec.base_ms + Math.abs(gid - spec.center) * spec.step_ms);
    case 'modulo':
      return clampOffset(spec.base_ms + (gid % Math.max(1, spec.cycle)) * spec.step_ms);
    case 'explicit':
      return spec.values.find((v) => v.id === gid)?.offset_ms ?? null;
  }
}

export function offsetPreview(spec: OffsetSpec, groupIds: number[]): { gid: number; ms: number | null }[] {
  return groupIds.map((gid) => ({ gid, ms: offsetFor(spec, gid) }));
}

/** Switching modes keeps base/step where they make sense and fills the rest. */
export function changeOffsetMode(prev: OffsetSpec, mode: OffsetSpec['mode'], groupIds: number[]): OffsetSpec {
  const base = 'base_ms' in prev ? prev.base_ms : 0;
  const step = 'step_ms' in prev ? prev.step_ms : 100;
  switch (mode) {
    case 'none':
      return { mode };
    case 'linear':
      return { mode, base_ms: base, step_ms: step };
    case 'vshape':
      return {
        mode,
        base_ms: base,
        step_ms: step,
        center: 'center' in prev ? prev.center : (groupIds[0] ?? 1),
      };
    case 'modulo':
      return { mode, base_ms: base, step_ms: step, cycle: 'cycle' in prev ? prev.cycle : 2 };
    case 'explicit':
      return { mode, values: groupIds.map((id) => ({ id, offset_ms: offsetFor(prev, id) ?? 0 })) };
  }
}

export interface TimelineBar {
  index: number;
  kind: string;
  label: string;
  start: number;
  end: number;
  /** Offset-group lanes: one per group with its delay after the container's start. */
  lanes?: { gid: number; at: number }[];
  sync?: boolean;
  armed?: boolean;
}

/**
 * Lays the actions out on a time axis from their estimated wall-clock times (or the
 * measured ones after a run). Armed actions fire at the next SYNC.
 */
export function timeline(
  actions: {
    kind: string;
    offset?: unknown;
    target?: unknown;
    flags_override?: Record<string, boolean>;
    actions?: unknown[];
  }[],
  per: (Estimate | undefined)[],
  measured: (number | undefined)[] = [],
  labels: (string | undefined)[] = [],
): { bars: TimelineBar[]; total: number } {
  let t = 0;
  const bars: TimelineBar[] = [];
  actions.forEach((a, i) => {
    const dur = measured[i] ?? per[i]?.wall_clock_ms ?? 0;
    const bar: TimelineBar = { index: i, kind: a.kind, label: labels[i] ?? a.kind, start: t, end: t + dur };
    if (a.kind === 'sync') bar.sync = true;
    if (a.flags_override?.arm_on_sync) bar.armed = true;
    if (a.kind === 'offset_group' && a.offset && typeof a.offset === 'object') {
      const spec = a.offset as OffsetSpec;
      const tgt = a.target as { kind: string; value?: number[] } | undefined;
      const ids = tgt?.kind === 'groups' ? (tgt.value ?? []) : [];
      bar.lanes = offsetPreview(spec, ids)
        .filter((p) => p.ms !== null)
        .map((p) => ({ gid: p.gid, at: bar.end + (p.ms ?? 0) }));
      const armed = (a.actions as { flags_override?: Record<string, boolean> }[] | undefined)?.some(
        (c) => c.flags_override?.arm_on_sync,
      );
      if (armed) bar.armed = true;
    }
    bars.push(bar);
    t += dur;
  });
  // The wave of an offset group extends past its own run time.
  const total = Math.max(t, ...bars.flatMap((b) => (b.lanes ?? []).map((l) => l.at)));
  return { bars, total };
}

export function flagSummary(o: Record<string, boolean> | undefined): string {
  const parts = Object.entries(o ?? {}).map(([k, v]) => `${k}=${v ? 'on' : 'off'}`);
  return parts.length ? parts.join(', ') : 'none — inherit from preset';
}

/**
 * Offset mode is sticky on the nodes: a plain action after an offset group (other than
 * mode none) reaches nodes that ignore it. Returns the indices of such actions.
 */
export function stickyOffsetWarnings(actions: { kind: string; offset?: unknown }[]): number[] {
  let sticky = false;
  const out: number[] = [];
  actions.forEach((a, i) => {
    if (a.kind === 'offset_group') {
      sticky = (a.offset as { mode?: string } | undefined)?.mode !== 'none';
    } else if (sticky && ['native_effect', 'native_preset', 'led_preset'].includes(a.kind)) out.push(i);
  });
  return out;
}

const ms = (n: number): string => `${Math.round(n).toLocaleString('en-US')} ms`;

/**
 * The host prices a delay as its duration in both airtime and wall clock (the original's
 * convention). A delay sends nothing, so the UI shows it as waiting time and keeps
 * airtime for radio packets only.
 */
export function delayTotalMs(actions: { kind: string; duration_ms?: number }[]): number {
  return actions.reduce((sum, a) => sum + (a.kind === 'delay' ? (a.duration_ms ?? 0) : 0), 0);
}

/** One action's badge: radio cost, or for a delay its wall-clock wait. */
export function formatCost(e: Estimate | undefined, kind?: string): string {
  if (!e) return '…';
  if (kind === 'delay') return `wait ${ms(e.wall_clock_ms)} · no radio`;
  return `${e.packets}p · ${e.bytes}B · ${ms(e.airtime_ms)} air · ~${ms(e.wall_clock_ms)} run`;
}

/** The scene total: airtime without the delays, the waiting shown on its own. */
/**
 * Several gateways transmit in parallel: "Fan-out 2 gateways · wall 79 ms · air 134 ms"
 * (air on all channels, delays left out as in the total).
 */
export function formatFanOut(total: Estimate, parts: readonly unknown[], waitMs: number): string {
  const air = Math.max(0, total.airtime_ms - waitMs);
  return `Fan-out ${parts.length} gateways · wall ${ms(total.wall_clock_ms)} · air ${ms(air)}`;
}

export function formatTotal(e: Estimate | undefined, waitMs: number): string {
  if (!e) return '…';
  const air = Math.max(0, e.airtime_ms - waitMs);
  const wait = waitMs > 0 ? ` · ${ms(waitMs)} waiting` : '';
  return `${e.packets}p · ${e.bytes}B · ${ms(air)} air${wait} · ~${ms(e.wall_clock_ms)} run`;
}
