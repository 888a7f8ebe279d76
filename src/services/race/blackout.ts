/**
 * Blackout (race-day "all off"): the one action that must work whatever else is going
 * on. It stops the running scene and asks the running task to stop — both are
 * synchronous requests, so nothing queued by them can overtake what follows — then
 * broadcasts brightness 0 to every group at urgent priority, ahead of anything queued
 * (scene frames, lap flashes, bulk task traffic).
 *
 * Two frames go out: nodes in offset mode drop a PRESET whose OFFSET_MODE flag does not
 * match their state (wire §8.11.1), so one frame without and one with the flag reaches
 * every node whichever mode it was left in.
 */
import type { GatewayDriver } from '../../gateway/types.ts';
import type { Logger } from '../../logger.ts';
import { FLAG } from '../../protocol/flags.ts';
import { BROADCAST } from '../../protocol/types.ts';
import type { Store } from '../../state/store.ts';

export interface BlackoutDeps {
  driver: GatewayDriver;
  store: Store;
  log: Logger;
  /** Stops the running scene (no-op when none runs). */
  cancelScene(): { cancelled: boolean; scene: string | null };
  /** Asks the running task to stop; its name, or null when none runs. */
  cancelTask(): string | null;
  /** Records the last gateway-side event for the status bar. */
  note(event: string): void;
}

export interface BlackoutReport {
  /** Off frames the gateway transmitted (of 2). */
  sent: number;
  frames: number;
  scene_cancelled: string | null;
  task_cancelled: string | null;
  errors: string[];
}

const ALL_GROUPS = 255;
const DEADLINE_MS = 10_000;

export class BlackoutService {
  constructor(private readonly deps: BlackoutDeps) {}

  async blackout(): Promise<BlackoutReport> {
    const { driver, store, log } = this.deps;
    const scene = this.deps.cancelScene();
    const task = this.deps.cancelTask();
    const opts = { priority: 'urgent' as const, deadlineMs: DEADLINE_MS };
    const frame = (flags: number) =>
      driver.send(BROADCAST, { op: 'PRESET', groupId: ALL_GROUPS, flags, presetId: 0, brightness: 0 }, opts);
    // Both frames are queued at once: the second does not wait for the first's outcome.
    const outcomes = await Promise.all([frame(0), frame(FLAG.OFFSET_MODE)]);
    const errors = outcomes.flatMap((o) => (o.ok ? [] : [o.detail]));
    const sent = outcomes.length - errors.length;
    if (sent > 0) {
      store.mutate(['DEVICES'], (s) => {
        for (const d of s.devices) {
          d.brightness = 0;
          d.flags = 0;
        }
      });
      this.deps.note('BLACKOUT_SENT');
    }
    const report: BlackoutReport = {
      sent,
      frames: outcomes.length,
      scene_cancelled: scene.cancelled ? scene.scene : null,
      task_cancelled: task,
      errors,
    };
    log.warn(report, 'blackout');
    return report;
  }
}
