/**
 * What OSC commands do on the host. Blackout and the flags go to their services at once
 * (they are urgent, never coalesced); group commands go through one coalescing queue
 * (latest value per group wins, one on its way at a time: coalesce.ts); a scene run starts
 * the scene and answers at once (a run can last minutes), a refusal (unknown scene, another
 * scene running) goes back to the sender.
 */
import type { FlagAction } from '../flags/index.ts';
import { Coalescer } from '../../util/coalesce.ts';
import type { OscAction, OscActions } from './server.ts';

export interface Sent {
  sent: number;
  errors: readonly string[];
}

export interface OscActionDeps {
  blackout(): Promise<Sent>;
  flag(action: FlagAction, source: string): Promise<Sent>;
  sceneExists(key: string): boolean;
  runningScene(): string | null;
  /**
   * Starts the scene; the promise ends with the run. A refusal (the command path: a target
   * held by a higher priority) throws at once. The group senders throw refusals too; they
   * are asked when a queued command's turn comes, so a flag raised meanwhile is seen.
   */
  runScene(key: string): Promise<unknown>;
  stopScene(): void;
  groupExists(id: number): boolean;
  groupPreset(group: number, preset: number, brightness: number): Promise<Sent>;
  groupColor(group: number, rgb: [number, number, number], brightness: number): Promise<Sent>;
  groupOff(group: number): Promise<Sent>;
  /** A scene started from OSC ended in an error (logged; the sender was answered already). */
  sceneFailed(key: string, error: string): void;
}

/** The source name OSC commands carry (the command path, the logs, the flag's `source`). */
export const OSC_SOURCE = 'osc';

type Result = { ok: true } | { ok: false; error: string };

const outcome = (r: Sent): Result =>
  r.sent > 0 ? { ok: true } : { ok: false, error: `not sent: ${r.errors[0] ?? 'gateway unavailable'}` };

export interface OscActionsHandle extends OscActions {
  superseded(): number;
  /** Blackout or a red flag: group commands still waiting their turn are not sent after it. */
  dropWaiting(): void;
}

export function createOscActions(d: OscActionDeps): OscActionsHandle {
  const queue = new Coalescer<Result>();
  // Bumped by dropWaiting: a job queued in an earlier era is answered, not sent.
  let era = 0;
  const group = (id: number, job: () => Promise<Sent>): Promise<Result> => {
    if (!d.groupExists(id)) return Promise.resolve({ ok: false, error: `group ${id} not found` });
    const queuedIn = era;
    return queue
      .submit(`group:${id}`, async (): Promise<Result> => {
        if (queuedIn !== era) return { ok: false, error: 'dropped: Blackout or a red flag came after it' };
        return outcome(await job());
      })
      .then((r) =>
        // A newer value for the same group replaced this one: that is what the surface wants.
        r === 'superseded' ? { ok: true } : r,
      );
  };
  return {
    superseded: () => queue.supersededCount(),
    dropWaiting: () => void era++,
    async run(cmd: OscAction): Promise<Result> {
      switch (cmd.kind) {
        case 'blackout':
          return outcome(await d.blackout());
        case 'flag':
          return outcome(await d.flag(cmd.action, OSC_SOURCE));
        case 'scene_stop':
          d.stopScene();
          return { ok: true };
        case 'scene_run': {
          if (!d.sceneExists(cmd.key)) return { ok: false, error: `scene ${cmd.key} not found` };
          const other = d.runningScene();
          if (other !== null) return { ok: false, error: `scene_running: ${other}` };
          d.runScene(cmd.key).catch((err: unknown) => d.sceneFailed(cmd.key, (err as Error).message));
          return { ok: true };
        }
        case 'group_preset':
          return group(cmd.group, () => d.groupPreset(cmd.group, cmd.preset, cmd.brightness));
        case 'group_color':
          return group(cmd.group, () => d.groupColor(cmd.group, cmd.rgb, cmd.brightness));
        case 'group_off':
          return group(cmd.group, () => d.groupOff(cmd.group));
      }
    },
  };
}
