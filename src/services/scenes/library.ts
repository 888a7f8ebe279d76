/**
 * Scenes library: CRUD and duplicate of stored scenes, validation of drafts, and the
 * group-delete renumbering of every group id a scene references. Every change goes
 * through the Store with SCENES (→ SSE refresh `scenes`); a refused request changes
 * nothing. Running and estimating scenes live in the scene runner / planner.
 */
import type { Clock } from '../../clock.ts';
import { NotFoundError } from '../../errors.ts';
import { allocateId } from '../../domain/model.ts';
import { asBool } from '../../domain/input.ts';
import { isoSeconds, slugify, uniqueKey } from '../../domain/scenes/keys.ts';
import { validateSceneActions, type Scene, type SceneAction } from '../../domain/scenes/validation.ts';
import type { ActionTarget } from '../../domain/scenes/types.ts';
import type { Logger } from '../../logger.ts';
import type { Addr } from '../../protocol/types.ts';
import type { Store } from '../../state/store.ts';
import { renumberActions } from '../../domain/scenes/renumber.ts';
import type { NativePresetService } from './native-presets.ts';
import type { PlanContext } from './plan/planner.ts';
import { checkScope } from './scope.ts';
import { checkFields, nonEmptyLabel, optionalKey, requiredLabel, sameKey } from './library-input.ts';

export interface SceneInput {
  label?: unknown;
  key?: unknown;
  actions?: unknown;
  stop_on_error?: unknown;
  networks?: unknown;
}

const SCENE_FIELDS = ['label', 'key', 'actions', 'stop_on_error', 'networks'];

export class SceneService {
  constructor(
    private readonly deps: {
      store: Store;
      clock: Clock;
      log: Logger;
      presets: NativePresetService;
      /** The planner's view of the fleet, for checking an explicit network scope at save. */
      planContext?: () => PlanContext;
    },
  ) {}

  list(): Scene[] {
    return this.deps.store.state.scenes.map(copy);
  }

  get(key: string): Scene {
    return copy(this.find(key));
  }

  /** The stored scene, or undefined (the runner answers its own 404). */
  lookup(key: string): Scene | undefined {
    const s = this.deps.store.state.scenes.find((x) => x.key === key);
    return s && copy(s);
  }

  /**
   * Validates an action list as a save would (preset references must exist); returns
   * the canonical list. Drafts for estimate and run go through here too.
   */
  validateActions(actions: unknown): SceneAction[] {
    return validateSceneActions(actions, {
      presetExists: (ref) => this.deps.presets.resolve(ref) !== undefined,
    });
  }

  /** A scene's `networks` (several gateways): null = automatic; 400 naming the field otherwise. */
  validateScope(networks: unknown, actions: readonly SceneAction[]): number[] | null {
    const ctx = this.deps.planContext?.() ?? { devices: [], optimize: true, preset: () => undefined };
    return checkScope(networks, actions, ctx, this.deps.store.state.networks);
  }

  create(body: SceneInput): Scene {
    checkFields(body, SCENE_FIELDS);
    const label = requiredLabel(body.label);
    const actions = this.validateActions(body.actions);
    const stop = parseStop(body.stop_on_error, true);
    const scope = this.validateScope(body.networks, actions);
    return this.insert(label, slugify(optionalKey(body.key) ?? label, 'scene'), actions, stop, scope);
  }

  update(key: string, body: SceneInput): Scene {
    const sc = this.find(key);
    // Everything is checked before anything changes: no half-applied update.
    checkFields(body, SCENE_FIELDS);
    sameKey(body.key, key);
    const label = body.label === undefined ? sc.label : nonEmptyLabel(body.label);
    const actions = body.actions === undefined ? sc.actions : this.validateActions(body.actions);
    const stop = parseStop(body.stop_on_error, sc.stop_on_error);
    // An omitted `networks` keeps the stored scope, re-checked against the new actions.
    const scope = this.validateScope(
      body.networks === undefined ? (sc.networks ?? null) : body.networks,
      actions,
    );
    const now = isoSeconds(this.deps.clock.now());
    this.deps.store.mutate(['SCENES'], () => {
      Object.assign(sc, { label, actions, stop_on_error: stop, updated: now });
      if (scope) sc.networks = scope;
      else delete sc.networks;
    });
    this.deps.log.info({ key, id: sc.id, actions: actions.length }, 'scene updated');
    return copy(sc);
  }

  remove(key: string): void {
    const sc = this.find(key);
    this.deps.store.mutate(['SCENES'], (s) => {
      s.scenes = s.scenes.filter((x) => x !== sc);
    });
    this.deps.log.info({ key, id: sc.id }, 'scene deleted');
  }

  duplicate(key: string, body: { label?: unknown }): Scene {
    const src = this.find(key);
    checkFields(body, ['label']);
    const labelIn = body.label;
    const label =
      labelIn === undefined || labelIn === null || labelIn === ''
        ? `${src.label} copy`
        : requiredLabel(labelIn);
    return this.insert(
      label,
      slugify(label, 'scene'),
      structuredClone(src.actions),
      src.stop_on_error,
      src.networks ? [...src.networks] : null,
    );
  }

  /** Scenes with an action (or an offset_group child) that targets one of `addrs` by address. */
  targeting(addrs: ReadonlySet<Addr>): { key: string; label: string }[] {
    const hits = (t: ActionTarget): boolean => t.kind === 'device' && addrs.has(t.value);
    return this.deps.store.state.scenes
      .filter((sc) =>
        sc.actions.some(
          (a) =>
            (a.kind !== 'delay' && a.kind !== 'sync' && hits(a.target)) ||
            (a.kind === 'offset_group' && a.actions.some((c) => hits(c.target))),
        ),
      )
      .map((sc) => ({ key: sc.key, label: sc.label }));
  }

  /**
   * GroupService's renumber hook: group `deletedId` is gone, higher ids move down by
   * one and references to it become 0. Returns the number of scenes changed. Called
   * inside the group delete, whose own Store mutation publishes SCENES and writes
   * the file once when this returns > 0.
   */
  renumberGroups(deletedId: number): number {
    const { store, clock, log } = this.deps;
    const scenes = store.state.scenes;
    const now = isoSeconds(clock.now());
    let changed = 0;
    scenes.forEach((sc, i) => {
      const next = renumberActions(sc.actions, deletedId);
      if (!next) return;
      try {
        // Back through the validator: lists re-sorted, the result canonical.
        const actions = validateSceneActions(next, { lenient: true });
        scenes[i] = { ...sc, actions, updated: now };
        changed++;
      } catch (err) {
        // A scene the renumbering cannot express stays as it was; the group delete goes on.
        log.error({ key: sc.key, deletedId, err: (err as Error).message }, 'scene renumbering failed');
      }
    });
    if (changed) log.info({ deletedId, scenes: changed }, 'scenes renumbered after group delete');
    return changed;
  }

  private insert(
    label: string,
    slug: string,
    actions: SceneAction[],
    stop: boolean,
    scope: number[] | null = null,
  ): Scene {
    const { store, clock } = this.deps;
    const key = uniqueKey(slug, (k) => store.state.scenes.some((s) => s.key === k));
    const now = isoSeconds(clock.now());
    const scene = store.mutate(['SCENES'], (s) => {
      const id = allocateId(s, 'scenes');
      const rec: Scene = { id, key, label, created: now, updated: now, actions, stop_on_error: stop };
      if (scope) rec.networks = scope;
      s.scenes.push(rec);
      return rec;
    });
    this.deps.log.info({ key, id: scene.id, actions: actions.length }, 'scene created');
    return copy(scene);
  }

  private find(key: string): Scene {
    const s = this.deps.store.state.scenes.find((x) => x.key === key);
    if (!s) throw new NotFoundError('scene not found');
    return s;
  }
}

function copy(s: Scene): Scene {
  return structuredClone(s);
}

/** Booleans, 0/1 and true/false/yes/no/on/off; absent or null keeps `dflt`. */
export function parseStop(v: unknown, dflt: boolean): boolean {
  return v === undefined || v === null ? dflt : asBool(v, 'stop_on_error');
}
