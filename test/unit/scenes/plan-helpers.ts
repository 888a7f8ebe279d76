/** Shared fixtures for planner / estimator unit tests. */
import type { NativePreset } from '../../../src/domain/scenes/native-preset.ts';
import { fullPresetParams } from '../../../src/domain/scenes/native-preset.ts';
import type { SceneAction } from '../../../src/domain/scenes/types.ts';
import { resolvePresetRef } from '../../../src/domain/scenes/native-preset.ts';
import type { PlanContext, PlanDevice, PlannedAction } from '../../../src/services/scenes/plan/planner.ts';
import { planScene } from '../../../src/services/scenes/plan/scene.ts';
import { loraInfo } from '../../../src/services/scenes/cost-estimator.ts';
import { DEFAULT_RF, OPC } from '../../../src/protocol/types.ts';

/** One device per group id (addresses 0000gg), plus any extra devices. */
export function devicesIn(groups: readonly number[], extra: PlanDevice[] = []): PlanDevice[] {
  return [
    ...groups.map((g) => ({
      addr: `0000${g.toString(16).padStart(2, '0').toUpperCase()}`,
      groupId: g,
      groupPending: false,
      brightness: 128,
      startblock: null,
    })),
    ...extra,
  ];
}

export const range = (a: number, b: number): number[] => Array.from({ length: b - a + 1 }, (_, i) => a + i);

export function preset(
  id: number,
  key: string,
  params: Parameters<typeof fullPresetParams>[0],
  flags = 0,
): NativePreset {
  return {
    id,
    key,
    label: key,
    created: '2026-01-01T00:00:00Z',
    updated: '2026-01-01T00:00:00Z',
    params: fullPresetParams(params),
    flags,
  };
}

export function ctx(devices: PlanDevice[], optimize: boolean, presets: NativePreset[] = []): PlanContext {
  return { devices, optimize, preset: (ref) => resolvePresetRef(ref, presets) };
}

export function plan(actions: SceneAction[], c: PlanContext): PlannedAction[] {
  return planScene(actions, c);
}

const OP_NAME: Record<number, string> = Object.fromEntries(Object.entries(OPC).map(([k, v]) => [v, k]));

/** `OPCODE@group:bodyLength` per frame, the notation of the worked examples. */
export function wire(p: readonly PlannedAction[]): string[] {
  return p.flatMap((a) =>
    a.frames.map((f) => {
      const op = OP_NAME[typeOfRequest(f.request.op)] ?? '?';
      const group = f.request.op === 'SYNC' || f.request.op === 'STREAM' ? 255 : f.body[0];
      return `${op}@${group}:${f.body.length}`;
    }),
  );
}

const typeOfRequest = (op: keyof typeof OPC): number => OPC[op];

export const DEFAULT_LORA_INFO = loraInfo(DEFAULT_RF, 'default');

export const B = { kind: 'broadcast' } as const;
export const G = (...value: number[]) => ({ kind: 'groups' as const, value });
