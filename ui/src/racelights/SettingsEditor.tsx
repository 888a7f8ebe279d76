/**
 * The race-light settings as an editable draft: follows the host until edited, then holds
 * the edit until Save (a 400 shows next to the field it names and scrolls to it) or Discard.
 * The sections (gates, lap flash, phases) edit the draft; the save bar ends the page.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, post, put } from '../api.ts';
import { toast, toastError } from '../toasts.ts';
import {
  bodyOf,
  draftOf,
  fieldLabel,
  fieldOfError,
  gateOf,
  unchosenGates,
  type Draft,
  type GateDraft,
} from './draft.ts';
import { GatesEditor } from './GatesEditor.tsx';
import { LapFlashEditor } from './LapFlashEditor.tsx';
import { PhasesEditor } from './PhasesEditor.tsx';
import { reload, type RaceLightsView } from './race-lights-data.ts';

type Errors = Map<string, string>;

export function SettingsEditor({ v, now }: { v: RaceLightsView; now: number }) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(v.settings));
  const [dirty, setDirty] = useState(false);
  const [saving, setSaving] = useState(false);
  const [errors, setErrors] = useState<Errors>(new Map());
  const [formError, setFormError] = useState<string | null>(null);
  // Not editing: follow what the host has (another browser, the RotorHazard panel).
  useEffect(() => {
    if (!dirty) setDraft(draftOf(v.settings));
  }, [v.settings, dirty]);
  const edit = (fn: (d: Draft) => void): void => {
    const next = structuredClone(draft);
    fn(next);
    setDraft(next);
    setDirty(true);
  };
  const err = (key: string): string | null => errors.get(key) ?? null;

  /** Bring the field to the operator (a long page on a phone). */
  const reveal = (key: string) =>
    requestAnimationFrame(() =>
      document.querySelector(`[data-field="${key}"]`)?.scrollIntoView({ block: 'center' }),
    );

  const save = async () => {
    // A gate set to a group or device with none chosen: said in words, nothing sent.
    const unchosen = unchosenGates(draft);
    const first = unchosen[0];
    if (first) {
      setErrors(new Map(unchosen.map((u) => [u.key, u.message])));
      setFormError(
        `Not saved — ${first.message}${unchosen.length > 1 ? ` (and ${unchosen.length - 1} more)` : ''}`,
      );
      reveal(first.key);
      return;
    }
    const { body, seatAt } = bodyOf(draft);
    setSaving(true);
    try {
      await put('race-lights', body);
      setErrors(new Map());
      setFormError(null);
      setDirty(false);
      await reload();
      toast('Race lights saved');
    } catch (e) {
      if (e instanceof ApiError && e.status === 400) {
        const { key, message } = fieldOfError(e.message, seatAt);
        setErrors(key ? new Map([[key, message]]) : new Map());
        setFormError(`Not saved — ${key ? `${fieldLabel(key)}: ${message}` : e.message}`);
        if (key) reveal(key);
      } else toastError('Saving the race lights failed', e);
    } finally {
      setSaving(false);
    }
  };
  const discard = () => {
    setDraft(draftOf(v.settings));
    setDirty(false);
    setErrors(new Map());
    setFormError(null);
  };

  const test = async (what: string, body: Record<string, unknown>, key: string) => {
    try {
      const r = await post<{ gate: string }>('race-lights/test', body);
      setErrors((m) => {
        const n = new Map(m);
        n.delete(`test.${key}`);
        return n;
      });
      toast(`Test: ${what} → ${r.gate}`);
    } catch (e) {
      setErrors((m) => new Map(m).set(`test.${key}`, (e as Error).message));
    }
  };
  /** What a Test of this row sends: the saved mapping, or what is on screen when edited. */
  const testBody = (saved: Record<string, unknown>, g: GateDraft, color: string | null) => {
    if (!dirty) return saved;
    const gate = gateOf(g);
    return gate ? { gate, ...(color ? { color } : {}) } : saved;
  };
  return (
    <>
      <GatesEditor v={v} draft={draft} edit={edit} err={err} test={test} testBody={testBody} />
      <LapFlashEditor v={v} draft={draft} edit={edit} err={err} />
      <PhasesEditor v={v} now={now} draft={draft} edit={edit} err={err} />

      <div class={`rl-savebar${dirty ? ' dirty' : ''}`} data-testid="rl-savebar">
        {formError ? (
          <span class="error-text" role="alert" data-testid="rl-form-error">
            {formError}
          </span>
        ) : (
          <span class="muted">
            {dirty ? 'Unsaved changes (Test flashes what is on screen)' : 'Saved on the host'}
          </span>
        )}
        <span class="spacer" />
        <button type="button" class="ghost" disabled={!dirty || saving} onClick={discard}>
          Discard
        </button>
        <button type="button" class="primary" disabled={!dirty || saving} onClick={() => void save()}>
          {saving ? 'Saving…' : 'Save'}
        </button>
      </div>
    </>
  );
}
