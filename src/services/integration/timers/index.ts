/**
 * Second timers beside (or instead of) RotorHazard: for now FPVTrackside's Extension push.
 * Each source keeps its state for the API (GET /api/timers) and drives the race lights
 * through the same lap-flash path and phase player as RotorHazard's events.
 */
import type { Logger } from '../../../logger.ts';
import { FpvTracksideReceiver, type TimerLights } from './fpvtrackside.ts';
import { TimersFile } from './timers-file.ts';

export { FpvTracksideReceiver, PHASE_OF, type TimerLights } from './fpvtrackside.ts';

export interface Timers {
  fpvtrackside: FpvTracksideReceiver;
  /** The URL secret; made (and on disk) on first use. */
  token(): Promise<string>;
  /** Replaces the token (on disk before it is returned); the old URL stops working. */
  newToken(): Promise<string>;
  /** The token if one exists (a PUT before any was made can match nothing). */
  currentToken(): string | null;
  load(): Promise<void>;
}

export function createTimers(d: { dataDir: string; log: Logger; lights: TimerLights }): Timers {
  const log = d.log.child({ mod: 'timers' });
  const file = new TimersFile(d.dataDir);
  const fpvtrackside = new FpvTracksideReceiver({
    lights: d.lights,
    hello: file,
    log,
    now: () => Date.now(),
  });
  return {
    fpvtrackside,
    token: () => file.ensureToken(),
    async newToken() {
      const token = await file.newToken();
      log.info({}, 'fpvtrackside token replaced: the old URL is refused from now on');
      return token;
    },
    currentToken: () => file.get().fpvtrackside.token,
    async load() {
      const problem = await file.load();
      if (problem) log.warn({ problem }, 'timers file unreadable: a new FPVTrackside token will be made');
      const f = file.get().fpvtrackside;
      if (f.hello && f.hello_epoch_ms !== null)
        fpvtrackside.restoreHello({ at_epoch_ms: f.hello_epoch_ms, body: f.hello });
    },
  };
}
