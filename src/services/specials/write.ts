/**
 * An acknowledged CONFIG write with one time budget for all its attempts (6 s by the
 * contract, not 6 s per attempt): attempts of the driver's per-attempt ACK window follow
 * each other until an ACK arrives or the budget is spent. A reboot usually cannot be
 * acknowledged (the node restarts in the same loop pass, §8.12), so for it the node's
 * boot announcement counts as the confirmation.
 */
import type { Clock } from '../../clock.ts';
import type { GatewayDriver, Priority } from '../../gateway/types.ts';
import type { Addr } from '../../protocol/types.ts';
import { TaskCancelledError } from '../../tasks/task-manager.ts';
import type { DeviceRegistry } from '../devices/index.ts';

export const CONFIG_ACK_BUDGET_MS = 6000;

export class ConfigWriteError extends Error {
  override readonly name = 'ConfigWriteError';
}

export interface AckedWrite {
  addr: Addr;
  option: number;
  data: [number, number, number, number];
  /** For messages: `led_fps (option 0x05)`. */
  label: string;
  /** Count the node's boot announcement as confirmation (reboot). */
  bootConfirms?: boolean;
  signal?: AbortSignal;
  /** Task writes are bulk traffic; a synchronous action is interactive. */
  priority?: Priority;
}

const untilAborted = (signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });

export const hex2 = (n: number): string => `0x${n.toString(16).padStart(2, '0').toUpperCase()}`;

export class AckedConfigWriter {
  constructor(
    private readonly deps: {
      driver: GatewayDriver;
      clock: Clock;
      registry: Pick<DeviceRegistry, 'noteConfigSent'> & Partial<Pick<DeviceRegistry, 'find'>>;
      budgetMs?: number;
    },
  ) {}

  /** Resolves with how the write was confirmed; throws ConfigWriteError (or cancellation). */
  async write(w: AckedWrite): Promise<{ confirmed: 'ack' | 'boot'; attempts: number }> {
    const { driver, clock, registry } = this.deps;
    const budgetMs = this.deps.budgetMs ?? CONFIG_ACK_BUDGET_MS;
    const stop = new AbortController();
    let spent = false;
    let booted = false;
    const timer = clock.setTimeout(() => {
      spent = true;
      stop.abort(new Error('budget spent'));
    }, budgetMs);
    const onCancel = (): void => stop.abort(w.signal?.reason);
    w.signal?.addEventListener('abort', onCancel, { once: true });
    // Several networks: only the device's own network's announcement proves its reboot (the
    // same 6-hex address may live on another network).
    const network = registry.find?.(w.addr)?.network_id;
    const off = w.bootConfirms
      ? driver.on('packet', (p) => {
          const sameNet = p.network_id === undefined || network === undefined || p.network_id === network;
          if (p.packet.sender === w.addr && sameNet && p.reply?.kind === 'IDENTIFY_REPLY') {
            booted = true;
            stop.abort(new Error('node rebooted'));
          }
        })
      : () => undefined;
    let attempts = 0;
    let last = '';
    try {
      if (w.signal?.aborted) throw new TaskCancelledError();
      while (!stop.signal.aborted) {
        attempts++;
        registry.noteConfigSent(w.addr, w.option, w.data[0]);
        const r = await driver.config(w.addr, w.option, w.data, {
          attempts: 1,
          priority: w.priority ?? 'bulk',
          signal: stop.signal,
        });
        if (r.ok) {
          if (r.value && !r.value.ok)
            throw new ConfigWriteError(
              `${w.label}: node ${w.addr} refused the write (ACK status ${r.value.status})`,
            );
          return { confirmed: 'ack', attempts };
        }
        if (r.reason === 'cancelled') break;
        if (r.reason === 'link_down' || r.reason === 'invalid')
          throw new ConfigWriteError(`${w.label}: ${r.detail}`);
        last = r.detail;
        // A reboot that left the antenna is never repeated (a second one would restart the
        // node again): wait for its boot announcement for the rest of the budget.
        if (w.bootConfirms && r.reason === 'no_reply') await untilAborted(stop.signal);
      }
      if (booted) return { confirmed: 'boot', attempts };
      if (w.signal?.aborted && !spent) throw new TaskCancelledError();
      throw new ConfigWriteError(
        `no ACK from ${w.addr} for ${w.label} within ${budgetMs / 1000} s ` +
          `(${attempts} attempt${attempts === 1 ? '' : 's'}${last ? `; last: ${last}` : ''})`,
      );
    } finally {
      timer.cancel();
      off();
      w.signal?.removeEventListener('abort', onCancel);
    }
  }
}
