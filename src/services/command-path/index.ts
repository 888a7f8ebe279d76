/**
 * The command path (issue 37): every light command — the UI, the HTTP API, scenes, the race
 * timers, OSC and every later adapter — is decided here, in one place, by its source's
 * priority and the holds on its targets. The path decides; the existing senders send.
 *
 * Public interface (stable; adapters build on it):
 *
 * - `createCommandPath({dataDir?, log, groupOf, now?, setTimer?})` → `CommandPathService`.
 * - `path.registerSource({id, sourceClass, label, external, http})`: an adapter's source.
 *   Built in: `blackout`, `ui` (the operator, the HTTP default), `api`, `live`, `show` (HTTP
 *   callers naming themselves in `X-Lightnet-Source`), `rotorhazard`, `fpvtrackside`.
 * - `path.admit({source, targets, action, hold?})` → `{ticket, source, priority}` or throws
 *   `CommandRefusedError` (409 held — `extra.holder` names who —, 429 rate-limited, 403
 *   switched off); nothing changes on a refusal. Then call the sender.
 * - `path.run(cmd, send)`: admit, then `send`; a `hold: 'run'` is released when `send` settles.
 *   Senders depend on `CommandGate` (admit, run, end) only.
 * - `sceneTargets(actions)`, `fromActionTarget(t)`: a scene's or an action's targets.
 * - `path.end(ticket)`, `path.release(source, target?)`: a source lets go (a red flag cleared).
 * - `path.blackout()`: drops every hold. `path.takeOver(target)` / `path.handBack(target)`: the
 *   operator holds a target at the take-over priority (85 by default) until handing it back.
 * - `path.owners()`: who holds what, since when, at which priority, live timeout left, and
 *   each source's switch, priority and counts. `path.subscribe(fn)`: told on every change.
 * - `path.settings()` / `path.updateSettings(patch)` (on disk first) / `path.load()`.
 *
 * Targets: `{kind:'all'} | {kind:'group', id} | {kind:'device', addr}`; all ⊃ group ⊃ device
 * (a device in a held group is held). Priorities by class: blackout 100, safety 90, race 80,
 * live 70, operator 60, automation 40, passive 20 (configurable, Blackout fixed). Holds:
 * `none` (default; live sources: `live`, lapsing after 3 s of silence), `run`, `until-release`.
 * The decision itself is `decide()` (pure, no I/O; decide.ts has the rule).
 */
import type { Logger } from '../../logger.ts';
import { CommandPathService } from './path.ts';
import { CommandPathFile } from './settings.ts';

export {
  CommandPathService,
  type Admitted,
  type Command,
  type CommandResult,
  type HolderView,
  type OwnersView,
  type SourceView,
} from './path.ts';
export { decide, release, releaseTicket } from './decide.ts';
export { fromActionTarget, sceneTargets } from './scene-targets.ts';
export { overlaps, sameTarget, targetJson, targetLabel, type TargetJson } from './targets.ts';
export {
  ALWAYS_ON,
  BLACKOUT_SOURCE,
  BUILTIN_SOURCES,
  OPERATOR_SOURCE,
  SOURCE_HEADER,
  type SourceInfo,
} from './sources.ts';
export {
  commandPathSettingsSchema,
  defaultCommandPathSettings,
  type CommandPathPatch,
  type CommandPathSettings,
} from './settings.ts';
export {
  DEFAULT_CLASS_PRIORITY,
  DEFAULT_LIVE_TIMEOUT_MS,
  DEFAULT_TAKE_OVER_PRIORITY,
  SOURCE_CLASSES,
  type Decision,
  type Hold,
  type HoldMode,
  type Intent,
  type SourceClass,
  type Target,
} from './types.ts';

/** What a sender needs of the path (services depend on this, not on the whole service). */
export type CommandGate = Pick<CommandPathService, 'admit' | 'run' | 'end'>;

export function createCommandPath(d: {
  /** Where `command-path.json` lives; absent: settings in memory only (tests). */
  dataDir?: string;
  log: Logger;
  groupOf(addr: string): number | null;
  /** A group's name for the words of a refusal (null: unknown, the number alone). */
  groupName?: (id: number) => string | null;
  now?: () => number;
  setTimer?: (fn: () => void, ms: number) => { clear(): void };
}): CommandPathService {
  return new CommandPathService({
    log: d.log.child({ mod: 'command' }),
    now: d.now ?? Date.now,
    groupOf: d.groupOf,
    groupName: d.groupName ?? (() => null),
    setTimer:
      d.setTimer ??
      ((fn, ms) => {
        const t = setTimeout(fn, ms);
        t.unref?.();
        return { clear: () => clearTimeout(t) };
      }),
    ...(d.dataDir ? { file: new CommandPathFile(d.dataDir) } : {}),
  });
}

// The bus is a floor below the services: the command path adds its own event to it
// (declaration merging) rather than the bus importing a service's types.
declare module '../../events.ts' {
  interface AppEvents {
    /** Who holds which target changed (command path): the owners view as it is now. */
    owners: import('./path.ts').OwnersView;
  }
}
