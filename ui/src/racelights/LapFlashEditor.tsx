/** The lap flash: its effect, length, brightness, and whether the holeshot (lap 0) flashes. */
import type { Draft, EditDraft, FieldError } from './draft.ts';
import type { RaceLightsView } from './race-lights-data.ts';

export function LapFlashEditor({
  v,
  draft,
  edit,
  err,
}: {
  v: RaceLightsView;
  draft: Draft;
  edit: EditDraft;
  err: FieldError;
}) {
  return (
    <section class="rl-section">
      <h2>Lap flash</h2>
      <div class="rl-flash">
        <label data-field="flash.effect">
          Effect
          <select
            value={draft.flash.effect}
            onChange={(e) => {
              const x = e.currentTarget.value;
              edit((d) => (d.flash.effect = x));
            }}
          >
            {v.effects.map((e) => (
              <option key={e.value} value={String(e.value)}>
                {e.label}
              </option>
            ))}
          </select>
        </label>
        <label data-field="flash.length_ms">
          Length (ms, 100–10000)
          <input
            type="text"
            inputMode="numeric"
            size={6}
            value={draft.flash.length_ms}
            aria-invalid={err('flash.length_ms') ? true : undefined}
            onInput={(e) => {
              const x = e.currentTarget.value;
              edit((d) => (d.flash.length_ms = x));
            }}
          />
          {err('flash.length_ms') && (
            <span class="field-error" role="alert">
              {err('flash.length_ms')}
            </span>
          )}
        </label>
        <label data-field="flash.brightness">
          Brightness (1–255)
          <input
            type="text"
            inputMode="numeric"
            size={4}
            value={draft.flash.brightness}
            aria-invalid={err('flash.brightness') ? true : undefined}
            onInput={(e) => {
              const x = e.currentTarget.value;
              edit((d) => (d.flash.brightness = x));
            }}
          />
          {err('flash.brightness') && (
            <span class="field-error" role="alert">
              {err('flash.brightness')}
            </span>
          )}
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={draft.flash.holeshot}
            onChange={(e) => {
              const x = e.currentTarget.checked;
              edit((d) => (d.flash.holeshot = x));
            }}
          />
          Flash the holeshot (lap 0)
        </label>
      </div>
    </section>
  );
}
