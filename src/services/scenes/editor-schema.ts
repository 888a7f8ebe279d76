/**
 * `GET /api/scenes/editor-schema`: everything a scene editor needs to build valid
 * actions — per kind its label, widget hints, target kinds and `defaults` (a complete
 * action that passes validation as it is), the flags, target kinds, the offset_group
 * limits and modes, and the gateway's radio settings.
 */
import {
  CHILD_KINDS,
  OFFSET_MODES,
  SCENE_LIMITS as L,
  type OffsetMode,
  type SceneAction,
} from '../../domain/scenes/types.ts';
import { flagList, nativeEffectUi, type NativePresetService } from './native-presets.ts';

export interface SelectOption {
  value: string;
  label: string;
}

export interface EditorSchemaDeps {
  presets: NativePresetService;
  /** The radio parameters the estimate uses (the gateway's active settings). */
  lora: () => Record<string, unknown>;
  /** Presets of the active LED preset file, when that feature provides them. */
  ledPresetOptions?: () => SelectOption[];
}

const TARGET_KINDS = [
  { value: 'broadcast', label: 'Broadcast' },
  { value: 'groups', label: 'Group' },
  { value: 'device', label: 'Device' },
];
const CONTAINER_TARGET_KINDS = TARGET_KINDS.filter((t) => t.value !== 'device');
const ALL = ['broadcast', 'groups', 'device'];

const MODE_INFO: Record<OffsetMode, string> = {
  none: 'no per-group offset',
  linear: 'base + gid * step',
  vshape: 'base + |gid - center| * step',
  modulo: 'base + (gid mod cycle) * step',
  explicit: 'per-group table',
};

const slider = (min: number, max: number) => ({ widget: 'slider', min, max });

/** Mid-range seeds for the 14 fields: visible, not blinding, valid for effect 0 (Solid). */
const EFFECT_DEFAULTS = {
  mode: 0,
  speed: 128,
  intensity: 128,
  custom1: 128,
  custom2: 128,
  custom3: 16,
  check1: false,
  check2: false,
  check3: false,
  palette: 0,
  color1: [255, 255, 255] as [number, number, number],
  color2: [0, 0, 0] as [number, number, number],
  color3: [0, 0, 0] as [number, number, number],
  brightness: 128,
};

export function sceneEditorSchema(deps: EditorSchemaDeps): Record<string, unknown> {
  const presets = deps.presets.list();
  const presetOptions: SelectOption[] = presets.map((p) => ({ value: String(p.id), label: p.label }));
  const ledOptions = deps.ledPresetOptions?.() ?? [];
  const first = presetOptions[0];
  const ledFirst = ledOptions[0] ? Number(ledOptions[0].value) : 1;

  const defaults: Record<string, SceneAction> = {
    native_preset: {
      kind: 'native_preset',
      target: { kind: 'broadcast' },
      // Without any preset there is nothing to pick yet; the runner then reports missing_preset_id.
      params: first ? { presetId: first.value, brightness: 128 } : { brightness: 128 },
      flags_override: {},
    },
    led_preset: {
      kind: 'led_preset',
      target: { kind: 'broadcast' },
      params: { presetId: Number.isInteger(ledFirst) ? ledFirst : 1, brightness: 128 },
      flags_override: {},
    },
    native_effect: {
      kind: 'native_effect',
      target: { kind: 'broadcast' },
      params: { ...EFFECT_DEFAULTS },
      flags_override: {},
    },
    startblock: {
      kind: 'startblock',
      target: { kind: 'broadcast' },
      params: { fn_key: 'startblock_control' },
    },
    sync: { kind: 'sync' },
    delay: { kind: 'delay', duration_ms: 1000 },
    offset_group: {
      kind: 'offset_group',
      target: { kind: 'broadcast' },
      offset: { mode: 'linear', base_ms: 0, step_ms: 100 },
      actions: [],
    },
  };

  const kind = (
    k: string,
    label: string,
    opts: {
      target: boolean;
      flags: boolean;
      vars: string[];
      ui: Record<string, unknown>;
      targetKinds: string[];
    },
    extra: Record<string, unknown> = {},
  ) => ({
    kind: k,
    label,
    supports_target: opts.target,
    supports_flags_override: opts.flags,
    vars: opts.vars,
    ui: opts.ui,
    ...extra,
    target_kinds: opts.targetKinds,
    defaults: defaults[k],
  });

  const presetUi = (options: SelectOption[]) =>
    options.length
      ? { widget: 'select', options }
      : { widget: 'select', options: [], placeholder: '— no native presets —' };

  return {
    kinds: [
      kind('native_preset', 'Apply Native Preset', {
        target: true,
        flags: true,
        vars: ['presetId', 'brightness'],
        ui: { presetId: presetUi(presetOptions), brightness: slider(0, 255) },
        targetKinds: ALL,
      }),
      kind('led_preset', 'Apply LED Preset', {
        target: true,
        flags: true,
        vars: ['presetId', 'brightness'],
        ui: {
          presetId: ledOptions.length
            ? { widget: 'select', options: ledOptions }
            : { widget: 'number', min: 0, max: 255 },
          brightness: slider(0, 255),
        },
        targetKinds: ALL,
      }),
      kind('native_effect', 'Apply Native Effect', {
        target: true,
        flags: true,
        vars: Object.keys(EFFECT_DEFAULTS),
        ui: nativeEffectUi(),
        targetKinds: ALL,
      }),
      kind('startblock', 'Startblock Control', {
        target: true,
        flags: false,
        vars: ['fn_key'],
        ui: {
          fn_key: {
            widget: 'select',
            options: [{ value: 'startblock_control', label: 'Startblock Control' }],
          },
        },
        targetKinds: ALL,
      }),
      kind('sync', 'SYNC (fire armed actions)', {
        target: false,
        flags: false,
        vars: [],
        ui: {},
        targetKinds: [],
      }),
      kind('delay', 'Delay', {
        target: false,
        flags: false,
        vars: ['duration_ms'],
        ui: { duration_ms: slider(0, L.maxDelayMs) },
        targetKinds: [],
      }),
      kind(
        'offset_group',
        'Offset Group',
        { target: false, flags: false, vars: [], ui: {}, targetKinds: ['broadcast', 'groups'] },
        { container: true, child_kinds: [...CHILD_KINDS] },
      ),
    ],
    flags: flagList(),
    target_kinds: TARGET_KINDS,
    container_target_kinds: CONTAINER_TARGET_KINDS,
    offset_group: {
      max_groups: L.maxOffsetGroups,
      max_children: L.maxChildren,
      group_id: { min: 0, max: L.maxGroupId },
      offset_ms: { ...L.offsetMs },
      base_ms: { ...L.baseMs },
      step_ms: { ...L.stepMs },
      center: { ...L.center },
      cycle: { ...L.cycle },
      supports_broadcast_target: true,
      child_kinds: [...CHILD_KINDS],
      child_target_kinds: TARGET_KINDS,
      modes: OFFSET_MODES.map((m) => ({ value: m, label: m, description: MODE_INFO[m] })),
    },
    lora: deps.lora(),
  };
}
