/**
 * `POST /api/gateways/rescan`: looks for gateways plugged in while the host runs. It probes,
 * all at once, only the serial ports no driver owns — opening a CP2102 port resets the
 * board, so a live (or reconnecting) gateway's port is never touched, by name or by the
 * device it resolves to. Each gateway that answers gets its own driver, joins the Radio and
 * is bound like one found at start: to the network naming its MAC (a missing gateway back
 * on a new port), else it waits unassigned for the operator.
 *
 * Why the host can add a gateway live: services always talk to the Radio (with one gateway
 * serving its network it passes every call straight through), so a second driver needs no
 * restart. A missing gateway that comes back on its own port needs no rescan: its driver
 * reconnects by itself.
 */
import { ScaledClock, type Clock } from '../../clock.ts';
import { createGatewayDriver } from '../../gateway/driver.ts';
import type { Radio } from '../../gateway/radio/radio.ts';
import type { GatewayDriver } from '../../gateway/types.ts';
import { canonicalPort, serialChoice, type DetectOverride } from './choice.ts';
import type { Logger } from '../../logger.ts';
import type { NetworksService } from '../../services/networks/index.ts';
import { detectGateways, type ProbeAttempt } from '../../transport/index.ts';
import { handOver } from '../../transport/detect.ts';
import { listCandidatePorts } from '../../transport/serial-ports.ts';

export interface RescanResult {
  attached: { mac: string; port: string }[];
  tried: ProbeAttempt[];
  /** Ports skipped because a driver owns them. */
  skipped: string[];
}

export interface RescanOptions {
  /** Probe only these ports (the hot-plug watcher: ports that appeared), if free. */
  only?: readonly string[];
  /** Leave the one line per attached gateway to the caller (the watcher names its network). */
  quiet?: boolean;
}

export interface GatewayScanner {
  rescan(opts?: RescanOptions): Promise<RescanResult>;
  /** Unsubscribes the gateways it added (the Radio stops their drivers with the others). */
  stop(): void;
}

export function createGatewayScanner(deps: {
  radio: Radio;
  networks: NetworksService;
  clock: Clock;
  log: Logger;
  driverOptions?: Parameters<typeof createGatewayDriver>[0]['options'];
  detect?: DetectOverride;
}): GatewayScanner {
  const { radio, networks, log } = deps;
  const added: { driver: GatewayDriver; off: () => void }[] = [];
  // Scans never overlap (a port is opened by one probe at a time); concurrent full rescans
  // share one run, a watcher's scan of appeared ports waits its turn.
  let tail: Promise<unknown> = Promise.resolve();
  let runningFull: Promise<RescanResult> | null = null;
  const queued = (opts: RescanOptions): Promise<RescanResult> => {
    const p = tail.then(() => scan(opts));
    tail = p.catch(() => undefined);
    return p;
  };

  const scan = async (opts: RescanOptions): Promise<RescanResult> => {
    const owned = radio.live().map((g) => g.label);
    const ownedReal = new Set(await Promise.all(owned.map(canonicalPort)));
    const skipped: string[] = [];
    const candidates = async (): Promise<{ path: string; info?: string }[]> => {
      const listed = deps.detect?.candidates ? await deps.detect.candidates() : await listCandidatePorts({});
      const only = opts.only;
      const all = only ? listed.filter((c) => only.includes(c.path)) : listed;
      const free: { path: string; info?: string }[] = [];
      for (const c of all) {
        if (owned.includes(c.path) || ownedReal.has(await canonicalPort(c.path))) skipped.push(c.path);
        else free.push(c);
      }
      return free;
    };
    const res = await detectGateways({
      clock: deps.detect ? deps.clock : new ScaledClock(1),
      candidates,
      ...(deps.detect?.open ? { open: deps.detect.open } : {}),
      ...(deps.detect?.identify ? { identify: deps.detect.identify } : {}),
      log: (msg, fields) => log.debug({ ...fields }, msg),
      // The probe's open link goes to the driver: the port is opened (and the board reset) once.
      keepOpen: true,
    });
    const attached: RescanResult['attached'] = [];
    for (const f of res.found) {
      const choice = serialChoice(f.path, log);
      const fresh = deps.detect?.linkFactory?.(f.path) ?? choice.linkFactory;
      const driver = createGatewayDriver({
        linkFactory: f.link ? handOver(f.link, fresh) : fresh,
        clock: deps.detect ? deps.clock : choice.clock,
        transport: deps.detect ? 'sim' : 'serial',
        port: f.path,
        log: log.child({ mod: 'gateway', gateway: f.path }),
        options: deps.driverOptions,
      });
      const index = radio.addGateway({ driver, label: f.path });
      const off = networks.added(index);
      added.push({ driver, off });
      await driver.start();
      attached.push({ mac: f.mac.replace(/:/g, ''), port: f.path });
      if (!opts.quiet)
        log.info({ port: f.path, gateway_mac: f.mac }, 'gateway found while running: attached');
    }
    return { attached, tried: res.tried, skipped };
  };

  return {
    rescan(opts = {}) {
      if (opts.only) return queued(opts);
      runningFull ??= queued(opts).finally(() => {
        runningFull = null;
      });
      return runningFull;
    },
    stop() {
      for (const a of added) a.off();
    },
  };
}
