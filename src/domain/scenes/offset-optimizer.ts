/**
 * Offset optimizer (scenes reference §7.2, decisions §11): which OPC_OFFSET packets give
 * every participating group its offset with the fewest packets, then the fewest body bytes.
 *
 * Candidates (the original's three, plus ours):
 *  A  one broadcast formula packet — for a broadcast container, and (ours) for a groups
 *     container that covers every known group;
 *  B  one packet per participating group (explicit offset, or NONE for mode none);
 *  C  one broadcast formula packet, then NONE to every known group outside the container.
 * An explicit table that a linear / vshape / modulo formula reproduces exactly for every
 * participant (ours) makes A and C available to explicit containers too.
 *
 * Pure: no I/O, no clock. Group ids here are 0..254; 255 is the broadcast sentinel.
 */
import { computeOffsetMs } from '../../protocol/packets.ts';
import type { OffsetConfig } from '../../protocol/types.ts';

/** The offset block of an offset_group action (canonical scene form). */
export type OffsetSpec =
  | { mode: 'none' }
  | { mode: 'explicit'; values: readonly { id: number; offset_ms: number }[] }
  | { mode: 'linear'; base_ms: number; step_ms: number }
  | { mode: 'vshape'; base_ms: number; step_ms: number; center: number }
  | { mode: 'modulo'; base_ms: number; step_ms: number; cycle: number };

export type Formula = Extract<OffsetConfig, { mode: 'LINEAR' | 'VSHAPE' | 'MODULO' }>;

export type OffsetStrategy = 'A' | 'B' | 'C';

export interface OffsetOp {
  /** Body group id: 255 for a broadcast packet. */
  groupId: number;
  offset: OffsetConfig;
}

export interface OffsetPlan {
  /** null when no packet is needed or possible (broadcast container, no known group, …). */
  strategy: OffsetStrategy | null;
  ops: OffsetOp[];
  /** The formula an explicit table was recognised as (ours), else null. */
  fitted: Formula | null;
  /**
   * After these packets, every known group is either configured by this container or was
   * sent NONE: a child addressed to exactly the participating groups may then go out as one
   * broadcast with OFFSET_MODE set, which only the participants accept (§6.4).
   */
  knownGroupsSettled: boolean;
}

export interface OffsetInput {
  /** Participating groups (sorted, unique) or 'all' for a broadcast container. */
  participants: readonly number[] | 'all';
  /** Group ids of the known devices (sorted, unique). */
  known: readonly number[];
  offset: OffsetSpec;
  /** Use our candidates (fit, all-groups collapse). false = the original optimizer. */
  optimize: boolean;
}

export const OFFSET_BODY_BYTES: Record<OffsetConfig['mode'], number> = {
  NONE: 2,
  EXPLICIT: 4,
  LINEAR: 6,
  VSHAPE: 7,
  MODULO: 7,
};

const I16_MIN = -32768;
const I16_MAX = 32767;
const BROADCAST_GROUP = 255;

/** The formula of a formula-mode spec, NONE for none, null for explicit. */
export function specFormula(spec: OffsetSpec): OffsetConfig | null {
  switch (spec.mode) {
    case 'none':
      return { mode: 'NONE' };
    case 'explicit':
      return null;
    case 'linear':
      return { mode: 'LINEAR', baseMs: spec.base_ms, stepMs: spec.step_ms };
    case 'vshape':
      return { mode: 'VSHAPE', baseMs: spec.base_ms, stepMs: spec.step_ms, center: spec.center & 0xff };
    case 'modulo':
      return { mode: 'MODULO', baseMs: spec.base_ms, stepMs: spec.step_ms, cycle: spec.cycle };
  }
}

/** The offset a participating group gets (node arithmetic, §6.9); explicit: its table value, else 0. */
export function offsetFor(spec: OffsetSpec, groupId: number): number {
  if (spec.mode === 'explicit') return spec.values.find((v) => v.id === groupId)?.offset_ms ?? 0;
  const f = specFormula(spec);
  return f ? computeOffsetMs(f, groupId & 0xff) : 0;
}

const inI16 = (v: number): boolean => Number.isInteger(v) && v >= I16_MIN && v <= I16_MAX;

function fits(f: Formula, table: readonly { id: number; offset_ms: number }[]): boolean {
  return table.every((v) => computeOffsetMs(f, v.id) === v.offset_ms);
}

/**
 * Solves base + x·step through two points (x = the formula's per-group factor), using only
 * values away from the 0 / 65535 clamps; a table whose values are all clamped (or a single
 * point) is tried with step 0.
 */
function solve(
  points: readonly { x: number; v: number }[],
  make: (base: number, step: number) => Formula,
  table: readonly { id: number; offset_ms: number }[],
): Formula | null {
  const free = points.filter((p) => p.v > 0 && p.v < 65535);
  const first = free[0];
  if (first) {
    const second = free.find((p) => p.x !== first.x);
    if (second) {
      const step = (second.v - first.v) / (second.x - first.x);
      const base = first.v - first.x * step;
      if (inI16(step) && inI16(base)) {
        const f = make(base, step);
        if (fits(f, table)) return f;
      }
      return null;
    }
  }
  const anchor = first ?? points[0];
  if (anchor && inI16(anchor.v)) {
    const f = make(anchor.v, 0);
    if (fits(f, table)) return f;
  }
  return null;
}

/**
 * A formula reproducing an explicit table exactly for every listed group, preferring the
 * shortest body (linear, 6 bytes) over vshape and modulo (7 bytes); null if none does.
 */
export function fitFormula(table: readonly { id: number; offset_ms: number }[]): Formula | null {
  if (table.length === 0) return null;
  const pts = (x: (g: number) => number) => table.map((t) => ({ x: x(t.id), v: t.offset_ms }));
  const linear = solve(
    pts((g) => g),
    (b, s) => ({ mode: 'LINEAR', baseMs: b, stepMs: s }),
    table,
  );
  if (linear) return linear;
  for (let center = 0; center <= 254; center++) {
    const f = solve(
      pts((g) => Math.abs(g - center)),
      (b, s) => ({ mode: 'VSHAPE', baseMs: b, stepMs: s, center }),
      table,
    );
    if (f) return f;
  }
  for (let cycle = 2; cycle <= 255; cycle++) {
    const f = solve(
      pts((g) => g % cycle),
      (b, s) => ({ mode: 'MODULO', baseMs: b, stepMs: s, cycle }),
      table,
    );
    if (f) return f;
  }
  return null;
}

export const offsetBytes = (ops: readonly OffsetOp[]): number =>
  ops.reduce((n, op) => n + OFFSET_BODY_BYTES[op.offset.mode], 0);

function perGroup(groups: readonly number[], spec: OffsetSpec, sparse: boolean): OffsetOp[] {
  return groups.map((g) =>
    spec.mode === 'none' && sparse
      ? { groupId: g, offset: { mode: 'NONE' } }
      : { groupId: g, offset: { mode: 'EXPLICIT', offsetMs: offsetFor(spec, g) } },
  );
}

/**
 * Every candidate for one offset_group container, in tie-break order (A, B, C). The
 * planner may weigh them together with the children they allow (a settled candidate lets
 * a child go out as one broadcast).
 */
export function offsetCandidates(input: OffsetInput): OffsetPlan[] {
  const { participants, known, offset, optimize } = input;
  const all = participants === 'all';
  const list = all ? known : participants;
  const covers = !all && known.length > 0 && known.every((g) => participants.includes(g));
  const fitted = optimize && offset.mode === 'explicit' ? fitFormula(offset.values) : null;
  const formula = specFormula(offset) ?? fitted;
  const isFormula = formula !== null && formula.mode !== 'NONE';
  const out: OffsetPlan[] = [];

  // A: the container reaches every node (broadcast, or — ours — every known group).
  if (formula && (all || (optimize && covers))) {
    out.push({
      strategy: 'A',
      ops: [{ groupId: BROADCAST_GROUP, offset: formula }],
      fitted,
      knownGroupsSettled: true,
    });
  }
  if (list.length > 0) {
    const ops = perGroup(list, offset, !all);
    out.push({ strategy: 'B', ops, fitted: null, knownGroupsSettled: all || covers });
  }
  if (!all && isFormula && known.length > 0) {
    const outside = known.filter((g) => !participants.includes(g));
    out.push({
      strategy: 'C',
      ops: [
        { groupId: BROADCAST_GROUP, offset: formula },
        ...outside.map((g): OffsetOp => ({ groupId: g, offset: { mode: 'NONE' } })),
      ],
      fitted,
      knownGroupsSettled: true,
    });
  }
  return out;
}

export const NO_OFFSETS: OffsetPlan = { strategy: null, ops: [], fitted: null, knownGroupsSettled: false };

/** The cheapest candidate by its own packets, then body bytes, then A before B before C. */
export function planOffsets(input: OffsetInput): OffsetPlan {
  let best: OffsetPlan | null = null;
  for (const c of offsetCandidates(input)) {
    if (
      !best ||
      c.ops.length < best.ops.length ||
      (c.ops.length === best.ops.length && offsetBytes(c.ops) < offsetBytes(best.ops))
    )
      best = c;
  }
  return best ?? NO_OFFSETS;
}

/** Wire-path names of the original's result detail, by strategy. */
export const WIRE_PATH: Record<OffsetStrategy, string> = {
  A: 'A_broadcast_formula',
  B: 'B_per_group_explicit',
  C: 'C_formula_plus_overrides',
};
