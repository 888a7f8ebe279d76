/**
 * Device options ("specials"): per option the host's stored value next to the live
 * value read from the node (✓ / ⚠ divergence / ? no answer), write with progress,
 * import of the live value; node methods and one-shot functions, destructive ones
 * confirmed with the schema's own message.
 */
import { useEffect, useState } from 'preact/hooks';
import { get, post } from '../api.ts';
import { formatMac } from '../format.ts';
import { raceMode } from '../race/race-mode.ts';
import { optionLabels } from '../task-text.ts';
import { devices, task, taskRunning } from '../store.ts';
import { toast, toastError } from '../toasts.ts';
import type { Device, Task } from '../types.ts';
import { confirmAction } from '../dialogs/confirm.tsx';
import { Modal } from '../dialogs/Modal.tsx';
import { FunctionCard, type FunctionSchema } from './FunctionCard.tsx';

type Value = number | { start: number; stop: number };

interface OptionSchema {
  key: string;
  label: string;
  unit?: string | null;
  readable: boolean;
  writable: boolean;
  stored_keys: string[];
  type: 'integer' | 'uint16-pair';
  min?: number;
  max?: number;
  default: Value;
  fields?: { name: 'start' | 'stop'; min: number; max: number }[];
}
interface MethodSchema {
  key: string;
  label: string;
  kind: 'toggle' | 'action';
  description?: string;
  configByte_bit?: number;
  destructive?: { message: string };
}
interface CapSchema {
  label: string;
  options: OptionSchema[];
  methods: MethodSchema[];
  functions: FunctionSchema[];
}

type Live = { state: 'reading' } | { state: 'ok'; value: Value } | { state: 'timeout'; error: string };

const same = (a: Value | undefined, b: Value | undefined): boolean => JSON.stringify(a) === JSON.stringify(b);
const show = (v: Value | undefined): string =>
  v === undefined ? '—' : typeof v === 'number' ? String(v) : `${v.start}..${v.stop}`;

function storedValue(d: Device, o: OptionSchema): Value | undefined {
  const s = d.specials ?? {};
  if (o.type === 'uint16-pair') {
    const [a, b] = o.stored_keys;
    const start = s[a ?? ''];
    const stop = s[b ?? ''];
    // 0..0 is the host's placeholder for a segment it never learned (materializeSpecials:
    // pairs have no default, a node's segment follows its LED count), not a stored value:
    // compared with the node's real 0..200 it showed "⚠ 1 differ" on every fresh device.
    if (start === 0 && stop === 0) return undefined;
    return typeof start === 'number' && typeof stop === 'number' ? { start, stop } : undefined;
  }
  const v = s[o.stored_keys[0] ?? o.key];
  return typeof v === 'number' ? v : undefined;
}

/** Follows the write tasks started here (spinners) until they end. */
function useTaskWatch(onEnd: (key: string, ok: boolean) => void) {
  const [pending, setPending] = useState<Record<string, number>>({});
  const t = task.value;
  useEffect(() => {
    if (!t || t.state === 'running') return;
    const entry = Object.entries(pending).find(([, id]) => id === t.id);
    if (!entry) return;
    const [key] = entry;
    setPending((p) => {
      const n = { ...p };
      delete n[key];
      return n;
    });
    // The end itself is announced once, app-wide (live.ts).
    onEnd(key, t.state === 'done');
  }, [t?.id, t?.state]);
  return { pending, add: (key: string, id: number) => setPending((p) => ({ ...p, [key]: id })) };
}

export function DeviceOptionsDialog({ addr, onClose }: { addr: string; onClose: () => void }) {
  const d = devices.value.find((x) => x.addr === addr);
  const [schema, setSchema] = useState<Record<string, CapSchema> | null>(null);
  const [live, setLive] = useState<Record<string, Live>>({});
  const [edit, setEdit] = useState<Record<string, Value>>({});
  const caps = ['NODE', ...(d?.dev_type_caps ?? [])];
  const options = schema ? caps.flatMap((c) => schema[c]?.options ?? []) : [];
  // A write is acknowledged but never read back by the host: read it here, so the live
  // column shows what the node holds now (and a stale "differs" goes away).
  const watch = useTaskWatch((key, ok) => {
    const o = options.find((x) => x.key === key);
    if (o?.readable) void read(o);
    if (ok) setEdit(({ [key]: _, ...rest }) => rest);
  });

  /** Reads one value live; true when the node answered. */
  const read = async (o: OptionSchema): Promise<boolean> => {
    setLive((l) => ({ ...l, [o.key]: { state: 'reading' } }));
    try {
      const r = await post<{ ok: boolean; value?: Value; error?: string }>('specials/get', {
        mac: addr,
        key: o.key,
      });
      setLive((l) => ({
        ...l,
        [o.key]:
          r.ok && r.value !== undefined
            ? { state: 'ok', value: r.value }
            : { state: 'timeout', error: r.error ?? 'timeout' },
      }));
      return r.ok && r.value !== undefined;
    } catch (err) {
      setLive((l) => ({ ...l, [o.key]: { state: 'timeout', error: (err as Error).message } }));
      return false;
    }
  };
  const readAll = async (opts: OptionSchema[]) => {
    // One after the other: a node answers one read at a time. A read lost on a busy
    // channel is tried once more at the end before the row shows "?" with Retry.
    const missed: OptionSchema[] = [];
    for (const o of opts.filter((x) => x.readable)) if (!(await read(o))) missed.push(o);
    for (const o of missed) await read(o);
  };
  useEffect(() => {
    void get<{ specials: Record<string, CapSchema> }>('specials')
      .then((r) => {
        setSchema(r.specials);
        for (const c of Object.values(r.specials))
          for (const o of c.options) optionLabels.set(o.key, o.label);
        void readAll(['NODE', ...(d?.dev_type_caps ?? [])].flatMap((c) => r.specials[c]?.options ?? []));
      })
      .catch((err) => toastError('Loading the options schema failed', err));
  }, [addr]);

  if (!d) return null;
  const write = async (key: string, value?: Value | boolean) => {
    try {
      const r = await post<{ task: Task }>(
        'specials/config',
        value === undefined ? { mac: addr, key } : { mac: addr, key, value },
      );
      watch.add(key, r.task.id);
    } catch (err) {
      toastError(`Writing ${key} failed`, err);
    }
  };
  const importLive = async (o: OptionSchema, value: Value, quiet = false) => {
    try {
      await post('specials/config/import', { mac: addr, key: o.key, value });
      setEdit(({ [o.key]: _, ...rest }) => rest);
      if (!quiet) toast(`Imported ${o.label} = ${show(value)} from the device`);
      return true;
    } catch (err) {
      toastError(`Import of ${o.label} failed`, err);
      return false;
    }
  };
  // Live value known and not what the host stores. (Nothing stored is not a conflict:
  // the row offers Import on its own.)
  const divergent = options.flatMap((o) => {
    const l = live[o.key];
    if (l?.state !== 'ok') return [];
    const stored = storedValue(d, o);
    return stored !== undefined && !same(l.value, stored) ? [{ o, value: l.value }] : [];
  });
  const importAll = async () => {
    let n = 0;
    for (const x of divergent) if (await importLive(x.o, x.value, true)) n++;
    if (n) toast(`Imported ${n} value${n === 1 ? '' : 's'} from ${d.name}`);
  };
  const runMethod = async (m: MethodSchema, value?: boolean) => {
    if (
      m.destructive &&
      !(await confirmAction({
        title: m.label,
        body: `${m.label} on '${d.name}'? ${m.destructive.message}`,
        confirm: m.label,
        danger: true,
      }))
    )
      return;
    await write(m.key, value);
  };
  const busy = taskRunning.value;
  return (
    <Modal title={`Options — ${d.name}`} onClose={onClose} wide testId="options-dialog">
      <div class="row between">
        <span class="mono muted">
          {formatMac(d.full_mac, d.addr)} · {d.dev_type_name} · {d.online ? 'online' : 'offline'}
        </span>
        <button type="button" onClick={() => readAll(options)} title="Read every value from the device again">
          Read device config
        </button>
      </div>
      {divergent.length > 0 && (
        <div class="diverge-banner" role="status" data-testid="divergence-summary">
          <span>
            <span class="badge-warn">⚠ {divergent.length} differ</span> The device holds{' '}
            {divergent.map((x) => x.o.label).join(', ')} other than the host stores. Import adopts the
            device's values (no radio); Push host sends the stored value.
          </span>
          <button type="button" class="primary" onClick={importAll}>
            Import all from device
          </button>
        </div>
      )}
      {!schema && <p class="muted">Loading…</p>}
      {schema &&
        caps.map((c) => {
          const cap = schema[c];
          if (!cap) return null;
          return (
            <section key={c} class="opt-section">
              <h3>{cap.label}</h3>
              {cap.options.map((o) => {
                const stored = storedValue(d, o);
                const l = live[o.key];
                const cur = edit[o.key] ?? stored ?? o.default;
                const diverges = l?.state === 'ok' && stored !== undefined && !same(l.value, stored);
                const unstored = l?.state === 'ok' && stored === undefined;
                const saving = watch.pending[o.key] !== undefined;
                return (
                  <div
                    class={`opt-row${diverges ? ' diverges' : ''}`}
                    key={o.key}
                    data-testid={`opt-${o.key}`}
                  >
                    <div class="opt-label">
                      {o.label}
                      <span class="muted small-text">
                        default: {show(o.default)} · stored: {show(stored)}
                      </span>
                    </div>
                    <div class="opt-input">
                      {o.type === 'uint16-pair' && typeof cur === 'object' ? (
                        (['start', 'stop'] as const).map((f) => (
                          <input
                            key={f}
                            type="number"
                            aria-label={`${o.label} ${f}`}
                            min={0}
                            max={65535}
                            value={cur[f]}
                            onInput={(e) =>
                              setEdit({ ...edit, [o.key]: { ...cur, [f]: Number(e.currentTarget.value) } })
                            }
                          />
                        ))
                      ) : (
                        <input
                          type="number"
                          aria-label={o.label}
                          min={o.min}
                          max={o.max}
                          value={cur as number}
                          onInput={(e) => setEdit({ ...edit, [o.key]: Number(e.currentTarget.value) })}
                        />
                      )}
                      <button
                        type="button"
                        class="small primary"
                        disabled={busy || saving || !o.writable}
                        onClick={() => write(o.key, cur)}
                      >
                        {saving ? 'Saving…' : 'Save'}
                      </button>
                    </div>
                    <div class="opt-live" data-testid={`live-${o.key}`}>
                      {!o.readable ? (
                        <span class="muted">not readable</span>
                      ) : !l || l.state === 'reading' ? (
                        <span class="muted">device: …</span>
                      ) : l.state === 'timeout' ? (
                        <>
                          <span class="muted" title={l.error}>
                            device: ? ({l.error})
                          </span>
                          <button type="button" class="small" onClick={() => read(o)}>
                            Retry
                          </button>
                        </>
                      ) : diverges ? (
                        <>
                          <span class="badge-warn" data-testid="diverge-badge">
                            ⚠ differs
                          </span>
                          <span>device: {show(l.value)}</span>
                          <button
                            type="button"
                            class="small"
                            disabled={busy || saving}
                            onClick={() => write(o.key, stored)}
                            title={`Send the host's stored value ${show(stored)} to the device`}
                          >
                            Push host
                          </button>
                          <button
                            type="button"
                            class="small primary"
                            onClick={() => importLive(o, l.value)}
                            title={`Store the device's value ${show(l.value)} on the host (no radio)`}
                          >
                            Import device
                          </button>
                        </>
                      ) : unstored ? (
                        <>
                          <span class="muted">device: {show(l.value)} · not stored on the host</span>
                          <button
                            type="button"
                            class="small"
                            onClick={() => importLive(o, l.value)}
                            title={`Store the device's value ${show(l.value)} on the host (no radio)`}
                          >
                            Import device
                          </button>
                        </>
                      ) : (
                        <span class="lvl-good">device: {show(l.value)} ✓</span>
                      )}
                    </div>
                  </div>
                );
              })}
              {cap.methods
                .filter((m) => !(raceMode.value && m.destructive))
                .map((m) => {
                  const on = m.configByte_bit !== undefined ? (d.configByte & m.configByte_bit) !== 0 : null;
                  return (
                    <div class="opt-row" key={m.key}>
                      <div class="opt-label">
                        {m.label}
                        {m.description && <span class="muted small-text">{m.description}</span>}
                      </div>
                      <div class="opt-input">
                        {m.kind === 'toggle' ? (
                          <>
                            <span class={`pill tiny ${on ? 'on' : 'off'}`}>{on ? 'ON' : 'OFF'}</span>
                            <button
                              type="button"
                              class="small"
                              disabled={busy || watch.pending[m.key] !== undefined}
                              onClick={() => runMethod(m, true)}
                            >
                              On
                            </button>
                            <button
                              type="button"
                              class="small"
                              disabled={busy || watch.pending[m.key] !== undefined}
                              onClick={() => runMethod(m, false)}
                            >
                              Off
                            </button>
                          </>
                        ) : (
                          <button
                            type="button"
                            class={m.destructive ? 'small danger' : 'small'}
                            disabled={busy || watch.pending[m.key] !== undefined}
                            onClick={() => runMethod(m)}
                          >
                            {watch.pending[m.key] !== undefined ? 'Sending…' : m.label}
                          </button>
                        )}
                      </div>
                    </div>
                  );
                })}
              {cap.functions
                .filter((f) => !(raceMode.value && f.destructive))
                .map((f) => (
                  <FunctionCard key={f.key} f={f} d={d} />
                ))}
            </section>
          );
        })}
    </Modal>
  );
}
