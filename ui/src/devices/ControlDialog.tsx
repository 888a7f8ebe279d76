/**
 * Control: a preset by name — the active LED preset file's presets (one PRESET frame)
 * or a native preset (the host's own effect presets, sent as a one-action draft scene
 * run) — with brightness and flags, for the selection or a group. "Off" sends
 * brightness 0 at once.
 */
import { useEffect, useState } from 'preact/hooks';
import { post } from '../api.ts';
import { editorSchema, kindSchema, loadEditorSchema } from '../scene-schema.ts';
import { nativePresets } from '../store.ts';
import { toast, toastError } from '../toasts.ts';
import type { SceneAction, Target } from '../types.ts';
import { Modal } from '../dialogs/Modal.tsx';

const USER_FLAGS: [number, string, string, string][] = [
  [0x02, 'arm_on_sync', 'Arm on sync', 'Queue on the node until the next SYNC'],
  [0x08, 'force_tt0', 'Instant transition', 'Force a zero transition time'],
  [0x10, 'force_reapply', 'Force re-apply', 'Restart the effect even if unchanged'],
  [0x20, 'offset_mode', 'Offset mode', 'Sticky on the node until cleared by an offset group with mode none'],
];

export interface ControlTarget {
  macs?: string[];
  groupId?: number;
  label: string;
}

/** The active LED preset file's presets, as the scene editor schema lists them. */
function ledPresetOptions(): { value: string; label: string }[] {
  void editorSchema.value; // re-render when the schema arrives
  const ui = kindSchema('led_preset')?.ui.presetId as
    { options?: { value: string; label: string }[] } | undefined;
  return ui?.options ?? [];
}

function sceneTargets(t: ControlTarget): Target[] {
  if (t.macs) return t.macs.map((m) => ({ kind: 'device', value: m }));
  return [
    t.groupId === undefined || t.groupId === 255
      ? { kind: 'broadcast' }
      : { kind: 'groups', value: [t.groupId] },
  ];
}

export function ControlDialog({ target, onClose }: { target: ControlTarget; onClose: () => void }) {
  const [flags, setFlags] = useState(0);
  const led = ledPresetOptions();
  const natives = nativePresets.value;
  // "led:<id>", "native:<id>" or "id" (a raw preset id when no file names them).
  const [choice, setChoice] = useState('');
  const [rawId, setRawId] = useState(1);
  const [brightness, setBri] = useState(128);
  const [sending, setSending] = useState(false);
  useEffect(() => {
    if (!editorSchema.value)
      void loadEditorSchema().catch((err) => toastError('Loading preset names failed', err));
  }, []);
  const picked = choice || (led[0] ? `led:${led[0].value}` : 'id');
  const body = target.macs ? { macs: target.macs } : { groupId: target.groupId };
  const presetLabel = (): string => {
    if (picked.startsWith('led:')) return led.find((o) => `led:${o.value}` === picked)?.label ?? picked;
    if (picked.startsWith('native:'))
      return natives.find((p) => `native:${p.id}` === picked)?.label ?? picked;
    return `preset ${rawId}`;
  };
  const sendPreset = async (presetId: number, bri: number, what: string) => {
    const r = await post<{ changed: number; errors?: Record<string, string> }>('devices/control', {
      ...body,
      flags,
      presetId,
      brightness: bri,
    });
    const errs = Object.keys(r.errors ?? {}).length;
    toast(
      `${what} sent to ${target.label}: ${r.changed} frame${r.changed === 1 ? '' : 's'}${errs ? `, ${errs} failed` : ''}`,
      errs ? 'error' : 'ok',
    );
  };
  const sendNative = async (id: number) => {
    const flags_override = Object.fromEntries(USER_FLAGS.map(([bit, key]) => [key, (flags & bit) !== 0]));
    const actions: SceneAction[] = sceneTargets(target).map((t) => ({
      kind: 'native_preset',
      target: t,
      params: { presetId: id, brightness },
      flags_override,
    }));
    const r = await post<{ result: { ok: boolean; error: string | null } }>('scenes/_control/run', {
      label: `Control ${target.label}`,
      actions,
      stop_on_error: false,
    });
    if (r.result.ok) toast(`Native preset '${presetLabel()}' sent to ${target.label}`);
    else toast(`Native preset '${presetLabel()}' not sent: ${r.result.error ?? 'failed'}`, 'error');
  };
  const send = async (e: Event) => {
    e.preventDefault();
    setSending(true);
    try {
      if (picked.startsWith('native:')) await sendNative(Number(picked.slice(7)));
      else
        await sendPreset(
          picked.startsWith('led:') ? Number(picked.slice(4)) : rawId,
          brightness,
          `'${presetLabel()}'`,
        );
    } catch (err) {
      toastError('Control failed', err);
    } finally {
      setSending(false);
    }
  };
  const off = async () => {
    setSending(true);
    try {
      // Preset 0 keeps each node's effect; brightness 0 switches it off.
      await sendPreset(0, 0, 'Off');
    } catch (err) {
      toastError('Off failed', err);
    } finally {
      setSending(false);
    }
  };
  return (
    <Modal title={`Control — ${target.label}`} onClose={onClose} testId="control-dialog">
      <form class="form" onSubmit={send}>
        <p class="muted">
          A preset by name with brightness and flags. LED presets come from the active LED preset file; native
          presets are the host's own effect presets. Brightness 0 switches the nodes off.
        </p>
        <label>
          Preset
          <select name="preset" value={picked} onChange={(e) => setChoice(e.currentTarget.value)}>
            {led.length > 0 && (
              <optgroup label="LED presets (active file)">
                {led.map((o) => (
                  <option key={o.value} value={`led:${o.value}`}>
                    {o.label} (#{o.value})
                  </option>
                ))}
              </optgroup>
            )}
            {natives.length > 0 && (
              <optgroup label="Native presets">
                {natives.map((p) => (
                  <option key={p.id} value={`native:${p.id}`}>
                    {p.label}
                  </option>
                ))}
              </optgroup>
            )}
            <option value="id">
              {led.length ? 'Other preset id…' : 'Preset id (no LED preset file active)'}
            </option>
          </select>
        </label>
        {picked === 'id' && (
          <label>
            Preset id
            <input
              type="number"
              min={0}
              max={255}
              value={rawId}
              name="presetId"
              onInput={(e) => setRawId(Number(e.currentTarget.value))}
            />
          </label>
        )}
        <label>
          Brightness <span class="mono">{brightness}</span>
          <input
            type="range"
            min={0}
            max={255}
            value={brightness}
            name="brightness"
            onInput={(e) => setBri(Number(e.currentTarget.value))}
          />
        </label>
        <fieldset>
          <legend>Flags</legend>
          {USER_FLAGS.map(([bit, , label, title]) => (
            <label class="check" key={bit} title={title}>
              <input
                type="checkbox"
                checked={(flags & bit) !== 0}
                onChange={(e) => setFlags(e.currentTarget.checked ? flags | bit : flags & ~bit)}
              />
              {label}
            </label>
          ))}
        </fieldset>
        <div class="buttons">
          <button type="button" onClick={onClose}>
            Close
          </button>
          <button type="button" onClick={off} disabled={sending} title="Send brightness 0 now (off)">
            Off
          </button>
          <button type="submit" class="go" disabled={sending}>
            Send
          </button>
        </div>
      </form>
    </Modal>
  );
}
