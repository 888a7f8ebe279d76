/**
 * Race flags: green, yellow and red over the whole field, and clear. Red is the safety
 * flag: it stops the running scene and the race looks in flight (scheduled phase looks,
 * lap flashes waiting, flash ends that would put a look back) and, while it is up, race
 * looks are suppressed (the race lights service asks `suppressing()`); only Clear — or
 * another flag — lowers it. Blackout still darkens the field over a red flag, and the
 * flag stays up (the race is still stopped).
 *
 * The flag that is up is kept in flags.json: a host restarted during a red flag must not
 * let the next lap event light the gates over a stopped race. Nothing is re-sent at start
 * (the nodes keep what they show); pressing the flag again re-sends it.
 */
import { CommandRefusedError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import type { CommandGate } from '../command-path/index.ts';
import type { M2NRequest } from '../../protocol/types.ts';
import { lookFrames, type FieldReport, type FieldSender } from './field.ts';
import {
  defaultFlagsFile,
  type Flag,
  type FlagAction,
  type FlagLooks,
  type FlagState,
  type FlagsStore,
} from './looks.ts';

/** The flags' own source on the command path: safety (90), whoever pressed. */
export const FLAG_SOURCE = 'flag';

export interface FlagDeps {
  file: FlagsStore;
  /**
   * The command path: a flag is admitted as the `flag` source (safety) over the whole field;
   * red holds it until cleared, so every lower source (race looks 80, live control 70, the
   * operator 60…) is refused meanwhile. `release` lets go of red's hold.
   */
  path: CommandGate & {
    release(source: string): number;
    enabled(source: string): boolean;
  };
  field: FieldSender;
  log: Logger;
  now(): number;
  /** Stops the running scene (a race look is one). */
  cancelScene(): { cancelled: boolean; scene: string | null };
  /** Drops what the race lights have in flight (scheduled looks, waiting flashes, flash ends). */
  haltRaceLooks(): void;
  /**
   * The look's plain frame left the antenna (on `network`, when several run): what the gates
   * now show, for the device rows and for a lap flash to put back. Told as the frame goes, not
   * after the answer: a later command's frame goes after it and its rows win.
   */
  shown(request: M2NRequest, network: number | undefined): void;
  /** The flag changed (the live event stream, OSC feedback). */
  changed(state: FlagState): void;
}

export interface FlagReport extends FieldReport {
  action: FlagAction;
  /** The flag up after this action. */
  flag: Flag | null;
  scene_cancelled: string | null;
}

export class FlagService {
  private file = defaultFlagsFile();
  /** Saves are chained: two presses in a row must land on disk in their order. */
  private saving: Promise<void> = Promise.resolve();

  constructor(private readonly deps: FlagDeps) {}

  async load(): Promise<void> {
    const { file, problem } = await this.deps.file.load();
    if (problem) this.deps.log.warn({ problem }, 'flags file unreadable: default looks, no flag up');
    this.file = file;
    if (file.state.flag)
      this.deps.log.warn({ flag: file.state.flag }, `the ${file.state.flag} flag is still up`);
    this.holdAfterLoad();
  }

  state(): FlagState {
    return { ...this.file.state };
  }

  looks(): FlagLooks {
    return structuredClone(this.file.looks);
  }

  /** Why race looks may not show now (the red flag is up), or null. */
  suppressing(): string | null {
    return this.file.state.flag === 'red' ? 'red_flag' : null;
  }

  /** Replaces the looks (validated at the route); on disk before it takes effect. */
  async setLooks(looks: FlagLooks): Promise<FlagLooks> {
    const next = { ...this.file, looks: structuredClone(looks) };
    await this.save(next);
    this.file = { ...this.file, looks: next.looks };
    this.deps.log.info({ looks }, 'flag looks saved');
    return this.looks();
  }

  /**
   * Raises a flag (or clears): the field shows its look, the state is on disk. Red goes out
   * at urgent priority (ahead of everything queued but Blackout's frames); the others at
   * interactive. The state changes even when no frame reached the air — a red flag that
   * could not be sent still holds the race looks back — and the report says what was sent.
   */
  async raise(action: FlagAction, source: string): Promise<FlagReport> {
    const red = action === 'red';
    // A source switched off in the settings cannot press a flag either.
    if (!this.deps.path.enabled(source))
      throw new CommandRefusedError(403, `source ${source} is switched off in the settings`, { source });
    // Any flag ends red's hold; red takes a new one (refused only by a higher hold: nothing
    // outranks safety but Blackout, which holds nothing).
    this.deps.path.release(FLAG_SOURCE);
    this.deps.path.admit({
      source: FLAG_SOURCE,
      targets: [{ kind: 'all' }],
      action: `flag ${action} (${source})`,
      hold: red ? 'until-release' : 'none',
    });
    // Red: nothing already running may overwrite it. Synchronous requests, so no frame of
    // theirs is queued after ours.
    const scene = red ? this.deps.cancelScene() : { cancelled: false, scene: null };
    if (red) this.deps.haltRaceLooks();
    const flag: Flag | null = action === 'clear' ? null : action;
    const state: FlagState = {
      flag,
      since_epoch_ms: flag ? this.deps.now() : null,
      source: flag ? source : null,
    };
    const look = this.file.looks[action];
    const requests = lookFrames(look);
    const before = this.file.state.flag;
    this.file = { ...this.file, state };
    this.deps.changed(this.state());
    // The OFFSET_MODE twin is not told: the rows keep each node's own offset state.
    const plain = requests[0];
    const [report] = await Promise.all([
      this.deps.field.send(
        requests,
        red ? 'urgent' : 'interactive',
        (r, network) => {
          if (r === plain) this.deps.shown(r, network);
        },
        // A status reply tells brightness and effect (not the colour).
        (reply) => reply.brightness === look.brightness && reply.effectId === look.effect,
      ),
      this.save(this.file),
    ]);
    const out: FlagReport = {
      action,
      flag,
      ...report,
      scene_cancelled: scene.cancelled ? scene.scene : null,
    };
    const line = { ...out, source, was: before };
    if (red || report.sent === 0) this.deps.log.warn(line, `flag ${action}`);
    else this.deps.log.info(line, `flag ${action}`);
    return out;
  }

  /**
   * Blackout dropped every hold on the path; a red flag stays up (the race is still
   * stopped): its hold is taken again.
   */
  afterBlackout(): void {
    if (this.file.state.flag !== 'red') return;
    this.deps.path.admit({
      source: FLAG_SOURCE,
      targets: [{ kind: 'all' }],
      action: 'flag red (kept over Blackout)',
      hold: 'until-release',
    });
  }

  /** A host started with the red flag up holds the field again (flags.json said so). */
  private holdAfterLoad(): void {
    this.afterBlackout();
  }

  private save(f: typeof this.file): Promise<void> {
    const snapshot = structuredClone(f);
    const next = this.saving.then(() => this.deps.file.save(snapshot));
    // A failed save must not block the ones after it; its caller sees the error.
    this.saving = next.catch(() => undefined);
    return next;
  }
}
