/**
 * The timers that feed the race lights, one card each (RotorHazard's plugin, FPVTrackside's
 * push): connected or not, the last event, the counters of refused input (red when not
 * zero), the last error; for FPVTrackside its NotificationURL to copy and a new token.
 */
import { useState } from 'preact/hooks';
import { post } from '../api.ts';
import { confirmAction } from '../dialogs/confirm.tsx';
import { toast, toastError } from '../toasts.ts';
import { reload, timers, type SourceState } from './race-lights-data.ts';
import { ago } from './time.ts';

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

export function SourceCards({ now }: { now: number }) {
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
