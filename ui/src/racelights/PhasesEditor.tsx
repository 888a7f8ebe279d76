/**
 * Each race phase's look (the built-in one, off, or a scene) and when it last played, from
 * the host's recent phases.
 */
import { scenes } from '../store.ts';
import type { Draft, EditDraft, FieldError } from './draft.ts';
import type { PhaseRecord, RaceLightsView } from './race-lights-data.ts';
import { ago } from './time.ts';

/** Names for the phases the page knows; a phase the host adds later shows by its own name. */
const PHASE_LABELS: Record<string, string> = {
  staging: 'Staging',
  start: 'Start',
  finish: 'Finish (time up)',
  win: 'Winner',
  stop: 'Stop',
  heat_change: 'Heat change',
  crash_out: 'Crash out',
};
const phaseLabel = (p: string): string =>
  PHASE_LABELS[p] ?? p.charAt(0).toUpperCase() + p.slice(1).replace(/_/g, ' ');

export function PhasesEditor({
  v,
  now,
  draft,
  edit,
  err,
}: {
  v: RaceLightsView;
  now: number;
  draft: Draft;
  edit: EditDraft;
  err: FieldError;
}) {
  const lastPhase = (p: string): PhaseRecord | undefined =>
    [...v.recent_phases].reverse().find((r) => r.phase === p);
  return (
    <section class="rl-section" data-testid="rl-phases">
      <h2>Race phases</h2>
      <div class="rl-phases">
        {Object.keys(draft.phases).map((p) => {
          const ph = draft.phases[p] as Draft['phases'][string];
          const value = !ph.enabled ? '__off' : (ph.scene ?? '__builtin');
          const last = lastPhase(p);
          return (
            <div class="rl-phase" key={p} data-phase={p} data-field={`phases.${p}.scene`}>
              <label for={`rl-phase-${p}`}>{phaseLabel(p)}</label>
              <select
                id={`rl-phase-${p}`}
                value={value}
                onChange={(e) => {
                  const x = e.currentTarget.value;
                  edit((d) => {
                    d.phases[p] =
                      x === '__off'
                        ? { enabled: false, scene: ph.scene }
                        : { enabled: true, scene: x === '__builtin' ? null : x };
                  });
                }}
              >
                <option value="__builtin">Built-in look</option>
                <option value="__off">Off</option>
                {ph.scene && !scenes.value.some((s) => s.key === ph.scene) && (
                  <option value={ph.scene}>{ph.scene} (missing)</option>
                )}
                {scenes.value.map((s) => (
                  <option key={s.key} value={s.key}>
                    Scene: {s.label}
                  </option>
                ))}
              </select>
              <span class="muted rl-phase-last">
                {last
                  ? `${last.state.replace(/_/g, ' ')} ${ago(last.requested_epoch_ms, now)}${last.error ? ` (${last.error})` : ''}`
                  : 'not played yet'}
              </span>
              {err(`phases.${p}.scene`) && (
                <span class="field-error" role="alert">
                  {err(`phases.${p}.scene`)}
                </span>
              )}
            </div>
          );
        })}
      </div>
    </section>
  );
}
