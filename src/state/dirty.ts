/**
 * What changed since the last commit, from the scopes and device hints of each change, so
 * a commit compares only those parts of a large state with its durable image (a device
 * rename in a 4 700-device state compares one device, not all). Conservative: a scope
 * without a device hint marks every device, FULL marks everything, and the small sections
 * (groups, settings, ids) are always compared. Periodic full commits (telemetry, save,
 * shutdown) compare everything, a safety net for a change with a too-narrow hint.
 */
import type { Scope } from './scopes.ts';

export interface DirtyHint {
  /** Keyed sections to compare (null: all). */
  sections: ReadonlySet<string> | null;
  /** Device records to compare when 'devices' is in `sections` (null: all of them). */
  devices: ReadonlySet<object> | null;
}

const SCOPE_SECTIONS: Record<Scope, readonly string[] | null> = {
  FULL: null,
  NONE: null,
  DEVICES: ['devices'],
  DEVICE_MEMBERSHIP: ['devices'],
  DEVICE_SPECIALS: ['devices'],
  // Deleting a group renumbers devices and the scenes that name groups.
  GROUPS: ['devices', 'scenes'],
  NATIVE_PRESETS: ['native_presets', 'scenes'],
  LED_PRESETS: [],
  SCENES: ['scenes'],
  // The console section is small: compared whole on every commit, like settings.
  CONSOLE: [],
  NETWORKS: [],
};

export class DirtyTracker {
  private all = false;
  private sections = new Set<string>();
  private devices: Set<object> | null = new Set();

  mark(scopes: readonly Scope[], devices: readonly object[] | null): void {
    for (const scope of scopes.length ? scopes : (['FULL'] as const)) {
      const secs = SCOPE_SECTIONS[scope];
      if (!secs) {
        this.all = true;
        continue;
      }
      for (const s of secs) this.sections.add(s);
      if (!secs.includes('devices')) continue;
      // Only a pure device scope with a hint narrows to those devices.
      const narrow = devices !== null && scope !== 'GROUPS';
      if (!narrow) this.devices = null;
      else if (this.devices) for (const d of devices) this.devices.add(d);
    }
  }

  markAll(): void {
    this.all = true;
  }

  /** The hint for the next commit (null: compare everything); resets the tracker. */
  take(full: boolean): DirtyHint | null {
    const hint: DirtyHint | null =
      this.all || full ? null : { sections: this.sections, devices: this.devices };
    this.all = false;
    this.sections = new Set();
    this.devices = new Set();
    return hint;
  }
}
