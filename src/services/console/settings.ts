/**
 * The console settings every browser shares (race mode, pinned scenes, battery warning
 * level, acknowledged alerts), kept in the state file's `console` section. A change goes
 * through the Store with scope CONSOLE (→ the opt-in SSE refresh token `console`) and is
 * answered only once it is on disk; a refused write changes nothing.
 *
 * Pins name scenes by key. A write must name existing scenes; pins of scenes deleted
 * since are left out of every answer, and dropped from the file with the next change.
 */
import {
  CONSOLE_PATCH_FIELDS,
  newestAcks,
  uniqueKeys,
  type ConsolePatch,
  type ConsoleSettings,
} from '../../domain/console-settings.ts';
import { ValidationError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import { jsonEqual } from '../../state/state-diff.ts';
import type { Store } from '../../state/store.ts';

export interface ConsoleUpdate {
  console: ConsoleSettings;
  /** The settings whose value changed (empty: nothing to write). */
  changed: (keyof ConsoleSettings)[];
}

const SETTING_KEYS: readonly (keyof ConsoleSettings)[] = [
  'race_mode',
  'pinned_scenes',
  'battery',
  'acknowledged_alerts',
];

export class ConsoleSettingsService {
  constructor(private readonly deps: { store: Store; log: Logger }) {}

  /** The settings as every browser sees them (a copy; pins of deleted scenes left out). */
  get(): ConsoleSettings {
    const stored = this.deps.store.state.console;
    const scenes = this.sceneKeys();
    return {
      race_mode: stored.race_mode,
      pinned_scenes: stored.pinned_scenes.filter((k) => scenes.has(k)),
      battery: { ...stored.battery },
      acknowledged_alerts: [...stored.acknowledged_alerts],
    };
  }

  /**
   * Applies a validated PATCH body (consolePatchSchema) and resolves once it is durable.
   * Throws ValidationError naming the field (no setting given, unknown or repeated scene
   * key); PersistenceError when the write failed (nothing changed then).
   */
  async update(patch: ConsolePatch, from?: string): Promise<ConsoleUpdate> {
    if (!CONSOLE_PATCH_FIELDS.some((f) => patch[f] !== undefined))
      throw new ValidationError(`body: no setting given (expected ${CONSOLE_PATCH_FIELDS.join(', ')})`);
    const before = this.get();
    const next = this.get();
    if (patch.race_mode !== undefined) next.race_mode = patch.race_mode;
    if (patch.pinned_scenes !== undefined) next.pinned_scenes = this.checkPins(patch.pinned_scenes);
    if (patch.battery !== undefined) next.battery = { warnPerCell: patch.battery.warnPerCell };
    let acks = next.acknowledged_alerts;
    if (patch.acknowledged_alerts !== undefined) acks = uniqueKeys(patch.acknowledged_alerts);
    if (patch.unacknowledge !== undefined) {
      const gone = new Set(patch.unacknowledge);
      acks = acks.filter((k) => !gone.has(k));
    }
    if (patch.acknowledge !== undefined) {
      const have = new Set(acks);
      acks = [...acks, ...uniqueKeys(patch.acknowledge).filter((k) => !have.has(k))];
    }
    next.acknowledged_alerts = newestAcks(acks);

    const changed = SETTING_KEYS.filter((k) => !jsonEqual(before[k], next[k]));
    if (changed.length === 0) return { console: before, changed };
    await this.deps.store.commit(['CONSOLE'], (s) => {
      s.console = next;
    });
    this.deps.log.info(
      {
        changed,
        race_mode: next.race_mode,
        pinned_scenes: next.pinned_scenes.join(','),
        warn_per_cell_v: next.battery.warnPerCell,
        acknowledged_alerts: next.acknowledged_alerts.length,
        ...(from ? { ip: from } : {}),
      },
      'console settings changed',
    );
    return { console: this.get(), changed };
  }

  /** Every key names a stored scene, none twice. */
  private checkPins(keys: readonly string[]): string[] {
    const scenes = this.sceneKeys();
    const seen = new Set<string>();
    keys.forEach((k, i) => {
      if (!scenes.has(k)) throw new ValidationError(`pinned_scenes[${i}]: no scene with key '${k}'`);
      if (seen.has(k)) throw new ValidationError(`pinned_scenes[${i}]: '${k}' is pinned twice`);
      seen.add(k);
    });
    return [...keys];
  }

  private sceneKeys(): Set<string> {
    return new Set(this.deps.store.state.scenes.map((s) => s.key));
  }
}
