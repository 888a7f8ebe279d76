/** The scene editor schema (GET /api/scenes/editor-schema), loaded once per page open. */
import { signal } from '@preact/signals';
import { get } from './api.ts';
import type { FieldUi } from './effect-fields.ts';
import type { OffsetModeInfo } from './scenes/OffsetEditor.tsx';
import type { SceneAction } from './types.ts';

export interface KindSchema {
  kind: string;
  label: string;
  supports_target: boolean;
  supports_flags_override: boolean;
  vars: string[];
  ui: Record<string, FieldUi>;
  target_kinds: string[];
  defaults: SceneAction;
  container?: boolean;
  child_kinds?: string[];
}

export interface EditorSchema {
  kinds: KindSchema[];
  flags: { key: string; label: string }[];
  target_kinds: { value: string; label: string }[];
  container_target_kinds: { value: string; label: string }[];
  offset_group: {
    max_groups: number;
    max_children: number;
    child_kinds: string[];
    child_target_kinds: { value: string; label: string }[];
    modes: OffsetModeInfo[];
  };
}

export const editorSchema = signal<EditorSchema | null>(null);

export async function loadEditorSchema(): Promise<void> {
  editorSchema.value = await get<EditorSchema>('scenes/editor-schema');
}

export function kindSchema(kind: string): KindSchema | undefined {
  return editorSchema.value?.kinds.find((k) => k.kind === kind);
}

/** A fresh action of a kind from the schema's defaults (deep-copied). */
export function newAction(kind: string): SceneAction {
  const d = kindSchema(kind)?.defaults ?? { kind };
  return JSON.parse(JSON.stringify(d)) as SceneAction;
}
