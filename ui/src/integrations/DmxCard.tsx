/**
 * DMX in (sACN / Art-Net): each universe's stream state and counters (refused and bad input
 * in red when not zero), its last source and error; the patch — which group is a virtual
 * fixture at which address — editable and saved whole (the host checks it: a refusal names
 * the row and field); and the live channel values of every patched fixture, with the
 * channel names. Read from the host a few times a second while shown.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, put } from '../api.ts';
import { groups } from '../store.ts';
import { toast } from '../toasts.ts';
import { ago } from './Counters.tsx';
import { FOOTPRINT, POLL_MS, type DmxState, type PatchEntry } from './dmx-data.ts';

type Universe = Extract<DmxState, { enabled: true }>['universes'][number];

const STATE_TEXT: Record<Universe['state'], string> = {
  idle: 'no stream yet',
  live: 'live',
  holding: 'holding the last look',
  released: 'stopped — groups released',
};

function useDmx(): { v: DmxState | null; error: string | null } {
  const [v, setV] = useState<DmxState | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let stop = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async (): Promise<void> => {
      try {
        const r = await get<DmxState>('dmx');
        if (stop) return;
        setV(r);
        setError(null);
      } catch (err) {
        if (!stop) setError((err as Error).message);
      }
      if (!stop) timer = setTimeout(() => void tick(), POLL_MS);
    };
    void tick();
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, []);
  return { v, error };
}

function UniverseBox({ u, port }: { u: Universe; port: number | undefined }) {
  const counters: [string, number, boolean][] = [
    ['packets in', u.packets, false],
    ['frames changed', u.frames_changed, false],
    ['commands sent', u.commands_sent, false],
    ['dropped for rate', u.dropped_for_rate, false],
    ['refused (held)', u.refused.held, true],
    ['refused (rate)', u.refused.rate_limited, true],
    ['refused (off)', u.refused.disabled, true],
    ['send failed', u.send_failed, true],
    ['malformed', u.malformed, true],
    ['oversized', u.oversized, true],
  ];
  return (
    <section class="int-universe" data-testid={`dmx-universe-${u.key}`} aria-label={`Universe ${u.key}`}>
      <h4>
        <span class={`int-dot ${u.state}`} aria-hidden="true" />
        {u.key}{' '}
        <span class="muted" data-testid="dmx-state">
          {STATE_TEXT[u.state]}
        </span>
        {port !== undefined && <span class="muted"> · UDP {port}</span>}
      </h4>
      <dl class="int-counters">
        {counters.map(([k, n, bad]) => (
          <div key={k} class={bad && n > 0 ? 'int-bad' : ''}>
            <dt>{k}</dt>
            <dd>{n}</dd>
          </div>
        ))}
      </dl>
      <SourceLine u={u} />
      <LastError u={u} />
    </section>
  );
}

const clock = (ms: number): string =>
  new Date(ms).toLocaleTimeString([], {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });
const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

/** The console feeding the universe — or, once none is live, the last one heard and when. */
function SourceLine({ u }: { u: Universe }) {
  const s = u.last_source;
  if (!s)
    return (
      <p class="muted" data-testid="dmx-source">
        Source: none yet
      </p>
    );
  const live = plural(u.sources, 'live source');
  if (u.sources > 0)
    return (
      <p class="muted" data-testid="dmx-source">
        Source: {s.name} (priority {s.priority}, {live})
      </p>
    );
  const heard =
    u.last_packet_ms_ago === null ? '' : `, last heard ${clock(Date.now() - u.last_packet_ms_ago)}`;
  return (
    <p class="muted" data-testid="dmx-source">
      Last source: {s.name} (priority {s.priority}
      {heard}) · {live}
    </p>
  );
}

/**
 * The universe's last refusal or failure, with its time: red while it is what happens now,
 * muted once a later command for the universe went through (kept, since it explains a look
 * that was missed).
 */
function LastError({ u }: { u: Universe }) {
  if (u.last_error === null) return null;
  const at = Date.now() - (u.last_error_ms_ago ?? 0);
  return (
    <p
      class={u.last_error_past ? 'muted int-past' : 'int-error'}
      data-testid="dmx-last-error"
      data-past={u.last_error_past ? 'true' : 'false'}
    >
      {u.last_error_past ? 'Earlier error' : 'Last error'} at {clock(at)} ({ago(at, Date.now())}
      {u.last_error_past ? ', commands go through since' : ''}): {u.last_error}
    </p>
  );
}

function groupName(id: number): string {
  if (id === 0) return 'Unconfigured';
  return groups.value.find((g) => g.id === id)?.name ?? `group ${id}`;
}

function PatchEditor({ v }: { v: Extract<DmxState, { enabled: true }> }) {
  const saved = v.fixtures.map(({ group, universe, address, fixture }) => ({
    group,
    universe,
    address,
    fixture,
  }));
  const [rows, setRows] = useState<PatchEntry[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const edit = rows ?? saved;
  const dirty = rows !== null && JSON.stringify(rows) !== JSON.stringify(saved);
  const universes = v.universes.map((u) => u.key);
  const set = (i: number, p: Partial<PatchEntry>): void =>
    setRows(edit.map((r, j) => (j === i ? { ...r, ...p } : r)));
  const nextFree = (): number => {
    const mine = edit.filter((r) => r.universe === universes[0]);
    return mine.reduce((a, r) => Math.max(a, r.address + FOOTPRINT[r.fixture]), 1);
  };
  const used = new Set(edit.map((r) => r.group));
  // The store's list may hold group 0 itself: each group once, Unconfigured first.
  const choices = [
    { id: 0, name: 'Unconfigured' },
    ...groups.value.filter((g) => g.id !== 0).map((g) => ({ id: g.id, name: g.name })),
  ];
  const save = async (): Promise<void> => {
    setBusy(true);
    try {
      await put('dmx/patch', { fixtures: edit });
      setRows(null);
      setError(null);
      toast('DMX patch saved');
    } catch (err) {
      setError(err instanceof ApiError ? err.message : (err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="int-patch" aria-label="DMX patch">
      <h4>Patch</h4>
      {edit.length === 0 && (
        <p class="muted">No group is patched yet: add a fixture for each group the console should drive.</p>
      )}
      <ul class="int-rows">
        {edit.map((r, i) => {
          const end = r.address + FOOTPRINT[r.fixture] - 1;
          return (
            <li key={i} class="int-row" data-testid={`dmx-row-${i}`}>
              <label>
                Group
                <select
                  value={r.group}
                  onChange={(e) => set(i, { group: Number((e.target as HTMLSelectElement).value) })}
                >
                  {choices.map((g) => (
                    <option key={g.id} value={g.id} disabled={g.id !== r.group && used.has(g.id)}>
                      {g.name}
                      {g.id !== 0 && ` (${g.id})`}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                Universe
                <select
                  value={r.universe}
                  onChange={(e) => set(i, { universe: (e.target as HTMLSelectElement).value })}
                >
                  {[...new Set([...universes, r.universe])].map((u) => (
                    <option key={u} value={u}>
                      {u}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                Address
                <input
                  type="number"
                  min={1}
                  max={512}
                  value={r.address}
                  onInput={(e) => set(i, { address: Number((e.target as HTMLInputElement).value) })}
                />
              </label>
              <label>
                Fixture
                <select
                  value={r.fixture}
                  onChange={(e) =>
                    set(i, { fixture: (e.target as HTMLSelectElement).value as PatchEntry['fixture'] })
                  }
                >
                  <option value="full">8 ch: full</option>
                  <option value="rgb">4 ch: dimmer + RGB</option>
                </select>
              </label>
              <span class="muted int-span" data-testid="dmx-footprint">
                {FOOTPRINT[r.fixture]} ch · {r.address}–{end}
              </span>
              <button
                type="button"
                class="ghost"
                aria-label={`Remove the fixture of ${groupName(r.group)}`}
                onClick={() => setRows(edit.filter((_, j) => j !== i))}
              >
                Remove
              </button>
            </li>
          );
        })}
      </ul>
      {error && (
        <p class="int-error" role="alert" data-testid="dmx-patch-error">
          {error}
        </p>
      )}
      <div class="int-actions">
        <button
          type="button"
          disabled={universes.length === 0}
          onClick={() => {
            // The first real group not patched yet; Unconfigured only when every group is.
            const free =
              choices.find((g) => g.id !== 0 && !used.has(g.id)) ?? choices.find((g) => !used.has(g.id));
            setRows([
              ...edit,
              {
                group: free?.id ?? 0,
                universe: universes[0] ?? '',
                address: Math.min(nextFree(), 505),
                fixture: 'full',
              },
            ]);
          }}
        >
          Add fixture
        </button>
        <button type="button" class="primary" disabled={!dirty || busy} onClick={() => void save()}>
          {busy ? 'Saving…' : 'Save patch'}
        </button>
        {dirty && (
          <button type="button" class="ghost" onClick={() => (setRows(null), setError(null))}>
            Discard
          </button>
        )}
      </div>
    </section>
  );
}

function LiveValues({ v }: { v: Extract<DmxState, { enabled: true }> }) {
  if (v.fixtures.length === 0) return null;
  return (
    <section class="int-live" aria-label="Live channel values">
      <h4>Live values</h4>
      {v.fixtures.map((f) => {
        const u = v.universes.find((x) => x.key === f.universe);
        return (
          <div key={f.group} class="int-fixture" data-testid={`dmx-live-${f.group}`}>
            <p>
              <strong>{groupName(f.group)}</strong>{' '}
              <span class="muted">
                {f.universe} @ {f.address}
                {f.holding ? ' · held by DMX' : ''}
              </span>
            </p>
            <ol class="int-channels">
              {f.channels.map((name, i) => {
                const val = u?.values[f.address - 1 + i] ?? 0;
                return (
                  <li key={name} data-channel={name}>
                    <span class="int-ch">
                      {f.address + i} {name}
                    </span>
                    <span class="int-bar" aria-hidden="true">
                      <span style={{ width: `${(val / 255) * 100}%` }} />
                    </span>
                    <span class="int-val" data-testid={`dmx-value-${f.group}-${name}`}>
                      {val}
                    </span>
                  </li>
                );
              })}
            </ol>
          </div>
        );
      })}
    </section>
  );
}

export function DmxCard() {
  const { v, error } = useDmx();
  return (
    <section class="int-card" data-testid="dmx-card" aria-label="DMX in">
      <h3>
        <span
          class={`int-dot ${v?.enabled && v.universes.some((u) => u.state === 'live') ? 'live' : ''}`}
          aria-hidden="true"
        />
        DMX in <span class="muted">sACN / Art-Net</span>
      </h3>
      {error && <p class="int-error">Not current: {error}</p>}
      {!v ? (
        <p class="muted">Reading…</p>
      ) : !v.enabled ? (
        <p class="muted" data-testid="dmx-off">
          Off. Start the host with <code>--dmx sacn:1</code> (or <code>artnet:0.0.1</code>; several as a list)
          and <code>--host 0.0.0.0</code> for a console on the LAN. A console's channels then drive groups as
          virtual fixtures, at the live-control priority (below flags and Blackout).
        </p>
      ) : (
        <>
          <p class="muted int-note">
            A changed look costs one radio frame per group; DMX uses at most {Math.round(v.air.share * 100)} %
            of each network's air, the newest value always last. A stream that stops holds its look for 3 s,
            then lets go.
          </p>
          <div class="int-universes">
            {v.universes.map((u) => (
              <UniverseBox key={u.key} u={u} port={v.ports[u.protocol]} />
            ))}
          </div>
          {(v.unmatched.unknown_universe > 0 || v.unmatched.malformed > 0 || v.unmatched.oversized > 0) && (
            <p class="int-error" data-testid="dmx-unmatched">
              Not for a configured universe: {v.unmatched.unknown_universe} · malformed:{' '}
              {v.unmatched.malformed} · oversized: {v.unmatched.oversized}
            </p>
          )}
          <PatchEditor v={v} />
          <LiveValues v={v} />
        </>
      )}
    </section>
  );
}
