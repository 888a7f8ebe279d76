/**
 * Link test (task `link_test`): the pre-race walk of the course. N STATUS exchanges
 * with each selected device, one round over all devices at a time (so a slow walk
 * samples every node at every spot), each a single attempt; the result per device is
 * loss %, round trip (send to reply, as the host sees it) and the RSSI/SNR range both ways.
 * With several gateways each round runs per network, the networks in parallel (each
 * gateway's air is its own), and the meta gains `networks: {id: {done, total}}`; a device
 * of a network whose gateway is missing fails at once (the Radio names the network).
 */
import { networkLegs } from '../../gateway/radio/radio.ts';
import type { Clock } from '../../clock.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import type { GatewayDriver } from '../../gateway/types.ts';
import type { Logger } from '../../logger.ts';
import type { Addr } from '../../protocol/types.ts';
import type { TaskManager, TaskSnapshot } from '../../tasks/task-manager.ts';
import { LinkStats, type LinkTestResult } from './stats.ts';

export const LINK_TEST_MAX_COUNT = 100;
export const LINK_TEST_DEFAULT_COUNT = 10;

export interface LinkTestRequest {
  macs: Addr[];
  count?: number;
}

export type { LinkTestResult };

interface Known {
  addr: Addr;
  name: string;
  groupId: number;
  network_id?: number;
}

export class LinkTestService {
  constructor(
    private readonly deps: {
      driver: GatewayDriver;
      registry: { find(addr: Addr): Known | undefined };
      tasks: TaskManager;
      clock: Clock;
      log: Logger;
      /** Lost probes count as failed exchanges in the history. */
      onLost?: (addr: Addr) => void;
    },
  ) {}

  start(req: LinkTestRequest): TaskSnapshot {
    const { tasks, registry, driver, clock, log, onLost } = this.deps;
    tasks.assertIdle();
    if (req.macs.length === 0) throw new ValidationError('macs: give at least one device');
    const count = req.count ?? LINK_TEST_DEFAULT_COUNT;
    const devices = [...new Set(req.macs)].map((a) => {
      const d = registry.find(a);
      if (!d) throw new NotFoundError(`device not found: ${a}`);
      return d;
    });
    const total = devices.length * count;
    const meta = { stage: 'LINK_TEST', count, devices: devices.length, index: 0, total };
    return tasks.start('link_test', meta, async (ctx): Promise<LinkTestResult> => {
      const stats = devices.map((d) => new LinkStats(d.addr, d.name));
      let done = 0;
      let lost = 0;
      // One lane per network (with one gateway: one lane on the driver itself).
      const legs = networkLegs(driver);
      const lanes = new Map<number, { driver: GatewayDriver; items: number[]; done: number }>();
      devices.forEach((d, i) => {
        const id = legs ? (d.network_id ?? 0) : 0;
        const lane = lanes.get(id) ?? {
          driver: legs?.find((l) => l.networkId === id)?.driver ?? driver,
          items: [],
          done: 0,
        };
        lane.items.push(i);
        lanes.set(id, lane);
      });
      const networks = (): Record<string, { done: number; total: number }> | undefined =>
        legs
          ? Object.fromEntries(
              [...lanes].map(([id, l]) => [id, { done: l.done, total: l.items.length * count }]),
            )
          : undefined;
      for (let round = 1; round <= count; round++) {
        const settled = await Promise.allSettled(
          [...lanes.values()].map(async (lane) => {
            for (const i of lane.items) await probe(lane, i, round);
          }),
        );
        const err = settled.find((x): x is PromiseRejectedResult => x.status === 'rejected');
        if (err) throw err.reason;
      }
      async function probe(
        lane: { driver: GatewayDriver; done: number },
        i: number,
        round: number,
      ): Promise<void> {
        const d = devices[i] as Known;
        ctx.checkpoint();
        const s = stats[i] as LinkStats;
        const t0 = clock.now();
        const r = await lane.driver.statusUnicast(d.addr, d.groupId, {
          priority: 'bulk',
          signal: ctx.signal,
        });
        ctx.checkpoint();
        if (r.ok) {
          ctx.bumpRx('rx_replies');
          s.heard({
            rttMs: r.value.ts - t0,
            hostRssi: r.value.rssi,
            hostSnr: r.value.snr,
            nodeRssi: r.value.reply.rssi,
            nodeSnr: r.value.reply.snr,
          });
        } else {
          lost++;
          s.lost();
          onLost?.(d.addr);
        }
        done++;
        lane.done++;
        const nets = networks();
        ctx.setMeta({
          ...meta,
          round,
          index: done,
          addr: d.addr,
          lost,
          ...(nets ? { networks: nets } : {}),
        });
      }
      const result = { count, devices: stats.map((s) => s.result()) };
      log.info(
        {
          cat: 'radio',
          devices: devices.length,
          count,
          lost,
          loss_pct: Math.round((lost / total) * 1000) / 10,
        },
        'link test done',
      );
      return result;
    });
  }
}
