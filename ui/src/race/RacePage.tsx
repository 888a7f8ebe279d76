/**
 * The race-day panel: Blackout, the race flags (four big buttons), race mode, the fleet at a glance (gateway, online
 * count, low batteries) and big buttons for the pinned scenes (keys 1–9 while this
 * page is open), with the running scene's progress and Stop. Race mode and the pins are
 * shared by every browser (kept on the host).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { post } from '../api.ts';
import { formatDuration, formatVolts } from '../format.ts';
import { registerShortcut } from '../keys.ts';
import { navigate } from '../router.ts';
import { onSceneProgress } from '../live.ts';
import { devices, scenes } from '../store.ts';
import { toast, toastError } from '../toasts.ts';
import { lowBattery } from '../common/battery.ts';
import { GatewayPill } from '../shell/StatusBar.tsx';
import { BlackoutButton } from './BlackoutButton.tsx';
import { FlagPanel } from './FlagButtons.tsx';
import { MAX_PINNED, pinnedScenes, raceMode, setPinned, setRaceMode } from './race-mode.ts';
import './race.css';

interface RunResult {
  ok: boolean;
  error: string | null;
  cancelled?: boolean;
  total_duration_ms?: number;
}

function useRunner() {
  const [running, setRunning] = useState<string | null>(null);
  const [step, setStep] = useState<{ index: number; total: number } | null>(null);
  const runningRef = useRef<string | null>(null);
  useEffect(
    () =>
      onSceneProgress((p) => {
        if (p.key === runningRef.current && p.phase === 'start') setStep({ index: p.index, total: p.total });
      }),
    [],
  );
  const run = async (key: string, label: string) => {
    if (runningRef.current) return toast(`'${label}' not started: another scene is running`, 'error');
    runningRef.current = key;
    setRunning(key);
    setStep(null);
    try {
      const r = await post<{ result: RunResult }>(`scenes/${encodeURIComponent(key)}/run`);
      const res = r.result;
      if (res.ok) toast(`Ran '${label}' in ${formatDuration(res.total_duration_ms ?? 0)}`);
      else
        toast(
          `'${label}' ${res.cancelled ? 'stopped' : 'failed'}: ${res.error ?? 'see the Scenes page'}`,
          'error',
        );
    } catch (err) {
      toastError(`Running '${label}' failed`, err);
    } finally {
      runningRef.current = null;
      setRunning(null);
      setStep(null);
    }
  };
  const stop = async () => {
    try {
      await post('scenes/cancel');
    } catch (err) {
      toastError('Stop failed', err);
    }
  };
  return { running, step, run, stop };
}

export function RacePage() {
  const { running, step, run, stop } = useRunner();
  const all = scenes.value;
  const pinned = pinnedScenes.value
    .map((k) => all.find((s) => s.key === k))
    .filter((s): s is NonNullable<typeof s> => s !== undefined);
  const unpinned = all.filter((s) => !pinnedScenes.value.includes(s.key));
  const list = devices.value;
  const online = list.filter((d) => d.online).length;
  const low = lowBattery.value;
  useEffect(() => {
    const offs = pinned
      .slice(0, 9)
      .map((s, i) =>
        registerShortcut(String(i + 1), () => void run(s.key, s.label), `Run pinned scene '${s.label}'`),
      );
    return () => offs.forEach((off) => off());
  });
  return (
    <main class="race-page" id="main" data-testid="race-page">
      <section class="race-top">
        <BlackoutButton big />
        <div class="race-facts">
          <GatewayPill />
          <span class="race-online" data-testid="race-online">
            <strong>{online}</strong> / {list.length} online
          </span>
          <label
            class="check race-mode-toggle"
            title="Hides reboot, forget master, firmware, reload and resets"
          >
            <input
              type="checkbox"
              checked={raceMode.value}
              onChange={(e) => void setRaceMode(e.currentTarget.checked)}
              data-testid="race-mode"
            />
            Race mode (hide destructive actions)
          </label>
        </div>
      </section>

      <FlagPanel />

      <section>
        <div class="race-head">
          <h2>Pinned scenes</h2>
          {running && (
            <span class="race-running" role="status" data-testid="race-running">
              <span class="spinner" aria-hidden="true" /> Running '
              {all.find((s) => s.key === running)?.label ?? running}'
              {step && ` — action ${step.index + 1} of ${step.total}`}
              <button type="button" class="danger" onClick={stop} title="Stop the running scene (Esc)">
                Stop
              </button>
            </span>
          )}
        </div>
        {pinned.length === 0 && (
          // Only point "below" when the picker is there: on a first start there is no scene to pin.
          <p class="muted" data-testid="race-no-pins">
            {all.length === 0 ? (
              <>
                No scenes yet: make one on the{' '}
                <a
                  href="./scenes"
                  onClick={(e) => {
                    e.preventDefault();
                    navigate('scenes');
                  }}
                >
                  Scenes page
                </a>
                , then pin it here.
              </>
            ) : (
              <>No scenes pinned yet: choose one in “Pin a scene” below.</>
            )}{' '}
            Keys 1–9 run the first nine pinned while this page is open.
          </p>
        )}
        <div class="race-grid">
          {pinned.map((s, i) => (
            <div class={`race-scene${running === s.key ? ' running' : ''}`} key={s.key}>
              <button
                type="button"
                class="race-run"
                disabled={running !== null}
                onClick={() => void run(s.key, s.label)}
                title={i < 9 ? `Run '${s.label}' (key ${i + 1})` : `Run '${s.label}'`}
              >
                {i < 9 && <kbd>{i + 1}</kbd>}
                <span>{s.label}</span>
              </button>
              <button
                type="button"
                class="ghost icon tiny"
                aria-label={`Unpin ${s.label}`}
                title="Unpin"
                onClick={() => void setPinned(pinned.filter((p) => p.key !== s.key).map((p) => p.key))}
              >
                ×
              </button>
            </div>
          ))}
        </div>
        {unpinned.length > 0 && pinned.length >= MAX_PINNED && (
          <p class="muted">{MAX_PINNED} scenes pinned (keys 1–9): unpin one to pin another.</p>
        )}
        {unpinned.length > 0 && pinned.length < MAX_PINNED && (
          <label class="inline race-pin">
            Pin a scene
            <select
              aria-label="Pin a scene"
              value=""
              onChange={(e) => {
                const k = e.currentTarget.value;
                if (k) void setPinned([...pinned.map((p) => p.key), k]);
              }}
            >
              <option value="">choose…</option>
              {unpinned.map((s) => (
                <option key={s.key} value={s.key}>
                  {s.label}
                </option>
              ))}
            </select>
          </label>
        )}
      </section>

      <section>
        <h2>Low battery</h2>
        {low.length === 0 ? (
          <p class="muted">No online device reports a low battery.</p>
        ) : (
          <ul class="race-low">
            {low.map((d) => (
              <li key={d.addr}>
                <span class="lvl-warn">{formatVolts(d.voltage_mV)}</span> {d.name}
              </li>
            ))}
          </ul>
        )}
      </section>
    </main>
  );
}
