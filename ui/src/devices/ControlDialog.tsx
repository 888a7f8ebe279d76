/**
 * Control: what the nodes show, for the selection or a group. Two ways:
 *  - Colour & effect: a colour (quick swatches or a picker) and one of the LED firmware's
 *    built-in effects, sent as a native effect (one OPC_CONTROL carrying mode, colour and
 *    brightness). Needs no preset file, so a fresh install can make a gate green.
 *  - Preset: the active LED preset file's presets (one PRESET frame), a native preset, or
 *    a raw preset id.
 * POST /api/devices/control carries only a preset id, so colours and native presets go
 * the way the scene editor's effects do: a one-action draft scene run per target.
 * "Off" sends brightness 0 at once.
 */
import { signal } from '@preact/signals';
import { useEffect, useState } from 'preact/hooks';
import { post } from '../api.ts';
import { rgbToHex, hexToRgb, sortedEffects, visibleFields, type Params, type Rgb } from '../effect-fields.ts';
import { editorSchema, kindSchema, loadEditorSchema } from '../scene-schema.ts';
import { EffectEditor } from '../scenes/EffectEditor.tsx';
import { nativePresets, nativeSchema } from '../store.ts';
import { toast, toastError } from '../toasts.ts';
import type { SceneAction, Target } from '../types.ts';
import { Modal } from '../dialogs/Modal.tsx';
import './control.css';

const USER_FLAGS: [number, string, string, string][] = [
  [0x02, 'arm_on_sync', 'Arm on sync', 'Queue on the node until the next SYNC'],
  [0x08, 'force_tt0', 'Instant transition', 'Force a zero transition time'],
  [0x10, 'force_reapply', 'Force re-apply', 'Restart the effect even if unchanged'],
  [0x20, 'offset_mode', 'Offset mode', 'Sticky on the node until cleared by an offset group with mode none'],
];

/** The colours a race needs most, named (a swatch alone says nothing to a colour-blind operator). */
export const SWATCHES: readonly [string, Rgb][] = [
  ['Green', [0, 255, 0]],
  ['Red', [255, 0, 0]],
  ['Yellow', [255, 200, 0]],
  ['Blue', [0, 0, 255]],
  ['White', [255, 255, 255]],
  ['Cyan', [0, 255, 255]],
  ['Magenta', [255, 0, 255]],
  ['Orange', [255, 80, 0]],
];

/** The node's own start values of the effect fields (a field the effect uses is always sent). */
const EFFECT_DEFAULTS: Params = {
  speed: 128,
  intensity: 128,
  custom1: 128,
  custom2: 128,
  custom3: 16,
  check1: false,
  check2: false,
  check3: false,
  palette: 0,
  color2: [0, 0, 0],
  color3: [0, 0, 0],
};

/** Fields the dialog draws itself (the rest of an effect's fields go under "Effect settings"). */
const OWN_FIELDS = new Set(['mode', 'brightness', 'color1']);

/** The scene runner takes at most this many actions per run (one per selected device). */
const MAX_ACTIONS_PER_RUN = 20;

type Way = 'colour' | 'preset';

// Kept for the session: reopening Control offers what was sent last.
const lastWay = signal<Way>('colour');
const lastColour = signal<Rgb>([0, 255, 0]);
const lastEffect = signal<Params>({ mode: 0, ...EFFECT_DEFAULTS });

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

const sameRgb = (a: Rgb, b: Rgb): boolean => a.every((v, i) => v === b[i]);

export function colourName(c: Rgb): string {
  return SWATCHES.find(([, rgb]) => sameRgb(rgb, c))?.[0] ?? rgbToHex(c);
}

interface DraftOutcome {
  ok: boolean;
  error: string | null;
  sent: number;
}

interface RunAnswer {
  result: { ok: boolean; error: string | null; actions: { frames_sent: number }[] };
}

/** Runs the actions as draft scenes (at most 20 actions each, one after the other). */
async function runDraft(label: string, actions: SceneAction[]): Promise<DraftOutcome> {
  let sent = 0;
  for (let i = 0; i < actions.length; i += MAX_ACTIONS_PER_RUN) {
    const r = await post<RunAnswer>('scenes/_control/run', {
      label,
      actions: actions.slice(i, i + MAX_ACTIONS_PER_RUN),
      stop_on_error: false,
    });
    sent += r.result.actions.reduce((n, a) => n + (a.frames_sent ?? 0), 0);
    if (!r.result.ok) return { ok: false, error: r.result.error ?? 'failed', sent };
  }
  return { ok: true, error: null, sent };
}

const frames = (n: number): string => `${n} frame${n === 1 ? '' : 's'}`;

function ColourPicker({ colour, onPick }: { colour: Rgb; onPick: (c: Rgb) => void }) {
  const custom = !SWATCHES.some(([, rgb]) => sameRgb(rgb, colour));
  return (
    <div class="swatches" role="group" aria-label="Colour">
      {SWATCHES.map(([name, rgb]) => (
        <button
          key={name}
          type="button"
          class="swatch"
          aria-pressed={sameRgb(rgb, colour)}
          onClick={() => onPick(rgb)}
        >
          <span class="swatch-dot" style={{ background: rgbToHex(rgb) }} aria-hidden="true" />
          {name}
        </button>
      ))}
      <label class={`swatch custom${custom ? ' on' : ''}`} title="Any colour">
        <input
          type="color"
          name="colour"
          aria-label="Custom colour"
          value={rgbToHex(colour)}
          onInput={(e) => onPick(hexToRgb(e.currentTarget.value))}
        />
        {custom ? rgbToHex(colour) : 'Other…'}
      </label>
    </div>
  );
}

export function ControlDialog({ target, onClose }: { target: ControlTarget; onClose: () => void }) {
  const [flags, setFlags] = useState(0);
  const led = ledPresetOptions();
  const natives = nativePresets.value;
  const schema = nativeSchema.value;
  const way = lastWay.value;
  const colour = lastColour.value;
  const effect = lastEffect.value;
  // "led:<id>", "native:<id>" or "id" (a raw preset id when no file names them).
  const [choice, setChoice] = useState('');
  const [rawId, setRawId] = useState(1);
  const [brightness, setBri] = useState(128);
  const [sending, setSending] = useState(false);
  useEffect(() => {
    if (!editorSchema.value)
      void loadEditorSchema().catch((err) => toastError('Loading preset names failed', err));
  }, []);
  const picked = choice || (led[0] ? `led:${led[0].value}` : natives[0] ? `native:${natives[0].id}` : 'id');
  const body = target.macs ? { macs: target.macs } : { groupId: target.groupId };
  const flagsOverride = Object.fromEntries(USER_FLAGS.map(([bit, key]) => [key, (flags & bit) !== 0]));

  const effects = schema ? sortedEffects(schema) : [];
  const effectName = effects.find((o) => Number(o.value) === Number(effect.mode))?.label ?? `#${effect.mode}`;
  const shown = schema ? visibleFields(schema, effect) : [];
  const usesColour = !schema || shown.some((f) => f.name === 'color1');
  // The effect's own settings, drawn by the scene editor's field editor.
  const settingsSchema = schema && {
    ...schema,
    vars: schema.vars.filter((v) => !OWN_FIELDS.has(v) && shown.some((f) => f.name === v)),
  };

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
      `${what} sent to ${target.label}: ${frames(r.changed)}${errs ? `, ${errs} failed` : ''}`,
      errs ? 'error' : 'ok',
    );
  };
  const sendActions = async (what: string, action: (t: Target) => SceneAction) => {
    const r = await runDraft(`Control ${target.label}`, sceneTargets(target).map(action));
    if (r.ok) toast(`${what} sent to ${target.label}: ${frames(r.sent)}`);
    else toast(`${what} not sent to ${target.label}: ${r.error ?? 'failed'}`, 'error');
  };
  const sendColour = () => {
    // Every field the chosen effect uses is sent (a field left out keeps whatever the
    // last preset set on the node: a palette could hide the colour).
    const params: Params = { mode: Number(effect.mode ?? 0), color1: colour, brightness };
    for (const f of shown) if (!OWN_FIELDS.has(f.name)) params[f.name] = effect[f.name];
    const what = usesColour ? `${colourName(colour)} (${effectName})` : effectName;
    return sendActions(what, (t) => ({
      kind: 'native_effect',
      target: t,
      params,
      flags_override: flagsOverride,
    }));
  };
  const send = async (e: Event) => {
    e.preventDefault();
    setSending(true);
    try {
      if (way === 'colour') await sendColour();
      else if (picked.startsWith('native:'))
        await sendActions(`Native preset '${presetLabel()}'`, (t) => ({
          kind: 'native_preset',
          target: t,
          params: { presetId: Number(picked.slice(7)), brightness },
          flags_override: flagsOverride,
        }));
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
        <div class="seg" role="radiogroup" aria-label="What to send">
          <label class={`seg-opt${way === 'colour' ? ' on' : ''}`}>
            <input
              type="radio"
              name="way"
              value="colour"
              checked={way === 'colour'}
              onChange={() => (lastWay.value = 'colour')}
            />
            Colour &amp; effect
          </label>
          <label class={`seg-opt${way === 'preset' ? ' on' : ''}`}>
            <input
              type="radio"
              name="way"
              value="preset"
              checked={way === 'preset'}
              onChange={() => (lastWay.value = 'preset')}
            />
            Preset
          </label>
        </div>
        {way === 'colour' ? (
          <>
            <p class="muted">
              One colour, steady or with one of the LED firmware&apos;s built-in effects. No preset file
              needed.
            </p>
            <ColourPicker colour={colour} onPick={(c) => (lastColour.value = c)} />
            <label>
              Effect
              <select
                name="effect"
                value={String(effect.mode ?? 0)}
                disabled={!schema}
                title="* = renders identically on every node (gates stay in step); listed first"
                onChange={(e) => (lastEffect.value = { ...effect, mode: Number(e.currentTarget.value) })}
              >
                {effects.length === 0 && <option value="0">Solid</option>}
                {effects.map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.deterministic ? '* ' : ''}
                    {o.label}
                  </option>
                ))}
              </select>
            </label>
            {!usesColour && (
              <p class="warn-text" data-testid="colour-unused">
                {effectName} makes its own colours: the colour above is not used.
              </p>
            )}
            {settingsSchema && settingsSchema.vars.length > 0 && (
              <details class="disclosure">
                <summary>Effect settings ({shown.filter((f) => !OWN_FIELDS.has(f.name)).length})</summary>
                <EffectEditor
                  schema={settingsSchema}
                  params={effect}
                  onChange={(p) => (lastEffect.value = p)}
                  idPrefix="control-effect"
                />
              </details>
            )}
          </>
        ) : (
          <>
            <p class="muted">
              LED presets come from the active LED preset file; native presets are the host&apos;s own effect
              presets.
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
          </>
        )}
        <label>
          <span>
            Brightness <span class="mono">{brightness}</span>
            {brightness === 0 && <span class="muted"> (off)</span>}
          </span>
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
