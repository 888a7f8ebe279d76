/**
 * Scenes: an ordered list of up to 20 actions run by the scene runner. Types of the
 * record and of every action kind in their canonical (stored) shape, and the limits.
 * scene.ts validates input into these shapes. Group ids are 0..254 (255 is the
 * broadcast sentinel and never stored); device targets carry the 6-hex address.
 */
import type { Addr } from '../../protocol/types.ts';
import type { FlagKey, NativeEffectParams } from './native-preset.ts';

export const ACTION_KINDS = [
  'native_preset',
  'led_preset',
  'native_effect',
  'startblock',
  'sync',
  'delay',
  'offset_group',
] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

/** Kinds that may sit inside an offset_group. */
export const CHILD_KINDS = ['native_preset', 'led_preset', 'native_effect'] as const;
export type ChildKind = (typeof CHILD_KINDS)[number];

export const OFFSET_MODES = ['none', 'linear', 'vshape', 'modulo', 'explicit'] as const;
export type OffsetMode = (typeof OFFSET_MODES)[number];

export const SCENE_LIMITS = {
  maxActions: 20,
  maxDelayMs: 60_000,
  maxGroupId: 254,
  maxOffsetGroups: 64,
  maxChildren: 16,
  offsetMs: { min: 0, max: 65_535 },
  baseMs: { min: -32_768, max: 32_767 },
  stepMs: { min: -32_768, max: 32_767 },
  center: { min: 0, max: 254 },
  cycle: { min: 1, max: 255 },
  startblockSlots: 8,
  callsignMax: 32,
  racechannelMax: 2,
} as const;

export type ActionTarget =
  | { kind: 'broadcast' }
  /** Sorted ascending, unique, 0..254. */
  | { kind: 'groups'; value: number[] }
  | { kind: 'device'; value: Addr };
export type TargetKind = ActionTarget['kind'];
export type ContainerTarget = Exclude<ActionTarget, { kind: 'device' }>;

/** Explicitly set flag overrides; an absent key falls back to the preset's flag (or false). */
export type FlagsOverride = Partial<Record<FlagKey, boolean>>;

export interface NativePresetAction {
  kind: 'native_preset';
  target: ActionTarget;
  /**
   * presetId: reference to a native preset (`"7"` id, `"RL:<key>"`, or a key); required at
   * run time only. brightness overrides the preset's.
   */
  params: { presetId?: string; brightness?: number };
  flags_override: FlagsOverride;
}

export interface LedPresetAction {
  kind: 'led_preset';
  target: ActionTarget;
  /** LED-firmware preset slot (default 1); without brightness the node keeps its own. */
  params: { presetId: number; brightness?: number };
  flags_override: FlagsOverride;
}

export interface NativeEffectAction {
  kind: 'native_effect';
  target: ActionTarget;
  params: NativeEffectParams;
  flags_override: FlagsOverride;
}

export interface StartblockSlot {
  slot: number;
  callsign: string;
  racechannel: string;
}

export interface StartblockAction {
  kind: 'startblock';
  target: ActionTarget;
  params: {
    fn_key: 'startblock_control';
    startblock_use_current_heat?: boolean;
    startblock_slot_list?: StartblockSlot[];
  };
}

export interface SyncAction {
  kind: 'sync';
}

export interface DelayAction {
  kind: 'delay';
  duration_ms: number;
}

export type OffsetSpec =
  | { mode: 'none' }
  | { mode: 'linear'; base_ms: number; step_ms: number }
  | { mode: 'vshape'; base_ms: number; step_ms: number; center: number }
  | { mode: 'modulo'; base_ms: number; step_ms: number; cycle: number }
  /** One entry per participating group, sorted by id. */
  | { mode: 'explicit'; values: { id: number; offset_ms: number }[] };

export type OffsetChildAction = NativePresetAction | LedPresetAction | NativeEffectAction;

export interface OffsetGroupAction {
  kind: 'offset_group';
  target: ContainerTarget;
  offset: OffsetSpec;
  actions: OffsetChildAction[];
}

export type SceneAction =
  | NativePresetAction
  | LedPresetAction
  | NativeEffectAction
  | StartblockAction
  | SyncAction
  | DelayAction
  | OffsetGroupAction;

export interface Scene {
  /** Monotonic, never reused. */
  id: number;
  /** URL identifier, immutable after create. */
  key: string;
  label: string;
  /** UTC ISO-8601 with seconds. */
  created: string;
  updated: string;
  actions: SceneAction[];
  stop_on_error: boolean;
  /**
   * Several gateways: the networks this scene's broadcasts and SYNC reach (sorted ids).
   * Absent: automatic (the networks its targets live on; all for a broadcast).
   */
  networks?: number[];
}

export interface SceneValidationContext {
  /** Stored data: unknown keys (and bad effect field values) are dropped instead of refused. */
  lenient?: boolean;
  /** Where lenient validation reports what it dropped. */
  notes?: string[];
  /** When given, a native_preset `presetId` must name an existing preset. */
  presetExists?: (ref: string) => boolean;
}
