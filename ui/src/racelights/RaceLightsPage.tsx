/**
 * Race lights: what the timers send and what the gates do with it, on one page. Each source
 * (RotorHazard's plugin, FPVTrackside's push) with its state and refused input; the live
 * pass counters and last flashes; the mapping of seats and timing systems to gates, the lap
 * flash and each phase's look, editable and saved to the host (validated there: a refusal
 * shows next to its field); a Test per gate. Follows the host live (race-lights-data.ts).
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, post, put } from '../api.ts';
import { confirmAction } from '../dialogs/confirm.tsx';
import { relativeTime } from '../format.ts';
import { devices, groups, link, scenes } from '../store.ts';
import { toast, toastError } from '../toasts.ts';
import { bodyOf, draftOf, fieldLabel, fieldOfError, gateOf, type Draft, type GateDraft } from './draft.ts';
import { GatePicker } from './GatePicker.tsx';
import {
  follow,
  readAt,
  readError,
  reload,
  timers,
  view,
  type FlashRecord,
  type PhaseRecord,
  type RaceLightsView,
  type SourceState,
} from './race-lights-data.ts';
import './race-lights.css';

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

const SOURCE_LABEL: Record<FlashRecord['source'], string> = {
  rotorhazard: 'RotorHazard',
  fpvtrackside: 'FPVTrackside',
  test: 'Test',
};

function useNow(): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return now;
}

const ago = (ms: number | null | undefined, now: number): string =>
  ms ? relativeTime(ms / 1000, now / 1000) : 'never';

export function RaceLightsPage() {
  useEffect(() => follow(), []);
  const v = view.value;
  const now = useNow();
  return (
    <main class="rl-page" id="main" data-testid="race-lights-page">
      <header class="rl-head">
        <h1>Race lights</h1>
        <span class="muted rl-fresh" data-testid="rl-fresh">
          {readError.value
            ? `Not current: ${readError.value}`
            : link.value === 'open'
              ? 'Live'
              : `Stream down: read ${ago(readAt.value, now)}, every 3 s`}
        </span>
      </header>
      {!v ? (
        <p class="muted">{readError.value ? `Loading failed: ${readError.value}` : 'Loading…'}</p>
      ) : (
        <>
          <Sources now={now} />
          <Live v={v} now={now} />
          <Editor v={v} now={now} />
        </>
      )}
    </main>
  );
}

function Counters({ counters, bad }: { counters: Record<string, number>; bad: readonly string[] }) {
  return (
    <dl class="rl-counters">
      {Object.entries(counters).map(([k, n]) => (
        <div key={k} class={bad.includes(k) && n > 0 ? 'rl-bad' : ''} data-counter={k}>
          <dt>{k.replace(/_/g, ' ')}</dt>
          <dd>{n}</dd>
        </div>
      ))}
    </dl>
  );
}

const BAD = ['malformed', 'unknown', 'out_of_order', 'duplicate', 'unauthorized', 'dropped'];

function SourceCard({
  name,
  s,
  note,
  children,
  now,
  testid,
}: {
  name: string;
  s: SourceState;
  note: string;
  children?: preact.ComponentChildren;
  now: number;
  testid: string;
}) {
  const ev = s.last_event;
  return (
    <section class="rl-card" data-testid={testid} aria-label={name}>
      <h3>
        <span class={`rl-dot ${s.connected ? 'on' : ''}`} aria-hidden="true" />
        {name} <span class="muted">{s.connected ? 'connected' : 'not connected'}</span>
      </h3>
      <p class="muted rl-note">{note}</p>
      <p data-testid={`${testid}-last`}>
        Last event:{' '}
        {ev ? (
          <>
            <strong>
              {ev.type}
              {ev.detail ? ` (${ev.detail})` : ''}
              {ev.seq !== undefined ? ` #${ev.seq}` : ''}
            </strong>{' '}
            {ago(ev.received_epoch_ms, now)}
          </>
        ) : (
          'none yet'
        )}
        {' · '}
        {s.events_per_minute} events/min
      </p>
      {s.last_error && (
        <p class="error-text rl-last-error">
          Last error ({ago(s.last_error.at_epoch_ms, now)}): {s.last_error.error}
        </p>
      )}
      <Counters counters={s.counters} bad={BAD} />
      {children}
    </section>
  );
}

function Sources({ now }: { now: number }) {
  const t = timers.value;
  const [busy, setBusy] = useState(false);
  if (!t) return null;
  const rh = t.rotorhazard;
  const fpv = t.fpvtrackside;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(fpv.url);
      toast('FPVTrackside URL copied');
    } catch {
      // No clipboard (plain http from another machine): the field is selected for Ctrl-C.
      const el = document.getElementById('rl-fpv-url') as HTMLInputElement | null;
      el?.select();
      toast('Copy it from the selected field (the browser refused the clipboard)', 'error');
    }
  };
  const newToken = async () => {
    const ok = await confirmAction({
      title: 'Make a new FPVTrackside token?',
      body: 'The URL changes: FPVTrackside is refused (401) until you paste the new URL into its NotificationURL and restart it.',
      confirm: 'New token',
      danger: true,
    });
    if (!ok) return;
    setBusy(true);
    try {
      await post('timers/token');
      await reload();
      toast('New token made: paste the new URL into FPVTrackside');
    } catch (err) {
      toastError('New token failed', err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="rl-section">
      <h2>Timers</h2>
      <div class="rl-sources">
        <SourceCard
          name="RotorHazard"
          s={rh}
          now={now}
          testid="rl-src-rotorhazard"
          note={
            rh.mode === 'rotorhazard'
              ? 'Started by the RotorHazard plugin. Settings there or here are the same settings.'
              : 'This host was not started by the RotorHazard plugin: its laps cannot arrive here.'
          }
        />
        <SourceCard
          name="FPVTrackside"
          s={fpv}
          now={now}
          testid="rl-src-fpvtrackside"
          note={
            fpv.race
              ? `Race ${fpv.race.round ?? '?'}/${fpv.race.race ?? '?'}: ${fpv.race.state}. Detections flashed ${fpv.detections.flashed}, filtered ${fpv.detections.filtered}.`
              : 'Silent between races (it sends nothing until an event happens).'
          }
        >
          <label class="rl-url-label" for="rl-fpv-url">
            NotificationURL for FPVTrackside (profile settings → Gate / LED POST notifications, ExtensionMode
            on)
          </label>
          <div class="rl-url">
            <input
              id="rl-fpv-url"
              type="text"
              readOnly
              value={fpv.url}
              onFocus={(e) => e.currentTarget.select()}
              data-testid="rl-fpv-url"
            />
            <button type="button" onClick={() => void copy()}>
              Copy
            </button>
            <button type="button" class="ghost" disabled={busy} onClick={() => void newToken()}>
              New token…
            </button>
          </div>
          <p class="muted rl-note">
            Opened this page as <code>localhost</code>? Put this machine's network address in its place when
            FPVTrackside runs on another computer.
          </p>
        </SourceCard>
      </div>
    </section>
  );
}

function Swatches({ colors }: { colors: readonly string[] }) {
  return (
    <span class="rl-swatches">
      {colors.map((c, i) => (
        <span key={i} class="rl-swatch" style={{ background: c }} title={c} />
      ))}
    </span>
  );
}

function flashWho(f: FlashRecord): string {
  if (f.source === 'test') return '';
  if (f.timing_system !== null) return `timing system ${f.timing_system}`;
  return f.seats.map((s) => `seat ${s + 1}`).join(', ') || '—';
}

function Live({ v, now }: { v: RaceLightsView; now: number }) {
  const seats = v.passes.seats;
  const systems = v.passes.timing_systems;
  const flashes = [...v.recent_flashes].reverse().slice(0, 12);
  return (
    <section class="rl-section" data-testid="rl-live">
      <h2>Live</h2>
      <div class="rl-live">
        <div>
          <h3>Passes since the host started</h3>
          {seats.length + systems.length === 0 ? (
            <p class="muted">No lap yet.</p>
          ) : (
            <table class="rl-table" data-testid="rl-passes">
              <thead>
                <tr>
                  <th>From</th>
                  <th>Passes</th>
                  <th>Last lap</th>
                  <th>When</th>
                </tr>
              </thead>
              <tbody>
                {seats.map((p) => (
                  <tr key={`s${p.seat}`} data-testid={`rl-pass-seat-${p.seat}`}>
                    <td>Seat {p.seat + 1}</td>
                    <td>{p.passes}</td>
                    <td>{p.last_lap}</td>
                    <td>{ago(p.last_epoch_ms, now)}</td>
                  </tr>
                ))}
                {systems.map((p) => (
                  <tr key={`t${p.index}`} data-testid={`rl-pass-ts-${p.index}`}>
                    <td>Timing system {p.index}</td>
                    <td>{p.passes}</td>
                    <td>{p.last_lap}</td>
                    <td>{ago(p.last_epoch_ms, now)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <p class="muted rl-note">
            {v.stats.flashes_sent} flashes sent · dropped:{' '}
            {Object.entries(v.stats.dropped)
              .map(([k, n]) => `${k.replace(/_/g, ' ')} ${n}`)
              .join(', ')}
            {' · not flashed: '}
            {Object.entries(v.stats.ignored)
              .map(([k, n]) => `${k.replace(/_/g, ' ')} ${n}`)
              .join(', ')}
          </p>
        </div>
        <div>
          <h3>Last flashes</h3>
          {flashes.length === 0 ? (
            <p class="muted">None yet.</p>
          ) : (
            <ul class="rl-flashes" data-testid="rl-flashes">
              {flashes.map((f, i) => (
                <li key={`${f.received_epoch_ms}-${i}`} class={f.ok ? '' : 'rl-bad'}>
                  <Swatches colors={f.colors} /> <strong>{SOURCE_LABEL[f.source]}</strong> {flashWho(f)} →{' '}
                  {f.gate}{' '}
                  <span class="muted">
                    {f.ok
                      ? `sent ${ago(f.sent_epoch_ms, now)}`
                      : f.error
                        ? `not sent: ${f.error.replace(/_/g, ' ')}`
                        : 'on its way'}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </div>
      </div>
    </section>
  );
}

type Errors = Map<string, string>;

function Editor({ v, now }: { v: RaceLightsView; now: number }) {
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

  const save = async () => {
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
        // Bring the field to the operator (a long page on a phone).
        if (key)
          requestAnimationFrame(() =>
            document.querySelector(`[data-field="${key}"]`)?.scrollIntoView({ block: 'center' }),
          );
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
  const seatColor = (seat: number): string | null =>
    draft.seats[seat]?.color ?? v.seat_colors.find((c) => c.seat === seat)?.color ?? null;

  const lastPhase = (p: string): PhaseRecord | undefined =>
    [...v.recent_phases].reverse().find((r) => r.phase === p);

  return (
    <>
      <datalist id="rl-groups">
        {groups.value
          .filter((g) => g.id !== 0)
          .map((g) => (
            <option key={g.id} value={String(g.id)}>
              {g.name}
            </option>
          ))}
      </datalist>
      <datalist id="rl-devices">
        {devices.value.map((d) => (
          <option key={d.addr} value={d.addr}>
            {d.name}
          </option>
        ))}
      </datalist>

      <section class="rl-section" data-testid="rl-mapping">
        <h2>Gates</h2>
        <label class="check">
          <input
            type="checkbox"
            checked={draft.enabled}
            onChange={(e) => edit((d) => (d.enabled = e.currentTarget.checked))}
          />
          React to laps and race phases (off: the timers' events change no light; Test still works)
        </label>
        <div class="rl-rows">
          <GateRow
            label="Gate of all seats (timing line)"
            field="all_seats_gate"
            gate={draft.all_seats_gate}
            none="(none)"
            error={err('all_seats_gate')}
            testError={err('test.all')}
            onGate={(g) => edit((d) => (d.all_seats_gate = g))}
            onTest={() => void test('gate of all seats', { gate: gateOf(draft.all_seats_gate) }, 'all')}
            testDisabled={draft.all_seats_gate.kind === ''}
          />
          <GateRow
            label="Finish gate (the winner's colour)"
            field="finish_gate"
            gate={draft.finish_gate}
            none="(gate of all seats)"
            error={err('finish_gate')}
            testError={err('test.finish')}
            onGate={(g) => edit((d) => (d.finish_gate = g))}
            onTest={() =>
              void test('finish gate', testBody({ finish: true }, draft.finish_gate, null), 'finish')
            }
            testDisabled={draft.finish_gate.kind === '' && draft.all_seats_gate.kind === ''}
          />
        </div>

        <h3>RotorHazard seats</h3>
        <div class="rl-rows" data-testid="rl-seats">
          {draft.seats.map((row, seat) => {
            const color = seatColor(seat);
            const from = row.color ? 'own' : v.seat_colors.find((c) => c.seat === seat)?.from;
            return (
              <GateRow
                key={seat}
                label={`Seat ${seat + 1}`}
                field={`seat.${seat}.gate`}
                gate={row.gate}
                none="(gate of all seats)"
                error={err(`seat.${seat}.gate`)}
                testError={err(`test.seat.${seat}`)}
                onGate={(g) => edit((d) => ((d.seats[seat] as Draft['seats'][number]).gate = g))}
                onTest={() =>
                  void test(
                    `seat ${seat + 1}`,
                    testBody({ seat }, row.gate.kind ? row.gate : draft.all_seats_gate, color),
                    `seat.${seat}`,
                  )
                }
                testDisabled={row.gate.kind === '' && draft.all_seats_gate.kind === ''}
              >
                <span class="rl-colour" data-field={`seat.${seat}.color`}>
                  <label class="check" title="Overrides the seat colour RotorHazard sends">
                    <input
                      type="checkbox"
                      checked={row.color !== null}
                      aria-label={`Seat ${seat + 1}: own colour`}
                      onChange={(e) => {
                        const on = e.currentTarget.checked;
                        edit(
                          (d) =>
                            ((d.seats[seat] as Draft['seats'][number]).color = on
                              ? (color ?? '#ffffff')
                              : null),
                        );
                      }}
                    />
                    own
                  </label>
                  {row.color !== null ? (
                    <input
                      type="color"
                      value={row.color}
                      aria-label={`Seat ${seat + 1}: colour`}
                      onInput={(e) => {
                        const c = e.currentTarget.value;
                        edit((d) => ((d.seats[seat] as Draft['seats'][number]).color = c));
                      }}
                    />
                  ) : (
                    <span
                      class="rl-swatch"
                      style={{ background: color ?? '#ffffff' }}
                      title={color ?? 'white (no colour known)'}
                    />
                  )}
                  <span class="muted rl-from">
                    {from === 'heat' ? 'heat' : from === 'own' ? '' : 'white'}
                  </span>
                  {err(`seat.${seat}.color`) && (
                    <span class="field-error" role="alert">
                      {err(`seat.${seat}.color`)}
                    </span>
                  )}
                </span>
              </GateRow>
            );
          })}
        </div>

        <h3>FPVTrackside timing systems</h3>
        <p class="muted rl-note">
          Index 0 is the lap loop (without a row: the gate of all seats), 1 … its split gates.
        </p>
        <div class="rl-rows" data-testid="rl-timing-systems">
          {draft.timing_systems.map((row, i) => (
            <GateRow
              key={i}
              label={`Timing system`}
              field={`ts.${i}.gate`}
              gate={row.gate}
              none="(choose)"
              error={err(`ts.${i}.gate`)}
              testError={err(`test.ts.${i}`)}
              onGate={(g) => edit((d) => ((d.timing_systems[i] as Draft['timing_systems'][number]).gate = g))}
              onTest={() =>
                void test(
                  `timing system ${row.index}`,
                  testBody({ timing_system: Number(row.index) }, row.gate, null),
                  `ts.${i}`,
                )
              }
              testDisabled={row.gate.kind === ''}
              lead={
                <span class="rl-index" data-field={`ts.${i}.index`}>
                  <input
                    type="text"
                    inputMode="numeric"
                    size={3}
                    aria-label={`Timing system ${i + 1}: index`}
                    value={row.index}
                    onInput={(e) => {
                      const val = e.currentTarget.value;
                      edit((d) => ((d.timing_systems[i] as Draft['timing_systems'][number]).index = val));
                    }}
                  />
                  {err(`ts.${i}.index`) && (
                    <span class="field-error" role="alert">
                      {err(`ts.${i}.index`)}
                    </span>
                  )}
                </span>
              }
            >
              <button
                type="button"
                class="ghost"
                aria-label={`Remove timing system ${row.index}`}
                onClick={() => edit((d) => d.timing_systems.splice(i, 1))}
              >
                Remove
              </button>
            </GateRow>
          ))}
        </div>
        <button
          type="button"
          onClick={() =>
            edit((d) => {
              const used = new Set(d.timing_systems.map((t) => Number(t.index)));
              let next = 0;
              while (used.has(next)) next++;
              d.timing_systems.push({ index: String(next), gate: { kind: '', value: '' } });
            })
          }
        >
          Add a timing system
        </button>
      </section>

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

function GateRow({
  label,
  field,
  gate,
  none,
  error,
  testError,
  onGate,
  onTest,
  testDisabled,
  lead,
  children,
}: {
  label: string;
  field: string;
  gate: GateDraft;
  none: string;
  error: string | null;
  testError: string | null;
  onGate: (g: GateDraft) => void;
  onTest: () => void;
  testDisabled: boolean;
  lead?: preact.ComponentChildren;
  children?: preact.ComponentChildren;
}) {
  const id = `rl-${field.replace(/\./g, '-')}`;
  return (
    <div class="rl-row" data-field={field}>
      <label class="rl-row-label" for={id}>
        {label}
      </label>
      {lead}
      <GatePicker id={id} label={label} value={gate} noneLabel={none} error={error} onChange={onGate} />
      {children}
      <button
        type="button"
        class="rl-test"
        disabled={testDisabled}
        title={testDisabled ? 'No gate to flash' : `Flash this gate once with the lap flash`}
        aria-label={`Test ${label}`}
        onClick={onTest}
      >
        Test
      </button>
      {testError && (
        <span class="field-error rl-test-error" role="alert">
          {testError}
        </span>
      )}
    </div>
  );
}
