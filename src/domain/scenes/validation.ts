/**
 * Scene action validation: input (including the original host's legacy shapes) →
 * canonical actions, or a ValidationError whose message names the action index and
 * field, e.g. `actions[2].target.value[1]: group id 300 out of range [0..254]`.
 *
 * Canonical form: group lists sorted and unique, device addresses as 6 upper-case hex,
 * explicit offset tables sorted by id, params/flags_override always present on the
 * effect kinds, unknown keys refused (dropped when validating stored data, `lenient`).
 */
import { normalizeAddr } from '../../protocol/addr.ts';
import { asBool, asInt, checkKeys, fail, isRecord, join, type Json } from '../input.ts';
import { FLAG_BITS, FLAG_KEYS, parseEffectParams } from './native-preset.ts';
import {
  ACTION_KINDS,
  CHILD_KINDS,
  OFFSET_MODES,
  SCENE_LIMITS as L,
  type ActionTarget,
  type ChildKind,
  type ContainerTarget,
  type FlagsOverride,
  type OffsetChildAction,
  type OffsetGroupAction,
  type OffsetSpec,
  type SceneAction,
  type SceneValidationContext,
  type StartblockAction,
  type StartblockSlot,
} from './types.ts';

export * from './types.ts';

/** Kind names of the original host, accepted on input and stored under our names. */
const LEGACY_KINDS: Record<string, ActionKind> = {
  rl_preset: 'native_preset',
  wled_preset: 'led_preset',
  rl_effect: 'native_effect',
  // v0.1.5 carried a native preset reference here (its runner then ignored it).
  wled_control: 'native_preset',
};
type ActionKind = (typeof ACTION_KINDS)[number];

/** Validates a whole action list (max 20 at the top level); returns the canonical list. */
export function validateSceneActions(input: unknown, ctx: SceneValidationContext = {}): SceneAction[] {
  if (input === undefined || input === null) return [];
  if (!Array.isArray(input)) return fail('actions', 'must be a list');
  if (input.length > L.maxActions) fail('actions', `too many actions: ${input.length} > ${L.maxActions}`);
  return input.map((a, i) => validateAction(a, `actions[${i}]`, ctx));
}

export function validateAction(input: unknown, path: string, ctx: SceneValidationContext = {}): SceneAction {
  if (!isRecord(input)) return fail(path, 'must be an object');
  const kind = parseKind(input.kind, join(path, 'kind'), ACTION_KINDS);
  const lenient = ctx.lenient ?? false;
  switch (kind) {
    case 'sync':
      forbid(input, ['target', 'params', 'flags_override', 'duration_ms', 'offset', 'actions'], path, kind);
      checkKeys(input, ['kind'], path, lenient);
      return { kind: 'sync' };
    case 'delay':
      return validateDelay(input, path, lenient);
    case 'offset_group':
      return validateOffsetGroup(input, path, ctx);
    case 'startblock':
      return validateStartblock(input, path, lenient);
    default: {
      // The original's "group with offset" target: an effect wrapped in a container.
      if (isRecord(input.target) && input.target.kind === 'groups_offset')
        return wrapGroupsOffset(input, path, ctx);
      return validateEffect(input, kind, path, ctx);
    }
  }
}

function parseKind<K extends string>(v: unknown, path: string, allowed: readonly K[]): K {
  const raw = typeof v === 'string' ? v.trim() : v;
  const k = typeof raw === 'string' ? (LEGACY_KINDS[raw] ?? raw) : raw;
  if (typeof k === 'string' && (allowed as readonly string[]).includes(k)) return k as K;
  return fail(
    path,
    v === undefined
      ? 'is required'
      : `invalid action kind ${JSON.stringify(v)}; expected one of ${allowed.join(', ')}`,
  );
}

/** "a sync", "an offset_group". */
const an = (kind: string): string => `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind}`;

function forbid(o: Json, fields: readonly string[], path: string, kind: string): void {
  for (const f of fields)
    if (o[f] !== undefined) fail(join(path, f), `${an(kind)} action must not carry '${f}'`);
}

function validateDelay(input: Json, path: string, lenient: boolean): SceneAction {
  forbid(input, ['target', 'flags_override', 'offset', 'actions'], path, 'delay');
  // Legacy spellings: `ms` (newer docs) and the editor's internal params.duration_ms.
  const fromParams = isRecord(input.params) ? input.params.duration_ms : undefined;
  if (input.params !== undefined && fromParams === undefined)
    fail(join(path, 'params'), "a delay action must not carry 'params'");
  const field =
    input.duration_ms !== undefined ? 'duration_ms' : input.ms !== undefined ? 'ms' : 'params.duration_ms';
  const raw = input.duration_ms ?? input.ms ?? fromParams ?? 0;
  checkKeys(input, ['kind', 'duration_ms', 'ms', 'params'], path, lenient);
  return { kind: 'delay', duration_ms: asInt(raw, join(path, field), 0, L.maxDelayMs) };
}

/** `{kind:'broadcast'} | {kind:'groups', value:[…]} | {kind:'device', value:'AABBCC'}` (+ legacy). */
export function parseTarget(v: unknown, path: string, lenient = false): ActionTarget {
  if (!isRecord(v)) return fail(path, v === undefined ? 'is required' : "must be an object with 'kind'");
  switch (v.kind) {
    case 'broadcast':
    case 'scope': // legacy
      return { kind: 'broadcast' };
    case 'group': // legacy single group
      return { kind: 'groups', value: [asInt(v.value, join(path, 'value'), 0, L.maxGroupId)] };
    case 'groups': {
      checkKeys(v, ['kind', 'value'], path, lenient);
      return { kind: 'groups', value: parseGroupList(v.value, join(path, 'value')) };
    }
    case 'device': {
      checkKeys(v, ['kind', 'value'], path, lenient);
      const addr = typeof v.value === 'string' ? normalizeAddr(v.value) : null;
      const hexLen = typeof v.value === 'string' ? v.value.replace(/[^0-9a-f]/gi, '').length : 0;
      if (!addr || (hexLen !== 6 && hexLen !== 12))
        fail(join(path, 'value'), 'must be a device address of 6 or 12 hex characters');
      return { kind: 'device', value: addr };
    }
    default:
      return fail(
        join(path, 'kind'),
        `invalid target kind ${JSON.stringify(v.kind)} (expected broadcast, groups or device)`,
      );
  }
}

function parseGroupList(v: unknown, path: string): number[] {
  if (!Array.isArray(v) || v.length === 0) return fail(path, 'must be a non-empty list of group ids');
  const seen = new Set<number>();
  v.forEach((g, i) => {
    const p = join(path, i);
    const id = asInt(g, p, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
    if (id < 0 || id > L.maxGroupId) fail(p, `group id ${id} out of range [0..${L.maxGroupId}]`);
    if (seen.has(id)) fail(p, `duplicate group id ${id}`);
    seen.add(id);
  });
  return [...seen].sort((a, b) => a - b);
}

function parseFlagsOverride(v: unknown, path: string, lenient: boolean): FlagsOverride {
  if (v === undefined || v === null) return {};
  if (typeof v === 'number') {
    // A flags byte: every user flag is then set explicitly (true or false).
    const n = asInt(v, path, 0, 255);
    return Object.fromEntries(FLAG_KEYS.map((k) => [k, (n & FLAG_BITS[k]) !== 0]));
  }
  if (!isRecord(v)) return fail(path, 'must be an object of booleans');
  checkKeys(v, FLAG_KEYS, path, lenient);
  const out: FlagsOverride = {};
  for (const k of FLAG_KEYS) if (v[k] !== undefined && v[k] !== null) out[k] = asBool(v[k], join(path, k));
  return out;
}

function paramsObject(v: unknown, path: string): Json {
  if (v === undefined || v === null) return {};
  if (!isRecord(v)) return fail(path, 'must be an object');
  return v;
}

function optBrightness(v: unknown, path: string): { brightness?: number } {
  return v === undefined || v === null ? {} : { brightness: asInt(v, path, 0, 255) };
}

function validateEffect(
  input: Json,
  kind: ChildKind,
  path: string,
  ctx: SceneValidationContext,
): OffsetChildAction {
  const lenient = ctx.lenient ?? false;
  forbid(input, ['duration_ms', 'offset', 'actions'], path, kind);
  checkKeys(input, ['kind', 'target', 'params', 'flags_override'], path, lenient);
  if (input.target === undefined) fail(join(path, 'target'), `${an(kind)} action requires a target`);
  const target = parseTarget(input.target, join(path, 'target'), lenient);
  const flags_override = parseFlagsOverride(input.flags_override, join(path, 'flags_override'), lenient);
  const pPath = join(path, 'params');
  const params = paramsObject(input.params, pPath);
  if (kind === 'native_effect') {
    return {
      kind,
      target,
      params: parseEffectParams(params, pPath, { lenient, notes: ctx.notes }),
      flags_override,
    };
  }
  checkKeys(params, ['presetId', 'brightness'], pPath, lenient);
  const bri = optBrightness(params.brightness, join(pPath, 'brightness'));
  if (kind === 'led_preset') {
    const presetId = params.presetId ?? 1;
    return {
      kind,
      target,
      params: { presetId: asInt(presetId, join(pPath, 'presetId'), 0, 255), ...bri },
      flags_override,
    };
  }
  const ref = params.presetId;
  if (ref === undefined || ref === null || (typeof ref === 'string' && !ref.trim()))
    return { kind, target, params: { ...bri }, flags_override };
  if (typeof ref !== 'string' && !(typeof ref === 'number' && Number.isInteger(ref) && ref >= 0))
    fail(join(pPath, 'presetId'), 'must be a preset id or key');
  const canon = String(ref).trim();
  if (ctx.presetExists && !ctx.presetExists(canon))
    fail(join(pPath, 'presetId'), `native preset ${JSON.stringify(canon)} not found`);
  return { kind, target, params: { presetId: canon, ...bri }, flags_override };
}

function validateStartblock(input: Json, path: string, lenient: boolean): StartblockAction {
  forbid(input, ['duration_ms', 'offset', 'actions'], path, 'startblock');
  checkKeys(input, ['kind', 'target', 'params', 'flags_override'], path, lenient);
  if (input.target === undefined) fail(join(path, 'target'), 'a startblock action requires a target');
  const target = parseTarget(input.target, join(path, 'target'), lenient);
  const pPath = join(path, 'params');
  const p = paramsObject(input.params, pPath);
  checkKeys(p, ['fn_key', 'startblock_use_current_heat', 'startblock_slot_list'], pPath, lenient);
  if (p.fn_key !== undefined && p.fn_key !== 'startblock_control')
    fail(join(pPath, 'fn_key'), "must be 'startblock_control'");
  const params: StartblockAction['params'] = { fn_key: 'startblock_control' };
  if (p.startblock_use_current_heat !== undefined)
    params.startblock_use_current_heat = asBool(
      p.startblock_use_current_heat,
      join(pPath, 'startblock_use_current_heat'),
    );
  if (p.startblock_slot_list !== undefined)
    params.startblock_slot_list = parseSlotList(p.startblock_slot_list, join(pPath, 'startblock_slot_list'));
  // flags_override is accepted for old clients but means nothing to a startblock.
  return { kind: 'startblock', target, params };
}

function parseSlotList(v: unknown, path: string): StartblockSlot[] {
  if (!Array.isArray(v)) return fail(path, 'must be a list of {slot, callsign, racechannel}');
  if (v.length > L.startblockSlots) fail(path, `at most ${L.startblockSlots} slots`);
  const seen = new Set<number>();
  return v.map((e, i) => {
    const p = join(path, i);
    const o = Array.isArray(e) ? { slot: e[0], callsign: e[1], racechannel: e[2] } : e;
    if (!isRecord(o)) return fail(p, 'must be {slot, callsign, racechannel}');
    const slot = asInt(o.slot, join(p, 'slot'), 1, L.startblockSlots);
    if (seen.has(slot)) fail(join(p, 'slot'), `duplicate slot ${slot}`);
    seen.add(slot);
    const str = (x: unknown, f: string, max: number): string => {
      if (typeof x !== 'string') return fail(join(p, f), 'must be a string');
      if (x.length > max) fail(join(p, f), `at most ${max} characters`);
      return x;
    };
    return {
      slot,
      callsign: str(o.callsign ?? '', 'callsign', L.callsignMax),
      racechannel: str(o.racechannel ?? '', 'racechannel', L.racechannelMax),
    };
  });
}

function validateOffsetGroup(input: Json, path: string, ctx: SceneValidationContext): OffsetGroupAction {
  const lenient = ctx.lenient ?? false;
  forbid(input, ['params', 'flags_override', 'duration_ms'], path, 'offset_group');
  checkKeys(input, ['kind', 'target', 'groups', 'offset', 'actions', 'children'], path, lenient);
  const target = containerTarget(input, path, lenient);
  return finishOffsetGroup(target, input.offset, input.actions ?? input.children, path, ctx);
}

function containerTarget(input: Json, path: string, lenient: boolean): ContainerTarget {
  let t: ActionTarget;
  if (input.target !== undefined) t = parseTarget(input.target, join(path, 'target'), lenient);
  else if (input.groups === 'all' || input.groups === 255) t = { kind: 'broadcast' };
  else if (Array.isArray(input.groups))
    t = { kind: 'groups', value: parseGroupList(input.groups, join(path, 'groups')) };
  else return fail(join(path, 'target'), 'is required (broadcast or groups)');
  if (t.kind === 'device')
    fail(
      join(path, 'target.kind'),
      "an offset_group target cannot be 'device' (offsets are per group); use groups or broadcast",
    );
  if (t.kind === 'groups' && t.value.length > L.maxOffsetGroups)
    fail(
      join(path, 'target.value'),
      `offset_group has ${t.value.length} groups; max is ${L.maxOffsetGroups}`,
    );
  return t;
}

function finishOffsetGroup(
  target: ContainerTarget,
  offsetIn: unknown,
  childrenIn: unknown,
  path: string,
  ctx: SceneValidationContext,
): OffsetGroupAction {
  const offset = parseOffset(offsetIn, join(path, 'offset'), target, ctx.lenient ?? false);
  const cPath = join(path, 'actions');
  const raw = childrenIn ?? [];
  if (!Array.isArray(raw)) return fail(cPath, 'must be a list');
  if (raw.length > L.maxChildren)
    fail(cPath, `offset_group has ${raw.length} children; max is ${L.maxChildren}`);
  const actions = raw.map((c, j) => {
    const p = join(cPath, j);
    if (!isRecord(c)) return fail(p, 'must be an object');
    const kind = parseKind(c.kind, join(p, 'kind'), CHILD_KINDS);
    const child = validateEffect(c, kind, p, ctx);
    if (target.kind === 'groups' && child.target.kind === 'groups') {
      const outside = child.target.value.find((g) => !target.value.includes(g));
      if (outside !== undefined)
        fail(
          join(p, 'target.value'),
          `group ${outside} is not one of the offset_group's groups [${target.value.join(', ')}]`,
        );
    }
    return child;
  });
  return { kind: 'offset_group', target, offset, actions };
}

function parseOffset(v: unknown, path: string, target: ContainerTarget, lenient: boolean): OffsetSpec {
  if (!isRecord(v)) return fail(path, v === undefined ? 'is required' : 'must be an object');
  const mode = typeof v.mode === 'string' ? v.mode.trim().toLowerCase() : v.mode;
  if (!(OFFSET_MODES as readonly unknown[]).includes(mode))
    fail(join(path, 'mode'), `${JSON.stringify(v.mode)} is not one of ${OFFSET_MODES.join(', ')}`);
  const int = (f: string, r: { min: number; max: number }, dflt: number): number =>
    v[f] === undefined || v[f] === null ? dflt : asInt(v[f], join(path, f), r.min, r.max);
  switch (mode as OffsetSpec['mode']) {
    case 'none':
      checkKeys(v, ['mode'], path, lenient);
      return { mode: 'none' };
    case 'linear':
      checkKeys(v, ['mode', 'base_ms', 'step_ms'], path, lenient);
      return { mode: 'linear', base_ms: int('base_ms', L.baseMs, 0), step_ms: int('step_ms', L.stepMs, 0) };
    case 'vshape':
      checkKeys(v, ['mode', 'base_ms', 'step_ms', 'center'], path, lenient);
      return {
        mode: 'vshape',
        base_ms: int('base_ms', L.baseMs, 0),
        step_ms: int('step_ms', L.stepMs, 0),
        center: int('center', L.center, 0),
      };
    case 'modulo':
      checkKeys(v, ['mode', 'base_ms', 'step_ms', 'cycle'], path, lenient);
      return {
        mode: 'modulo',
        base_ms: int('base_ms', L.baseMs, 0),
        step_ms: int('step_ms', L.stepMs, 0),
        cycle: int('cycle', L.cycle, 1),
      };
    case 'explicit':
      checkKeys(v, ['mode', 'values'], path, lenient);
      return { mode: 'explicit', values: parseExplicit(v.values, join(path, 'values'), target) };
  }
}

function parseExplicit(
  v: unknown,
  path: string,
  target: ContainerTarget,
): { id: number; offset_ms: number }[] {
  if (target.kind !== 'groups') return fail(path, 'explicit offsets need a groups target, not broadcast');
  const groups = target.value;
  if (!Array.isArray(v)) return fail(path, 'must be a list of {id, offset_ms}, one per group');
  const seen = new Map<number, number>();
  v.forEach((e, i) => {
    const p = join(path, i);
    if (!isRecord(e)) return fail(p, 'must be {id, offset_ms}');
    const id = asInt(e.id, join(p, 'id'), 0, L.maxGroupId);
    if (!groups.includes(id)) fail(join(p, 'id'), `group ${id} is not one of the offset_group's groups`);
    if (seen.has(id)) fail(join(p, 'id'), `duplicate group id ${id}`);
    seen.set(id, asInt(e.offset_ms, join(p, 'offset_ms'), L.offsetMs.min, L.offsetMs.max));
  });
  const missing = groups.filter((g) => !seen.has(g));
  if (missing.length) fail(path, `missing offsets for groups ${missing.join(', ')} (one entry per group)`);
  return [...seen].sort((a, b) => a[0] - b[0]).map(([id, offset_ms]) => ({ id, offset_ms }));
}

/** Legacy `target:{kind:'groups_offset', groups|value, offset}`: one container, one broadcast child. */
function wrapGroupsOffset(input: Json, path: string, ctx: SceneValidationContext): OffsetGroupAction {
  const t = input.target as Json;
  const groups = t.groups ?? t.value;
  const target = containerTarget(
    { groups: groups === undefined ? 'all' : groups },
    join(path, 'target'),
    false,
  );
  const { offset: _offset, ...rest } = input;
  const child: Json = { ...rest, target: { kind: 'broadcast' } };
  return finishOffsetGroup(target, t.offset ?? input.offset, [child], path, ctx);
}
