/**
 * Side by side, in-process: four ways to produce the GET /api/devices body for 300
 * devices — fresh rows + JSON.stringify (before issue 10), fresh rows + fast-json-stringify
 * (Fastify's response-schema serializer, schema derived from a row), the row cache after
 * one device changed (what a poll costs), and the unchanged cached body. Prints µs per
 * body; asserts nothing.
 *
 *   npx tsx bench/serialize.ts
 */
import fastJson from 'fast-json-stringify';
import { EventBus } from '../src/events.ts';
import { ListCache } from '../src/http/list-cache.ts';
import { silentLogger } from '../src/logger.ts';
import { DeviceRegistry } from '../src/services/devices/registry/registry.ts';
import { GroupService } from '../src/services/devices/groups.ts';
import { ScaledClock } from '../src/clock.ts';
import type { GatewayDriver } from '../src/gateway/types.ts';
import type { StatePersistence } from '../src/state/persistence.ts';
import { Store } from '../src/state/store.ts';
import { fleetState } from './fleet-state.ts';

type Schema = Record<string, unknown>;
function schemaOf(v: unknown): Schema {
  if (v === null) return { type: 'null' };
  if (Array.isArray(v)) return { type: 'array', items: v.length ? schemaOf(v[0]) : {} };
  if (typeof v === 'object') {
    const properties: Record<string, Schema> = {};
    for (const [k, x] of Object.entries(v as object)) properties[k] = schemaOf(x);
    return { type: 'object', properties, additionalProperties: true };
  }
  return { type: typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'boolean' : 'string' };
}

function time(label: string, n: number, fn: () => unknown): void {
  for (let i = 0; i < 20; i++) fn();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn();
  const us = ((performance.now() - t0) * 1000) / n;
  console.log(
    `${label.padEnd(58)} ${us.toFixed(1).padStart(9)} µs/body  (${(1e6 / us).toFixed(0)} bodies/s)`,
  );
}

async function main(): Promise<void> {
  const state = fleetState(300, 16);
  const persistence: StatePersistence = {
    path: '(memory)',
    load: async () => ({ state, source: 'main', fromVersion: 2, warning: null, alarm: null, replayed: 0 }),
    commit: async () => {},
    compact: async () => {},
    replace: async () => {},
    durableCopy: () => state,
    wantsCompaction: () => false,
    probe: async () => {},
    acknowledgeAlarm: async () => {},
    close: async () => {},
  };
  const clock = new ScaledClock(1);
  const store = new Store({
    persistence,
    bus: new EventBus(),
    clock,
    log: silentLogger(),
    lazyMs: 1e9,
    debounceMs: 1e9,
  });
  await store.load();
  const registry = new DeviceRegistry(store, {} as GatewayDriver, clock, silentLogger());
  const lists = new ListCache({ store, registry, groups: new GroupService(store) });
  const rows = registry.rows();
  const fjs = fastJson({
    type: 'object',
    properties: { ok: { type: 'boolean' }, devices: { type: 'array', items: schemaOf(rows[0]) } },
  });
  const fresh = JSON.stringify({ ok: true, devices: rows });
  console.log(
    `\n300 devices, body ${(fresh.length / 1024).toFixed(0)} KiB; fast-json-stringify output identical: ${fjs({ ok: true, devices: rows }) === fresh}\n`,
  );
  time('fresh rows + JSON.stringify (before)', 300, () =>
    JSON.stringify({ ok: true, devices: registry.rows() }),
  );
  time('fresh rows + fast-json-stringify (response schema)', 300, () =>
    fjs({ ok: true, devices: registry.rows() }),
  );
  let i = 0;
  time('row cache, one device changed (rebuild 1 row, join, hash)', 2000, () => {
    const d = store.state.devices[i++ % 300];
    if (d) store.mutate(['DEVICES'], () => (d.host_rssi = -70 - (i % 9)), 'lazy', [d]);
    return lists.devices.current();
  });
  time('cached body, nothing changed', 100000, () => lists.devices.current());
  await store.close();
  lists.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
