/**
 * The device and group lists, kept serialised. Each device row is stringified once
 * from the registry's row builder and kept until that device changes (the Store says
 * which devices a change touched; a change that does not name them drops every row, so
 * a field added to the row builder is covered without touching this file). The list
 * bodies are joined from the row strings on the first request after a change; the
 * bytes are what `JSON.stringify({ok: true, devices: registry.rows()})` gives.
 */
import type { Device } from '../domain/model.ts';
import type { DeviceRegistry, GroupService } from '../services/devices/index.ts';
import type { Store, StoreChange } from '../state/store.ts';
import { SerializedBody } from './serialized-body.ts';

export class ListCache {
  private rows = new WeakMap<Device, string>();
  readonly devices: SerializedBody;
  readonly groups: SerializedBody;
  private readonly unsubscribe: () => void;

  constructor(deps: { store: Store; registry: DeviceRegistry; groups: GroupService }) {
    const { store, registry, groups } = deps;
    const row = (d: Device): string => {
      let s = this.rows.get(d);
      if (s === undefined) {
        s = JSON.stringify(registry.row(d));
        this.rows.set(d, s);
      }
      return s;
    };
    this.devices = new SerializedBody(() => {
      const parts: string[] = [];
      for (const d of registry.all()) parts.push(row(d));
      return `{"ok":true,"devices":[${parts.join(',')}]}`;
    });
    // Group rows count members and capabilities: cheap to rebuild, so after any change.
    this.groups = new SerializedBody(() => JSON.stringify({ ok: true, groups: groups.rows() }));
    this.unsubscribe = store.onChange((c) => this.onChange(c));
  }

  close(): void {
    this.unsubscribe();
  }

  private onChange(c: StoreChange): void {
    // The console settings are in neither list: their change keeps every cached row.
    if (c.scopes.length > 0 && c.scopes.every((s) => s === 'CONSOLE')) return;
    if (c.devices) for (const d of c.devices) this.rows.delete(d);
    else this.rows = new WeakMap();
    this.devices.invalidate();
    this.groups.invalidate();
  }
}
