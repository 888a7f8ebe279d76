/**
 * Forgetting devices (`POST /api/devices/forget`): the devices leave the registry — and with
 * it their group, since membership is the device's own `groupId` — in one Store commit that
 * is on disk before the answer. All or nothing: one unknown address refuses the whole list.
 *
 * What is not deleted: scene actions that target a forgotten device by address stay as they
 * are (a run reports them `target_not_found` and goes on; they work again when the node is
 * discovered anew), and so do race-light gates; the answer names both. The node itself is not told: it
 * keeps the group it was given until it restarts, and its next IDENTIFY (discovery or a boot
 * announcement) makes it a new device. What the host only held in memory about it (signal
 * history, recovery state, offline reason) is dropped by the hooks, so a node that comes
 * back starts clean.
 */
import { NotFoundError, ValidationError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import type { Addr } from '../../protocol/types.ts';
import type { Store } from '../../state/store.ts';
import type { TaskManager } from '../../tasks/task-manager.ts';

/** Drops what a service holds about these devices (called once they are gone for good). */
export type ForgetHook = (addrs: ReadonlySet<Addr>) => void;

/** What still names a forgotten device by address: reported, not changed. */
export interface ForgetReferences {
  /** Scenes with an action targeting one of them. */
  scenes: { key: string; label: string }[];
  /** Race-light gates set to one of them (`seat 2`, `all seats`, `finish`). */
  race_lights: string[];
}

export interface ForgetResult extends ForgetReferences {
  /** The forgotten addresses, in the order given (duplicates once). */
  forgotten: Addr[];
}

export class DeviceForgetService {
  private readonly hooks: ForgetHook[] = [];
  private references: (addrs: ReadonlySet<Addr>) => ForgetReferences = () => ({
    scenes: [],
    race_lights: [],
  });

  constructor(
    private readonly deps: {
      store: Store;
      tasks: Pick<TaskManager, 'assertIdle'>;
      log: Logger;
    },
  ) {}

  onForget(hook: ForgetHook): void {
    this.hooks.push(hook);
  }

  /** Who still refers to devices by address (the scenes service). */
  setReferences(fn: (addrs: ReadonlySet<Addr>) => ForgetReferences): void {
    this.references = fn;
  }

  /**
   * Forgets `addrs` (already parsed; `field` names the list in errors). 409 while a task
   * runs: a discovery, poll or update works through a device list it captured at start.
   */
  async forget(addrs: readonly Addr[], field = 'macs'): Promise<ForgetResult> {
    if (addrs.length === 0) throw new ValidationError(`${field}: must not be empty`);
    this.deps.tasks.assertIdle();
    const { store } = this.deps;
    const known = new Set(store.state.devices.map((d) => d.addr));
    const set = new Set<Addr>();
    addrs.forEach((a, i) => {
      if (!known.has(a))
        throw new NotFoundError(`${field}[${i}]: device ${a} not found (nothing was forgotten)`);
      set.add(a);
    });
    // In place: callers iterate the live array (registry.all()).
    // NETWORKS: each network's device count (cards, pills, banners) is in the networks list.
    await store.commit(['DEVICES', 'DEVICE_MEMBERSHIP', 'NETWORKS'], (s) => {
      for (let i = s.devices.length - 1; i >= 0; i--) {
        const d = s.devices[i];
        if (d && set.has(d.addr)) s.devices.splice(i, 1);
      }
    });
    // Only once durable: a refused commit rolled the devices back, their side data stays.
    for (const hook of this.hooks) hook(set);
    const refs = this.references(set);
    const forgotten = [...set];
    this.deps.log.info(
      { devices: forgotten, scenes: refs.scenes.map((s) => s.key), race_lights: refs.race_lights },
      'devices forgotten',
    );
    return { forgotten, ...refs };
  }
}
