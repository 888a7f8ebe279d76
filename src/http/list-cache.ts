/**
 * The device and group lists, kept serialised. Each device row is stringified once
 * from the registry's row builder and kept until that device changes (the Store says
 * which devices a change touched; a change that does not name them drops every row, so
 * a field added to the row builder is covered without touching this file). The list
 * bodies are joined from the row strings on the first request after a change; the
 * bytes are what `JSON.stringify({ok: true, devices: registry.rows()})` gives.
 *
 * The device list is written row by row into one Buffer, never joined into one string:
 * at 300 devices it is ~220 KB, and a string that size goes straight to V8's old
 * generation (twice: the join, then its flattening for the UTF-8 copy). Rebuilt after
 * every change, up to four times a second per open browser during a status poll, those
 * strings were about a third of what the host allocated then (docs/developers/benchmarks.md).
 */
import type { Device } from '../domain/model.ts';
import type { DeviceRegistry, GroupService } from '../services/devices/index.ts';
import type { Store, StoreChange } from '../state/store.ts';
import { SerializedBody } from './serialized-body.ts';

interface Row {
  text: string;
  bytes: number;
}

const DEVICES_HEAD = '{"ok":true,"devices":[';
const DEVICES_TAIL = ']}';
const COMMA = 0x2c;

export class ListCache {
  /** Each device's row: its JSON text and that text's length in UTF-8 bytes. */
  private rows = new WeakMap<Device, Row>();
  readonly devices: SerializedBody;
  readonly groups: SerializedBody;
  private readonly unsubscribe: () => void;

  constructor(deps: { store: Store; registry: DeviceRegistry; groups: GroupService }) {
    const { store, registry, groups } = deps;
    const row = (d: Device): Row => {
      let r = this.rows.get(d);
      if (r === undefined) {
        const text = JSON.stringify(registry.row(d));
        r = { text, bytes: Buffer.byteLength(text, 'utf8') };
        this.rows.set(d, r);
      }
      return r;
    };
    this.devices = new SerializedBody(() => {
      const parts: Row[] = [];
      let size = DEVICES_HEAD.length + DEVICES_TAIL.length;
      for (const d of registry.all()) {
        const r = row(d);
        parts.push(r);
        size += r.bytes + 1;
      }
      if (parts.length > 0) size -= 1; // n rows, n - 1 commas
      const out = Buffer.allocUnsafe(size);
      let at = out.write(DEVICES_HEAD, 0, 'latin1');
      parts.forEach((r, i) => {
        if (i > 0) at = out.writeUInt8(COMMA, at);
        at += out.write(r.text, at, r.bytes, 'utf8');
      });
      out.write(DEVICES_TAIL, at, 'latin1');
      return out;
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
