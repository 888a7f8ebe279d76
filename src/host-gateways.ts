/**
 * Which gateways the host drives: the `--gateway` list (serial ports, TCP addresses), every
 * gateway that answers auto-detection (all ports probed at once), or the simulator (`--sim-gateways N`
 * simulated gateways, each with its own fleet, on one air and one clock). With one entry
 * this is exactly what the host has always done.
 */
import { ScaledClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import type { SimOnMemory } from './sim/sim-host.ts';
import {
  detectGateways,
  SerialLink,
  TcpLink,
  type GatewaySpec,
  type LinkFactory,
} from './transport/index.ts';

export interface GatewayChoice {
  linkFactory: LinkFactory;
  transport: 'serial' | 'tcp' | 'sim';
  port: string;
  sim: SimOnMemory | null;
  clock: Clock;
}

/** One gateway: what the host has always done. */
async function chooseGateway(
  cfg: Config,
  log: Logger,
  clockOverride?: Clock,
  external?: SimOnMemory,
): Promise<GatewayChoice[]> {
  return [await chooseOne(cfg, cfg.gateway, log, clockOverride, external)];
}

async function chooseOne(
  cfg: Config,
  spec: GatewaySpec,
  log: Logger,
  clockOverride?: Clock,
  external?: SimOnMemory,
): Promise<GatewayChoice> {
  if (external && spec.kind === 'sim') {
    log.warn({}, 'using an already running SIMULATED gateway and fleet');
    const clock = external.fleet.clock;
    return { linkFactory: external.linkFactory, transport: 'sim', port: 'sim', sim: external, clock };
  }
  const simClock = (): Clock => clockOverride ?? new ScaledClock(cfg.simTimeScale);
  // Loaded only when used: on real hardware the simulator costs neither start time nor memory.
  const sim = async (clock: Clock): Promise<GatewayChoice> => {
    const { startSimOnMemory } = await import('./sim/sim-host.ts');
    // The simulated gateway is a board that was plugged in before the host started: it
    // is up at once (its nodes still power on after the start, as at an event).
    const s = startSimOnMemory({
      nodes: cfg.simNodes,
      seed: cfg.simSeed,
      clock,
      autoStart: false,
      gatewayUp: true,
    });
    return { linkFactory: s.linkFactory, transport: 'sim', port: 'sim', sim: s, clock };
  };
  const real = new ScaledClock(1);
  const serial = (path: string): GatewayChoice => serialChoice(path, log);
  switch (spec.kind) {
    case 'sim':
      log.warn(
        { nodes: cfg.simNodes, seed: cfg.simSeed, timeScale: cfg.simTimeScale },
        'using the SIMULATED gateway and fleet',
      );
      return sim(simClock());
    case 'serial':
      return serial(spec.path);
    case 'tcp': {
      const { host, port } = spec;
      return {
        linkFactory: () => new TcpLink(host, port, { clock: real }),
        transport: 'tcp',
        port: `${host}:${port}`,
        sim: null,
        clock: real,
      };
    }
    case 'auto': {
      // Several answering ports are handled by chooseGateways; here only the simulator fallback.
      const res = await detectGateways({ clock: real, log: transportLog(log) });
      const first = res.found[0];
      if (first) {
        log.info({ port: first.path, gateway_mac: first.mac, tried: res.tried }, 'gateway found');
        return serial(first.path);
      }
      log.warn(
        { tried: res.tried, nodes: cfg.simNodes, seed: cfg.simSeed },
        'no gateway answered the identify ping: using the SIMULATED gateway and fleet',
      );
      return sim(simClock());
    }
  }
}

const transportLog =
  (log: Logger) =>
  (msg: string, fields?: object): void =>
    log.debug({ ...fields }, msg);

/** A serial gateway on the real clock (also used for one found by a rescan). */
export function serialChoice(path: string, log: Logger): GatewayChoice {
  const tlog = transportLog(log);
  return {
    linkFactory: () => new SerialLink(path, { log: tlog }),
    transport: 'serial',
    port: path,
    sim: null,
    clock: new ScaledClock(1),
  };
}

/** Every gateway the configuration names (several: one network each). */
export async function chooseGateways(
  cfg: Config,
  log: Logger,
  clockOverride?: Clock,
  external?: SimOnMemory,
): Promise<GatewayChoice[]> {
  const specs = cfg.gateways ?? [cfg.gateway];
  const simCount = cfg.simGateways ?? 1;
  if (specs.length > 1) {
    const out: GatewayChoice[] = [];
    for (const spec of specs) out.push(await chooseOne(cfg, spec, log, clockOverride));
    log.info({ gateways: out.map((g) => g.port) }, 'several gateways: one network each');
    return out;
  }
  if (cfg.gateway.kind === 'auto' && !external) {
    // Every port at once; every gateway that answers is driven (one network each).
    const res = await detectGateways({ clock: new ScaledClock(1), log: transportLog(log) });
    if (res.found.length > 0) {
      if (simCount > 1)
        log.warn({ ports: res.found.map((f) => f.path) }, 'gateways answered: --sim-gateways is ignored');
      log.info(
        { gateways: res.found.map((f) => ({ port: f.path, gateway_mac: f.mac })), tried: res.tried },
        res.found.length > 1 ? 'gateways found: one network each' : 'gateway found',
      );
      return res.found.map((f) => serialChoice(f.path, log));
    }
    if (simCount <= 1) {
      log.warn(
        { tried: res.tried, nodes: cfg.simNodes, seed: cfg.simSeed },
        'no gateway answered the identify ping: using the SIMULATED gateway and fleet',
      );
      return chooseGateway({ ...cfg, gateway: { kind: 'sim' } }, log, clockOverride);
    }
  }
  if (simCount <= 1 || external) return chooseGateway(cfg, log, clockOverride, external);
  const clock = clockOverride ?? new ScaledClock(cfg.simTimeScale);
  log.warn(
    { gateways: simCount, nodesEach: cfg.simNodes, seed: cfg.simSeed, timeScale: cfg.simTimeScale },
    'using SIMULATED gateways and fleets',
  );
  const { startSimGatewaysOnMemory } = await import('./sim/fleets.ts');
  const sims = startSimGatewaysOnMemory({
    gateways: simCount,
    nodes: cfg.simNodes,
    seed: cfg.simSeed,
    clock,
    autoStart: false,
    gatewayUp: true,
  });
  return sims.map((s, k) => ({
    linkFactory: s.linkFactory,
    transport: 'sim',
    port: `sim:${k}`,
    sim: s,
    clock,
  }));
}
