/** Native preset library: list on the left, the schema-driven 14-field editor on the right. */
import { useState } from 'preact/hooks';
import { del, post, put } from '../api.ts';
import { EffectEditor } from './EffectEditor.tsx';
import { completeParams, type Params } from '../effect-fields.ts';
import { nativePresets, nativeSchema, scenes } from '../store.ts';
import { toast, toastError } from '../toasts.ts';
import type { NativePreset, SceneAction } from '../types.ts';
import { confirmAction } from '../dialogs/confirm.tsx';
import { Modal } from '../dialogs/Modal.tsx';

const FLAG_BITS: Record<string, number> = {
  arm_on_sync: 0x02,
  force_tt0: 0x08,
  force_reapply: 0x10,
  offset_mode: 0x20,
};

interface Draft {
  key: string | null;
  label: string;
  params: Params;
  flags: number;
}

const fromPreset = (p: NativePreset): Draft => ({
  key: p.key,
  label: p.label,
  params: { ...p.params },
  flags: p.flags,
});
const EMPTY: Draft = {
  key: null,
  label: '',
  params: { mode: 0, brightness: 128, color1: [255, 255, 255] },
  flags: 0,
};

/** Scenes whose actions refer to this preset (by id, key or the legacy "RL:key"). */
export function scenesUsing(p: NativePreset): string[] {
  const refs = new Set([String(p.id), p.key, `RL:${p.key}`]);
  const uses = (a: SceneAction): boolean =>
    (a.kind === 'native_preset' && refs.has(String(a.params?.presetId ?? ''))) ||
    (a.actions ?? []).some(uses);
  return scenes.value.filter((s) => s.actions.some(uses)).map((s) => s.label);
}

export function NativePresetsDialog({ onClose }: { onClose: () => void }) {
  const schema = nativeSchema.value;
  const list = nativePresets.value;
  const [draft, setDraft] = useState<Draft>(list[0] ? fromPreset(list[0]) : EMPTY);
  const [saved, setSaved] = useState<string>(JSON.stringify(draft));
  const dirty = JSON.stringify(draft) !== saved;
  const pick = async (d: Draft) => {
    if (
      dirty &&
      !(await confirmAction({
        title: 'Unsaved changes',
        body: `Discard the changes to '${draft.label || 'new preset'}'?`,
        confirm: 'Discard',
        danger: true,
      }))
    )
      return;
    setDraft(d);
    setSaved(JSON.stringify(d));
  };
  if (!schema) {
    return (
      <Modal title="Native presets" onClose={onClose} testId="native-presets">
        <p class="muted">The host does not offer native presets.</p>
      </Modal>
    );
  }
  const flagsObj = Object.fromEntries(
    Object.entries(FLAG_BITS).map(([k, bit]) => [k, (draft.flags & bit) !== 0]),
  );
  const save = async (e: Event) => {
    e.preventDefault();
    const body = { label: draft.label.trim(), params: completeParams(schema, draft.params), flags: flagsObj };
    try {
      const r = draft.key
        ? await put<{ preset: NativePreset }>(`native-presets/${encodeURIComponent(draft.key)}`, body)
        : await post<{ preset: NativePreset }>('native-presets', body);
      const d = fromPreset(r.preset);
      setDraft(d);
      setSaved(JSON.stringify(d));
      toast(`${draft.key ? 'Saved' : 'Created'} preset '${r.preset.label}'`);
    } catch (err) {
      toastError('Saving preset failed', err);
    }
  };
  const current = list.find((p) => p.key === draft.key);
  const remove = async () => {
    if (!current) return;
    const users = scenesUsing(current);
    const ok = await confirmAction({
      title: 'Delete preset',
      body: `Delete preset '${current.label}'? ${users.length ? `Scenes using it will fail that action: ${users.join(', ')}.` : 'No scene uses it.'}`,
      confirm: 'Delete',
      danger: true,
    });
    if (!ok) return;
    try {
      await del(`native-presets/${encodeURIComponent(current.key)}`);
      toast(`Deleted preset '${current.label}'`);
      setDraft(EMPTY);
      setSaved(JSON.stringify(EMPTY));
    } catch (err) {
      toastError('Delete failed', err);
    }
  };
  const duplicate = async () => {
    if (!current) return;
    try {
      const r = await post<{ preset: NativePreset }>(
        `native-presets/${encodeURIComponent(current.key)}/duplicate`,
        {},
      );
      const d = fromPreset(r.preset);
      setDraft(d);
      setSaved(JSON.stringify(d));
      toast(`Duplicated as '${r.preset.label}'`);
    } catch (err) {
      toastError('Duplicate failed', err);
    }
  };
  return (
    <Modal title="Native presets" onClose={onClose} wide testId="native-presets">
      <div class="two-pane">
        <div class="pane-list">
          <div class="side-head">
            <h3>Presets</h3>
            <button type="button" class="small primary" onClick={() => pick(EMPTY)}>
              + New
            </button>
          </div>
          <ul class="pick-list">
            {list.map((p) => (
              <li key={p.key}>
                <button
                  type="button"
                  class={p.key === draft.key ? 'active' : ''}
                  onClick={() => pick(fromPreset(p))}
                >
                  {p.label}
                  {p.key === draft.key && dirty ? ' •' : ''}
                </button>
              </li>
            ))}
            {list.length === 0 && <li class="muted">No presets yet.</li>}
          </ul>
        </div>
        <form class="form pane-edit" onSubmit={save}>
          <label>
            Label
            <input
              name="label"
              maxLength={200}
              value={draft.label}
              placeholder="e.g. Red Alert"
              onInput={(e) => setDraft({ ...draft, label: e.currentTarget.value })}
            />
          </label>
          <EffectEditor
            schema={schema}
            params={draft.params}
            onChange={(params) => setDraft({ ...draft, params })}
            idPrefix="np"
          />
          <fieldset>
            <legend>Flags</legend>
            {schema.flags.map((f) => (
              <label class="check" key={f.key}>
                <input
                  type="checkbox"
                  checked={(draft.flags & (FLAG_BITS[f.key] ?? 0)) !== 0}
                  onChange={(e) => {
                    const bit = FLAG_BITS[f.key] ?? 0;
                    setDraft({
                      ...draft,
                      flags: e.currentTarget.checked ? draft.flags | bit : draft.flags & ~bit,
                    });
                  }}
                />
                {f.label}
              </label>
            ))}
          </fieldset>
          <div class="buttons">
            {current && (
              <>
                <button type="button" class="danger" onClick={remove}>
                  Delete
                </button>
                <button type="button" onClick={duplicate}>
                  Duplicate
                </button>
              </>
            )}
            <span class="spacer" />
            {dirty && <span class="muted">unsaved</span>}
            <button
              type="submit"
              class="primary"
              disabled={!draft.label.trim() || (!dirty && draft.key !== null)}
            >
              {draft.key ? 'Save' : 'Create'}
            </button>
          </div>
        </form>
      </div>
    </Modal>
  );
}
