/**
 * The console settings every browser shares, kept on the host (GET/PATCH /api/console):
 * race mode, the race panel's pinned scenes, the battery warning level and the
 * acknowledged alerts. Loaded with the other lists (on opening and after every
 * reconnect) and again on the live stream's `console` refresh token, so a change made in
 * one browser shows in every other within a second. A change shows at once and is rolled
 * back, with a red toast, when the host refuses it.
 *
 * Before this, each browser kept its own copy in localStorage. Those keys are dropped once
 * the host's settings have loaded — never pushed to the host, where they would overwrite
 * what another browser set.
 */
import { signal } from '@preact/signals';
import type { ConsolePatch, ConsoleSettings } from '../../src/domain/console-settings.ts';
import { get, request } from './api.ts';
import { DEFAULT_WARN_PER_CELL_V } from './common/battery-cells.ts';
import { toast, toastError } from './toasts.ts';

export type { ConsoleSettings } from '../../src/domain/console-settings.ts';

const DEFAULTS: ConsoleSettings = {
  race_mode: false,
  pinned_scenes: [],
  battery: { warnPerCell: DEFAULT_WARN_PER_CELL_V },
  acknowledged_alerts: [],
};

export const consoleSettings = signal<ConsoleSettings>(DEFAULTS);
/** The host's settings have arrived (until then the defaults are shown). */
export const consoleLoaded = signal(false);

/*
 * Answers are applied in the order they were asked for (a late one never overwrites a
 * newer one), and a read asked before a change that is still on its way is dropped, so
 * it cannot flip the change back while it travels.
 */
let asked = 0;
let applied = 0;
let lastChange = 0;

function apply(n: number, s: ConsoleSettings): void {
  if (n < applied) return;
  applied = n;
  consoleSettings.value = s;
  if (!consoleLoaded.value) {
    consoleLoaded.value = true;
    dropOldBrowserCopies();
  }
}

export async function loadConsole(): Promise<void> {
  const n = ++asked;
  const r = await get<{ console: ConsoleSettings }>('console');
  if (n < lastChange) return;
  apply(n, r.console);
}

/**
 * Shows `optimistic` at once and sends `patch`; on refusal restores what was shown
 * before, reads the host's settings again and toasts `what` with the host's message.
 * Resolves true when the host kept the change.
 */
export async function changeConsole(
  patch: ConsolePatch,
  optimistic: (s: ConsoleSettings) => ConsoleSettings,
  what: string,
): Promise<boolean> {
  const before = consoleSettings.value;
  const n = ++asked;
  lastChange = n;
  consoleSettings.value = optimistic(before);
  try {
    const r = await request<{ console: ConsoleSettings }>('PATCH', 'console', patch);
    apply(n, r.console);
    return true;
  } catch (err) {
    if (applied < n) consoleSettings.value = before;
    toastError(what, err);
    void loadConsole().catch(() => undefined);
    return false;
  }
}

const OLD_KEYS = ['lightnet.raceMode', 'lightnet.pinned', 'lightnet.battery', 'lightnet.alertAcks'];

/** Forgets the per-browser copies of earlier versions (once; says so when one held something). */
function dropOldBrowserCopies(): void {
  let held = false;
  try {
    for (const k of OLD_KEYS) {
      const v = localStorage.getItem(k);
      if (v === null) continue;
      if (!['false', '[]', ''].includes(v)) held = true;
      localStorage.removeItem(k);
    }
  } catch {
    return; // storage unavailable: nothing was kept either
  }
  if (held)
    toast(
      'Race mode, pinned scenes, the battery warning and acknowledged alerts are now shared by every browser (kept on the host); the copy this browser kept was dropped',
    );
}
