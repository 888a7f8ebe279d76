/**
 * What the timers did: passes per seat and per timing system this race (since the host
 * started, before the first race), the flashes sent and dropped, and the last flashes
 * (colour, source, gate by its group's name, sent or why not).
 */
import { groupsById } from '../store.ts';
import type { FlashRecord, RaceLightsView } from './race-lights-data.ts';
import { ago } from './time.ts';

const SOURCE_LABEL: Record<FlashRecord['source'], string> = {
  rotorhazard: 'RotorHazard',
  fpvtrackside: 'FPVTrackside',
  test: 'Test',
};

function Swatches({ colors }: { colors: readonly string[] }) {
  return (
    <span class="rl-swatches">
      {colors.map((c, i) => (
        <span
          key={i}
          class="rl-swatch"
          role="img"
          aria-label={`colour ${c}`}
          style={{ background: c }}
          title={c}
        />
      ))}
    </span>
  );
}

/**
 * The host records a flash's gate as "group N" / "device X" / "all devices": a group is
 * shown by its name (as the operator named it on the Groups page), its number beside it.
 */
export function gateText(gate: string): string {
  const m = /^group (\d+)$/.exec(gate);
  if (!m) return gate;
  const g = groupsById.value.get(Number(m[1]));
  return g ? `${g.name} (group ${m[1]})` : gate;
}

function flashWho(f: FlashRecord): string {
  if (f.source === 'test') return '';
  if (f.timing_system !== null) return `timing system ${f.timing_system}`;
  return f.seats.map((s) => `seat ${s + 1}`).join(', ') || '—';
}

export function LivePasses({ v, now }: { v: RaceLightsView; now: number }) {
  const seats = v.passes.seats;
  const systems = v.passes.timing_systems;
  const flashes = [...v.recent_flashes].reverse().slice(0, 12);
  return (
    <section class="rl-section" data-testid="rl-live">
      <h2>Live</h2>
      <div class="rl-live">
        <div>
          <h3 data-testid="rl-passes-since">
            {v.passes.since === 'race'
              ? `Passes this race (counted from its start, ${ago(v.passes.since_epoch_ms, now)})`
              : 'Passes since the host started (no race yet)'}
          </h3>
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
                  {gateText(f.gate)}{' '}
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
