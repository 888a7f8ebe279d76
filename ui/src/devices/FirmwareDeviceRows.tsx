/** The per-device rows of a firmware update: state, stage, upload progress, messages and fix hints. */
import { devices } from '../store.ts';

/** What the firmware task publishes in its meta while it runs. */
export interface FirmwareTaskMeta {
  macs?: string[];
  deviceState?: Record<string, string>;
  deviceMessages?: Record<string, string>;
  deviceProgress?: Record<string, { percent: number }>;
  addr?: string;
  stage?: string;
  message?: string;
}

const HINTS: [RegExp, string][] = [
  [/HTTP 401/i, 'The LED OTA password is not the default — fill it in.'],
  [/authentication failed/i, 'Wrong AP password, or the node is rate-limiting: wait ~30 s and retry.'],
  [/PIN/i, 'The node has a settings PIN; clear it on the node.'],
  [
    /release name|mismatch/i,
    'Binary from another firmware fork: tick "Skip firmware-name validation" only if you are sure.',
  ],
  [
    /CONFIG ACK|AP-enable|no ACK/i,
    'The node did not hear the radio command: check it is online (Get Status).',
  ],
];
const hintFor = (msg: string): string | undefined => HINTS.find(([re]) => re.test(msg))?.[1];

const STATE_LOOK: Record<string, [string, string]> = {
  queued: ['none', '•'],
  skipped: ['none', '–'],
  running: ['tx', '⟳'],
  ok: ['good', '✓'],
  error: ['bad', '✗'],
  reannounce_timeout: ['warn', '⚠'],
};

export function FirmwareDeviceRows({ m, running }: { m: FirmwareTaskMeta; running: boolean }) {
  const macs = m.macs ?? [];
  const states = m.deviceState ?? {};
  const name = (a: string) => devices.value.find((d) => d.addr === a)?.name ?? a;
  return (
    <ul class="fw-rows" data-testid="fw-rows">
      {macs.map((a) => {
        const raw = states[a] ?? 'queued';
        // Still queued when the task ended: it never started (cancel or stop on error).
        const s = !running && raw === 'queued' ? 'skipped' : raw;
        const [cls, sym] = STATE_LOOK[s] ?? ['none', '?'];
        const msg = m.deviceMessages?.[a];
        const pct = m.deviceProgress?.[a]?.percent;
        return (
          <li key={a} class={`fw-row ${cls}`} data-addr={a} data-state={s}>
            <span class={`lvl-${cls}`} aria-hidden="true">
              {sym}
            </span>
            <span class="fw-name">
              {name(a)} <span class="mono muted">{a}</span>
            </span>
            <span class="fw-state">{s}</span>
            <span class="progress">
              <span
                class="bar"
                style={{ width: `${s === 'ok' || s === 'reannounce_timeout' ? 100 : (pct ?? 0)}%` }}
              />
              <span class="progress-text">
                {s === 'running' ? `${m.stage ?? ''} ${pct !== undefined ? `${pct}%` : ''}` : ''}
              </span>
            </span>
            {s === 'running' && m.addr === a && m.message && (
              <span class="muted small-text">{m.message}</span>
            )}
            {msg && (
              <span class={s === 'error' ? 'error-text small-text' : 'muted small-text'}>
                {msg}
                {s === 'error' && hintFor(msg) ? ` — ${hintFor(msg)}` : ''}
              </span>
            )}
          </li>
        );
      })}
    </ul>
  );
}
