/**
 * Interactive radio commands: LED preset control (group broadcast or per-device
 * unicast), indicator overlays and raw CONFIG packets. Not gated by the task manager:
 * they travel at interactive priority ahead of any running bulk task (decisions §6).
 * Counts are real TX outcomes: a frame counts only when the gateway reports TX done.
 *
 * One request must not flood the radio: an address listed twice is sent once, unknown
 * addresses cost no airtime (so a unicast list never exceeds the known fleet), and the
 * caller's signal (the HTTP client went away) stops the unicasts not yet sent.
 */
import type { GatewayDriver, TxOutcome } from '../../gateway/types.ts';
import { FLAG } from '../../protocol/flags.ts';
import { BROADCAST, type Addr } from '../../protocol/types.ts';
import type { Store } from '../../state/store.ts';
import type { DeviceRegistry } from './registry/registry.ts';
import type { GroupService } from './groups.ts';
import type { Logger } from '../../logger.ts';
import type { MasterView } from './master-view.ts';

export interface ControlRequest {
  target: { macs: Addr[] } | { groupId: number };
  flags: number;
  presetId: number;
  brightness: number;
}

export interface SendReport {
  /** Frames the gateway transmitted. */
  sent: number;
  /** Failures by address (or "group <id>"), for the operator. */
  errors: Record<string, string>;
}

const INTERACTIVE_DEADLINE_MS = 10_000;

export interface SendControl {
  /** Aborted when nobody waits for the answer any more: the remaining unicasts are dropped. */
  signal?: AbortSignal;
}

/** Each address once, first mention first. */
const distinct = (addrs: readonly Addr[]): Addr[] => [...new Set(addrs)];
const UNKNOWN_DEVICE = 'unknown device (skipped)';

export class ControlService {
  constructor(
    private readonly deps: {
      store: Store;
      driver: GatewayDriver;
      registry: DeviceRegistry;
      groups: GroupService;
      master: MasterView;
      log: Logger;
    },
  ) {}

  async control(req: ControlRequest, ctl: SendControl = {}): Promise<SendReport> {
    const { driver, registry, groups, store, master } = this.deps;
    const report: SendReport = { sent: 0, errors: {} };
    const send = (recv: Addr, groupId: number): Promise<TxOutcome> =>
      driver.send(
        recv,
        { op: 'PRESET', groupId, flags: req.flags, presetId: req.presetId, brightness: req.brightness },
        { priority: 'interactive', deadlineMs: INTERACTIVE_DEADLINE_MS, signal: ctl.signal },
      );
    const remember = (addrs: Set<Addr>): void =>
      store.mutate(['DEVICES'], (s) => {
        for (const d of s.devices) {
          if (!addrs.has(d.addr)) continue;
          // The node derives its power bit from the brightness (wire §7.1): mirror that,
          // so a row does not read OFF after "brightness 200" until the next poll.
          d.flags = (req.flags & ~FLAG.POWER_ON) | (req.brightness > 0 ? FLAG.POWER_ON : 0);
          d.presetId = req.presetId;
          d.brightness = req.brightness;
        }
      });
    if ('groupId' in req.target) {
      const gid = req.target.groupId;
      if (gid !== 255) groups.requireExisting(gid);
      const out = await send(BROADCAST, gid);
      if (out.ok) {
        report.sent = 1;
        remember(
          new Set(
            registry
              .all()
              .filter((d) => gid === 255 || d.groupId === gid)
              .map((d) => d.addr),
          ),
        );
      } else report.errors[`group ${gid}`] = out.detail;
    } else {
      const ok = new Set<Addr>();
      for (const addr of distinct(req.target.macs)) {
        if (ctl.signal?.aborted) break;
        const dev = registry.find(addr);
        if (!dev) {
          report.errors[addr] = UNKNOWN_DEVICE;
          continue;
        }
        const out = await send(addr, dev.groupId);
        if (out.ok) {
          report.sent++;
          ok.add(addr);
        } else report.errors[addr] = out.detail;
      }
      if (ok.size > 0) remember(ok);
    }
    if (report.sent > 0) master.note('CONTROL_SENT');
    return report;
  }

  async indicate(
    macs: Addr[],
    type: number,
    durationSec: number,
    ctl: SendControl = {},
  ): Promise<SendReport> {
    const report: SendReport = { sent: 0, errors: {} };
    for (const addr of distinct(macs)) {
      if (ctl.signal?.aborted) break;
      if (!this.deps.registry.find(addr)) {
        report.errors[addr] = UNKNOWN_DEVICE;
        continue;
      }
      const out = await this.deps.driver.send(
        addr,
        { op: 'INDICATE', type, durationSec },
        { priority: 'interactive', deadlineMs: INTERACTIVE_DEADLINE_MS, signal: ctl.signal },
      );
      if (out.ok) report.sent++;
      else report.errors[addr] = out.detail;
    }
    return report;
  }

  /** One raw CONFIG frame, no ACK wait; an ACK arriving later still updates configByte. */
  async rawConfig(addr: Addr, option: number, data: [number, number, number, number]): Promise<SendReport> {
    this.deps.registry.noteConfigSent(addr, option, data[0]);
    const out = await this.deps.driver.send(
      addr,
      { op: 'CONFIG', option, data },
      { priority: 'interactive', deadlineMs: INTERACTIVE_DEADLINE_MS },
    );
    this.deps.log.info({ addr, option, data }, out.ok ? 'raw config sent' : 'raw config not sent');
    if (out.ok) this.deps.master.note('CONFIG_SENT');
    return out.ok ? { sent: 1, errors: {} } : { sent: 0, errors: { [addr]: out.detail } };
  }
}
