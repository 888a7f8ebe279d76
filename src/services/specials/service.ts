/**
 * Device options ("specials", §7A, §10): the form schema, the acknowledged write as task
 * `special_config`, the live read through GET_CONFIG, the import of a device-reported
 * value, and (via SpecialsActions) the one-shot functions. The stored specials are the
 * operator's intent; a live read shows the node's value next to it, so a divergence is
 * visible and can be resolved by writing again or importing the live value.
 */
import type { Clock } from '../../clock.ts';
import type { Device } from '../../domain/model.ts';
import { findAnyMethod, findMethod, methodData0, type SpecialMethod } from '../../domain/specials/methods.ts';
import {
  checkSpecialValue,
  findAnyOption,
  findOption,
  flatKeys,
  flatten,
  materializeSpecials,
  packSpecial,
  sameValue,
  storedValue,
  unpackSpecial,
  type Capability,
  type SpecialOption,
  type SpecialValue,
} from '../../domain/specials/options.ts';
import { ValidationError } from '../../errors.ts';
import type { GatewayDriver } from '../../gateway/types.ts';
import type { Logger } from '../../logger.ts';
import { deviceTypeInfo } from '../../protocol/device-types.ts';
import type { Addr } from '../../protocol/types.ts';
import type { Store } from '../../state/store.ts';
import type { TaskManager, TaskSnapshot } from '../../tasks/task-manager.ts';
import { DeviceRegistry } from '../devices/index.ts';
import { AckedConfigWriter, hex2 } from './write.ts';

export interface SpecialsDeps {
  store: Store;
  driver: GatewayDriver;
  registry: DeviceRegistry;
  tasks: TaskManager;
  clock: Clock;
  log: Logger;
  /** How long an option write waits for the node's ACKs (default 6 s; tests lengthen it). */
  ackBudgetMs?: number;
}

export interface Target {
  addr: Addr;
  device: Device;
  caps: Capability[];
}

/** What a key names on a device: a value option or a method. */
export type Resolved = { kind: 'option'; option: SpecialOption } | { kind: 'method'; method: SpecialMethod };

export type ReadResult =
  | { ok: true; mac: Addr; key: string; value: SpecialValue; stored: SpecialValue; in_sync: boolean }
  | { ok: false; mac: Addr; key: string; error: string; detail?: string };

export class SpecialsService {
  readonly writer: AckedConfigWriter;
  private readonly readChains = new Map<Addr, Promise<void>>();

  constructor(private readonly deps: SpecialsDeps) {
    this.writer = new AckedConfigWriter({
      driver: deps.driver,
      clock: deps.clock,
      registry: deps.registry,
      budgetMs: deps.ackBudgetMs,
    });
  }

  /** The device addressed by `mac` (400 unusable/broadcast, 404 unknown). */
  target(mac: unknown, field = 'mac'): Target {
    const addr = DeviceRegistry.parseAddr(mac, field);
    const device = this.deps.registry.require(addr);
    return { addr, device, caps: deviceTypeInfo(device.dev_type).caps };
  }

  resolveKey(t: Target, key: string): Resolved {
    const option = findOption(t.caps, key);
    if (option) return { kind: 'option', option };
    const method = findMethod(t.caps, key);
    if (method) return { kind: 'method', method };
    if (findAnyOption(key) || findAnyMethod(key)) {
      const info = deviceTypeInfo(t.device.dev_type);
      throw new ValidationError(
        `key: option ${key} not supported for device ${t.addr} (${info.name}, capabilities: ${info.caps.join(', ') || 'none'})`,
      );
    }
    throw new ValidationError(`key: unknown option ${JSON.stringify(key)}`);
  }

  private materialized(t: Target): Record<string, number> {
    return materializeSpecials(t.caps, t.device.specials);
  }

  /** Starts task `special_config`: CONFIG with a 6 s ACK budget; the stored value changes on ACK only. */
  startConfig(mac: unknown, key: string, value: unknown): TaskSnapshot {
    const t = this.target(mac);
    const r = this.resolveKey(t, key);
    let data: [number, number, number, number];
    let checked: SpecialValue | null = null;
    if (r.kind === 'option') {
      const c = checkSpecialValue(r.option, value);
      if (!c.ok) throw new ValidationError(c.error);
      checked = c.value;
      data = packSpecial(r.option, c.value);
    } else {
      const d = methodData0(r.method, value);
      if (!d.ok) throw new ValidationError(d.error);
      data = [d.data0, 0, 0, 0];
    }
    const option = r.kind === 'option' ? r.option.option : r.method.option;
    const label = `${key} (option ${hex2(option)})`;
    const addr = t.addr;
    const { tasks, store, log } = this.deps;
    return tasks.start(
      'special_config',
      { mac: addr, key, message: 'Preparing special config' },
      async (ctx) => {
        ctx.setMeta({ mac: addr, key, message: `Sending ${key} (${hex2(option)})` });
        const w = await this.writer.write({
          addr,
          option,
          data,
          label,
          bootConfirms: r.kind === 'method' && r.method.key === 'reboot',
          signal: ctx.signal,
        });
        const dev = this.deps.registry.find(addr);
        if (!dev) throw new Error(`device not found: ${addr}`);
        if (r.kind === 'option' && checked !== null) {
          const v = checked;
          store.mutate(
            ['DEVICE_SPECIALS'],
            () => {
              dev.specials = { ...materializeSpecials(t.caps, dev.specials), ...flatten(r.option, v) };
            },
            'soon',
            [dev],
          );
        } else if (r.kind === 'method' && r.method.key === 'reset_overrides') {
          this.resetLedSpecials(dev);
        }
        log.info(
          { addr, key, option, confirmed: w.confirmed, attempts: w.attempts },
          'special config written',
        );
        const result: Record<string, unknown> = {
          mac: addr,
          key,
          value: r.kind === 'option' ? checked : r.method.kind === 'toggle' ? data[0] : null,
          confirmed: w.confirmed === 'ack' ? 'ack' : 'boot announcement',
        };
        ctx.setMeta({
          mac: addr,
          key,
          message: w.confirmed === 'ack' ? `${key} acknowledged` : `${key}: node rebooted`,
        });
        return result;
      },
    );
  }

  /** Node reset its overrides: the stored LED options go back to their defaults (§7A.3). */
  resetLedSpecials(dev: Device): void {
    const caps = deviceTypeInfo(dev.dev_type).caps;
    this.deps.store.mutate(
      ['DEVICE_SPECIALS'],
      () => {
        const keep = Object.fromEntries(Object.entries(dev.specials).filter(([k]) => !k.startsWith('led_')));
        dev.specials = materializeSpecials(caps, keep);
      },
      'soon',
      [dev],
    );
  }

  /**
   * One live GET_CONFIG (interactive priority, one attempt, not gated by tasks). The stored
   * value is returned alongside, so a divergence shows; nothing is stored by a read.
   */
  async read(mac: unknown, key: string): Promise<ReadResult> {
    const t = this.target(mac);
    const r = this.resolveKey(t, key);
    const option = r.kind === 'option' ? r.option.option : r.method.option;
    // Method options never answer (§6.10); the contract still sends and reports the timeout.
    const res = await this.oneAtATime(t.addr, () =>
      this.deps.driver.getConfig(t.addr, option, { priority: 'interactive' }),
    );
    if (!res.ok) {
      return res.reason === 'no_reply'
        ? { ok: false, mac: t.addr, key, error: 'timeout' }
        : { ok: false, mac: t.addr, key, error: res.reason, detail: res.detail };
    }
    if (r.kind !== 'option')
      return { ok: false, mac: t.addr, key, error: 'not readable', detail: `${key} is a method` };
    const value = unpackSpecial(r.option, res.value.data);
    const stored = storedValue(r.option, this.materialized(t));
    return { ok: true, mac: t.addr, key, value, stored, in_sync: sameValue(value, stored) };
  }

  /**
   * Reads of one device run one after the other: a node does not listen while its reply
   * waits for a free channel (§8.5), so a second request sent meanwhile would be lost.
   * Reads of different devices still overlap.
   */
  private oneAtATime<T>(addr: Addr, fn: () => Promise<T>): Promise<T> {
    const prev = this.readChains.get(addr) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.then(
      () => undefined,
      () => undefined,
    );
    this.readChains.set(addr, tail);
    void tail.then(() => {
      if (this.readChains.get(addr) === tail) this.readChains.delete(addr);
    });
    return next;
  }

  /** Adopts a device-reported value as the stored intent, without radio traffic. */
  importValue(
    mac: unknown,
    key: string,
    value: unknown,
  ): { ok: true; mac: Addr; key: string; value: SpecialValue; written: string[] } {
    const t = this.target(mac);
    const r = this.resolveKey(t, key);
    if (r.kind !== 'option')
      throw new ValidationError(`key: ${key} is a method (${r.method.label}) and has no stored value`);
    const c = checkSpecialValue(r.option, value);
    if (!c.ok) throw new ValidationError(c.error);
    const dev = t.device;
    this.deps.store.mutate(
      ['DEVICE_SPECIALS'],
      () => {
        dev.specials = { ...materializeSpecials(t.caps, dev.specials), ...flatten(r.option, c.value) };
      },
      'soon',
      [dev],
    );
    this.deps.log.info({ addr: t.addr, key, value: c.value }, 'special imported');
    return { ok: true, mac: t.addr, key, value: c.value, written: flatKeys(r.option) };
  }
}
