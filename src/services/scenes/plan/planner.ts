/**
 * Dispatch planner (scenes reference §7, decisions §11): turns a scene's actions into the
 * exact list of M2N frames, in send order, over one set of devices (the fleet, or one
 * network's share: networks.ts plans each network with its own Env). scene.ts is the entry.
 * The runner sends this list and the estimator prices it, so an estimate is what goes on
 * air, packet for packet and byte for byte.
 *
 * Pure: the store's devices and presets come in through the PlanContext. With
 * `optimize: false` it reproduces the original host's plan (for the radio benchmark);
 * with `optimize: true` it adds our savings: formula fits of explicit offset tables, a
 * groups container covering every known group sent as a broadcast formula, one broadcast
 * for children that cover every participating group, effect fields the chosen effect
 * ignores left out, and an all-known-groups target collapsed to one broadcast.
 */
import { presetEffectParams } from '../../../domain/scenes/native-preset.ts';
import type {
  ActionTarget,
  OffsetChildAction,
  OffsetGroupAction,
  SceneAction,
  StartblockAction,
} from '../../../domain/scenes/types.ts';
import {
  NO_OFFSETS,
  offsetBytes,
  offsetCandidates,
  planOffsets,
  WIRE_PATH,
  type OffsetPlan,
} from '../../../domain/scenes/offset-optimizer.ts';
import { buildControlFlags, FLAG, SYNC_FLAG_TRIGGER_ARMED } from '../../../protocol/flags.ts';
import { encodeRequestBody } from '../../../protocol/packets.ts';
import { BROADCAST, type Addr, type M2NRequest } from '../../../protocol/types.ts';
import type { PlanContext, PlanDevice, PlannedAction, PlannedFrame } from './types.ts';
import { controlFields, effectiveUserFlags, startblockPayload, STARTBLOCK_SLOTS } from './fields.ts';

export type {
  PlanContext,
  PlanDevice,
  PlanNetwork,
  PlannedAction,
  PlannedFrame,
  PlannedPart,
} from './types.ts';

const BROADCAST_GROUP = 255;
/** Brightness of a trigger SYNC when nothing in the scene says better (gateway and WLED boot value). */
const DEFAULT_BRIGHTNESS = 128;

const frame = (receiver: Addr, request: M2NRequest, via: PlannedFrame['via'] = 'send'): PlannedFrame => ({
  receiver,
  request,
  body: encodeRequestBody(request),
  via,
});

export interface Env {
  ctx: PlanContext;
  /** Devices stored on another network: a target naming one sends nothing here. */
  foreign: ReadonlySet<Addr>;
  /** Which of a target's groups this network plans for (null: all, the one-network case). */
  localGroup: ((groupId: number) => boolean) | null;
  known: number[];
  /** Broadcast may stand in for a groups list covering every known group. */
  collapse: boolean;
  /** Brightness of the last PRESET planned so far (the gateway's autosync brightness). */
  lastPresetBri: number | null;
  /** Known groups an earlier offset_group of this scene left with an offset (true) or NONE. */
  offsetState: Map<number, boolean>;
}

/** How one targeted action is addressed: body group per packet and receiver. */
type Address = { receiver: Addr; groupId: number };

class Degraded extends Error {
  constructor(
    message: string,
    readonly detail: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

function coversKnown(env: Env, groups: readonly number[]): boolean {
  return env.collapse && env.known.length > 0 && env.known.every((g) => groups.includes(g));
}

const sameSet = (a: readonly number[], b: readonly number[]): boolean =>
  a.length === b.length && a.every((g) => b.includes(g));

const localGroups = (env: Env, groups: readonly number[]): number[] =>
  env.localGroup ? groups.filter(env.localGroup) : [...groups];

function addresses(env: Env, target: ActionTarget, broadcastOk: (groups: number[]) => boolean): Address[] {
  switch (target.kind) {
    case 'broadcast':
      return [{ receiver: BROADCAST, groupId: BROADCAST_GROUP }];
    case 'groups': {
      const groups = localGroups(env, target.value);
      if (groups.length === 0) return [];
      if (broadcastOk(groups)) return [{ receiver: BROADCAST, groupId: BROADCAST_GROUP }];
      return groups.map((g) => ({ receiver: BROADCAST, groupId: g }));
    }
    case 'device': {
      const dev = env.ctx.devices.find((d) => d.addr === target.value);
      if (!dev && env.foreign.has(target.value)) return [];
      if (!dev) throw new Degraded('target_not_found', { target });
      return [{ receiver: dev.addr, groupId: dev.groupId }];
    }
  }
}

/** The most common stored brightness of the devices a target reaches (ties: the brighter). */
function typicalBrightness(env: Env, target: ActionTarget): number {
  const devs = env.ctx.devices.filter((d) =>
    target.kind === 'broadcast'
      ? true
      : target.kind === 'groups'
        ? target.value.includes(d.groupId)
        : d.addr === target.value,
  );
  const counts = new Map<number, number>();
  for (const d of devs) counts.set(d.brightness, (counts.get(d.brightness) ?? 0) + 1);
  let best: [number, number] | null = null;
  for (const [bri, n] of counts)
    if (!best || n > best[1] || (n === best[1] && bri > best[0])) best = [bri, n];
  return best ? best[0] : DEFAULT_BRIGHTNESS;
}

/** Frames of a native_preset / led_preset / native_effect, top level or inside a container. */
function effectFrames(
  env: Env,
  a: OffsetChildAction,
  forceOffset: boolean | undefined,
  broadcastOk: (groups: number[]) => boolean,
  detail: Record<string, unknown>,
): PlannedFrame[] {
  const prune = env.ctx.optimize;
  if (a.kind === 'led_preset') {
    const brightness = a.params.brightness ?? typicalBrightness(env, a.target);
    const flags = buildControlFlags(effectiveUserFlags(a.flags_override, 0, forceOffset), brightness);
    const addrs = addresses(env, a.target, broadcastOk);
    // Another network's share of a target sends nothing here: this gateway's autosync is unchanged.
    if (addrs.length > 0 || env.localGroup === null) env.lastPresetBri = brightness;
    return addrs.map((ad) =>
      frame(ad.receiver, {
        op: 'PRESET',
        groupId: ad.groupId,
        flags,
        presetId: a.params.presetId,
        brightness,
      }),
    );
  }
  let params = a.params;
  let presetFlags = 0;
  if (a.kind === 'native_preset') {
    const ref = a.params.presetId;
    if (ref === undefined || ref === '') throw new Degraded('missing_preset_id');
    const preset = env.ctx.preset(ref);
    if (!preset) throw new Degraded(`preset_not_found: ${ref}`, { preset_ref: ref });
    detail.preset_key = preset.key;
    detail.preset_id = preset.id;
    params = { ...presetEffectParams(preset.params) };
    if (a.params.brightness !== undefined) params.brightness = a.params.brightness;
    presetFlags = preset.flags;
  }
  const fields = controlFields(params, prune);
  const flags = buildControlFlags(
    effectiveUserFlags(a.flags_override, presetFlags, forceOffset),
    fields.brightness,
  );
  const addrs = addresses(env, a.target, broadcastOk);
  return addrs.map((ad) => frame(ad.receiver, { op: 'CONTROL', groupId: ad.groupId, flags, fields }));
}

function startblockFrames(env: Env, a: StartblockAction): PlannedFrame[] {
  const reached = env.ctx.devices.filter((d) => {
    const t = a.target;
    if (t.kind === 'device') return d.addr === t.value;
    return t.kind === 'broadcast' || t.value.includes(d.groupId);
  });
  if (a.target.kind === 'device' && reached.length === 0) {
    if (env.foreign.has(a.target.value)) return [];
    throw new Degraded('target_not_found', { target: a.target });
  }
  const devices = reached.filter((d) => d.startblock !== null);
  if (a.target.kind === 'device' && devices.length === 0) throw new Degraded('not_a_startblock_device');
  // The current heat comes from a timing application; standalone the slots are sent empty.
  const list =
    a.params.startblock_use_current_heat === false
      ? (a.params.startblock_slot_list ?? [])
      : (env.ctx.heatSlots ?? []);
  const out: PlannedFrame[] = [];
  for (const d of devices) {
    const sb = d.startblock as { first: number; slots: number };
    const last = Math.min(STARTBLOCK_SLOTS, sb.first + sb.slots - 1);
    for (let slot = sb.first; slot <= last; slot++) {
      const payload = startblockPayload(
        slot,
        list.find((e) => e.slot === slot),
      );
      out.push(frame(d.addr, { op: 'STREAM', payload }, 'stream'));
    }
  }
  return out;
}

interface ContainerPlan {
  offsets: OffsetPlan;
  children: PlannedFrame[];
  rows: Record<string, unknown>[];
  failures: string[];
}

/** Children's frames after a given phase 1 (its settledness decides the broadcast collapse). */
function containerPlan(env: Env, a: OffsetGroupAction, offsets: OffsetPlan): ContainerPlan {
  const participants = a.target.kind === 'broadcast' ? ('all' as const) : localGroups(env, a.target.value);
  const formulaMode = a.offset.mode !== 'none';
  // A child addressed to exactly the participants reaches exactly them as one broadcast
  // with OFFSET_MODE set, once every known group is configured or was sent NONE (§6.4).
  const childBroadcastOk = (groups: number[]): boolean =>
    coversKnown(env, groups) ||
    (env.collapse &&
      formulaMode &&
      offsets.knownGroupsSettled &&
      participants !== 'all' &&
      sameSet(groups, participants));
  const out: ContainerPlan = { offsets, children: [], rows: [], failures: [] };
  a.actions.forEach((child, i) => {
    try {
      const frames = effectFrames(env, child, formulaMode, childBroadcastOk, {});
      for (const f of frames) out.children.push({ ...f, part: { stage: 'child', child: i } });
      out.rows.push({ index: i, kind: child.kind, packets: frames.length });
    } catch (err) {
      if (!(err instanceof Degraded)) throw err;
      out.failures.push(`child ${i}: ${err.message}`);
      out.rows.push({ index: i, kind: child.kind, error: err.message });
    }
  });
  return out;
}

const planBytes = (p: ContainerPlan): number =>
  offsetBytes(p.offsets.ops) + p.children.reduce((n, f) => n + f.body.length, 0);
const planPackets = (p: ContainerPlan): number => p.offsets.ops.length + p.children.length;

function offsetGroupFrames(env: Env, a: OffsetGroupAction, detail: Record<string, unknown>): PlannedFrame[] {
  const input = {
    participants: a.target.kind === 'broadcast' ? ('all' as const) : localGroups(env, a.target.value),
    known: env.known,
    offset: a.offset,
    optimize: env.ctx.optimize,
  };
  let best: ContainerPlan;
  if (!env.ctx.optimize) best = containerPlan(env, a, planOffsets(input));
  else {
    // Ours: weigh each phase-1 candidate together with the children it lets us collapse
    // (a few more NONE packets can save a packet per participating group).
    const options = offsetCandidates(input).map((c) => containerPlan(env, a, c));
    best = options[0] ?? containerPlan(env, a, NO_OFFSETS);
    for (const o of options.slice(1)) {
      const d = planPackets(o) - planPackets(best);
      if (d < 0 || (d === 0 && planBytes(o) < planBytes(best))) best = o;
    }
  }
  const plan = best.offsets;
  detail.wire_path = plan.strategy ? WIRE_PATH[plan.strategy] : 'none';
  detail.offset_mode = a.offset.mode;
  if (plan.fitted) detail.fitted_formula = plan.fitted;
  detail.children = best.rows;
  // One unresolved child makes the whole container send nothing (as the original does):
  // half a cascade is worse than none.
  if (best.failures.length > 0) throw new Degraded('degraded', { ...detail, errors: best.failures });
  const offsets = plan.ops.map((op): PlannedFrame => ({
    ...frame(BROADCAST, { op: 'OFFSET', groupId: op.groupId, offset: op.offset }),
    part: { stage: 'offset' },
  }));
  detail.offset_packets = offsets.length;
  noteOffsetState(env, plan);
  return [...offsets, ...best.children];
}

/** What the known groups' offset state is after this phase 1 (the nodes' gate, §6.4). */
function noteOffsetState(env: Env, plan: OffsetPlan): void {
  for (const op of plan.ops) {
    const on = op.offset.mode !== 'NONE';
    if (op.groupId === BROADCAST_GROUP) for (const g of env.known) env.offsetState.set(g, on);
    else env.offsetState.set(op.groupId, on);
  }
}

/**
 * Nodes drop a CONTROL / PRESET whose OFFSET_MODE bit does not match their offset state:
 * name the groups an earlier offset_group of this scene left in the other state.
 */
function gateWarning(env: Env, frames: readonly PlannedFrame[]): string | null {
  const groups = new Set<number>();
  for (const f of frames) {
    const r = f.request;
    if (r.op !== 'CONTROL' && r.op !== 'PRESET') continue;
    const wantsOffset = (r.flags & FLAG.OFFSET_MODE) !== 0;
    const addressed =
      f.receiver !== BROADCAST
        ? env.ctx.devices.filter((d) => d.addr === f.receiver).map((d) => d.groupId)
        : r.groupId === BROADCAST_GROUP
          ? env.known
          : [r.groupId];
    for (const g of addressed) {
      const state = env.offsetState.get(g);
      if (state !== undefined && state !== wantsOffset) groups.add(g);
    }
  }
  if (groups.size === 0) return null;
  const list = [...groups].sort((x, y) => x - y).join(', ');
  return `groups ${list} are left in the other offset mode by an earlier offset_group: their nodes drop this packet`;
}

export function planOne(env: Env, a: SceneAction, index: number): PlannedAction {
  const detail: Record<string, unknown> = {};
  const out: PlannedAction = { index, kind: a.kind, frames: [], delayMs: 0, degraded: null, detail };
  const topBroadcastOk = (groups: number[]): boolean => coversKnown(env, groups);
  try {
    switch (a.kind) {
      case 'delay':
        out.delayMs = a.duration_ms;
        detail.requested_ms = a.duration_ms;
        break;
      case 'sync': {
        // The gateway re-stamps every SYNC with its own clock (§3.4), so ts24 is sent as 0.
        // Nodes that only ever got PRESETs take the SYNC brightness: use the last PRESET's.
        const brightness = env.lastPresetBri ?? typicalBrightness(env, { kind: 'broadcast' });
        out.frames = [frame(BROADCAST, { op: 'SYNC', ts24: 0, brightness, flags: SYNC_FLAG_TRIGGER_ARMED })];
        break;
      }
      case 'startblock':
        out.frames = startblockFrames(env, a);
        break;
      case 'offset_group':
        out.frames = offsetGroupFrames(env, a, detail);
        break;
      default: {
        out.frames = effectFrames(env, a, undefined, topBroadcastOk, detail);
        const warning = gateWarning(env, out.frames);
        if (warning) detail.warning = warning;
      }
    }
  } catch (err) {
    if (!(err instanceof Degraded)) throw err;
    out.frames = [];
    out.degraded = err.message;
    Object.assign(detail, err.detail);
  }
  return out;
}

/** The group ids of the known devices, sorted (0..254). */
export function knownGroups(devices: readonly PlanDevice[]): number[] {
  return [...new Set(devices.map((d) => d.groupId).filter((g) => g >= 0 && g <= 254))].sort((a, b) => a - b);
}

/** A planning environment over `ctx.devices` (one network's, or the whole fleet's). */
export function newEnv(
  ctx: PlanContext,
  foreign: ReadonlySet<Addr> = new Set(),
  localGroup: Env['localGroup'] = null,
): Env {
  return {
    ctx,
    foreign,
    localGroup,
    known: knownGroups(ctx.devices),
    // A device whose group change is unconfirmed may still listen on its old group:
    // per-group packets then stay the honest choice.
    collapse: ctx.optimize && !ctx.devices.some((d) => d.groupPending),
    lastPresetBri: null,
    offsetState: new Map(),
  };
}
