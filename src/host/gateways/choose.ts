/**
 * Which gateways the host drives: the `--gateway` list (serial ports, TCP addresses), every
 * gateway that answers auto-detection (all ports probed at once), or the simulator (`--sim-gateways N`
 * simulated gateways, each with its own fleet, on one air and one clock). With one entry
 * this is exactly what the host has always done.
 */
import { ScaledClock, type Clock } from '../../clock.ts';
import type { Config } from '../../config/index.ts';
import { serialChoice, transportLog, type GatewayChoice, type StartDetect } from './choice.ts';
import type { Logger } from '../../logger.ts';
import type { SimOnMemory } from '../../sim/sim-host.ts';
import { handOver } from '../../transport/detect.ts';
import {
  detectGateway,
  detectGateways,
  TcpLink,
  type DetectOptions,
  type GatewaySpec,
  type Link,
} from '../../transport/index.ts';

/** One gateway: what the host has always done. */
async function chooseGateway(
  cfg: Config,
  log: Logger,
  clockOverride?: Clock,
  external?: SimOnMemory,
  detect?: StartDetect,
): Promise<GatewayChoice[]> {
  return [await chooseOne(cfg, cfg.gateway, log, clockOverride, external, detect)];
}

async function chooseOne(
  cfg: Config,
  spec: GatewaySpec,
  log: Logger,
  clockOverride?: Clock,
  external?: SimOnMemory,
  detect?: StartDetect,
  /** The caller already said, in its own line, that the simulator is used. */
  announced = false,
): Promise<GatewayChoice> {
  if (external && spec.kind === 'sim') {
    log.warn({}, 'using an already running SIMULATED gateway and fleet');
    const clock = external.fleet.clock;
    return { linkFactory: external.linkFactory, transport: 'sim', port: 'sim', sim: external, clock };
  }
  const simClock = (): Clock => clockOverride ?? new ScaledClock(cfg.simTimeScale);
  // Loaded only when used: on real hardware the simulator costs neither start time nor memory.
  const sim = async (clock: Clock): Promise<GatewayChoice> => {
    const { startSimOnMemory } = await import('../../sim/sim-host.ts');
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
      if (!announced)
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
      const res = await detectGateway(detectOptions(log, detect));
      const first = res.found;
      if (first) {
        log.info({ port: first.path, gateway_mac: first.mac, tried: res.tried }, 'gateway found');
        return foundChoice(first, log, detect);
      }
      log.warn(
        { tried: res.tried, nodes: cfg.simNodes, seed: cfg.simSeed },
        'no gateway answered the identify ping: using the SIMULATED gateway and fleet',
      );
      return sim(simClock());
    }
  }
}

/**
 * Start-up detection keeps every identified port open: the driver takes the probe's link
 * (transport/detect.ts handOver) instead of reopening the port, which on a CP2102 board
 * would reset it and cost another boot wait. Reconnects open fresh links.
 */
function detectOptions(log: Logger, detect?: StartDetect): DetectOptions {
  return {
    clock: new ScaledClock(1),
    log: transportLog(log),
    keepOpen: true,
    ...(detect?.candidates ? { candidates: detect.candidates } : {}),
    ...(detect?.open ? { open: detect.open } : {}),
    ...(detect?.identify ? { identify: detect.identify } : {}),
  };
}

function foundChoice(f: { path: string; link?: Link }, log: Logger, detect?: StartDetect): GatewayChoice {
  const choice = serialChoice(f.path, log);
  const fresh = detect?.linkFactory?.(f.path) ?? choice.linkFactory;
  if (!f.link) return { ...choice, linkFactory: fresh };
  return { ...choice, linkFactory: handOver(f.link, fresh), probeLink: f.link };
}

/** Closes the probe links a failed start never used (a driver that took one has closed it or dies with us). */
export async function closeProbeLinks(gws: readonly GatewayChoice[]): Promise<void> {
  await Promise.all(gws.map((g) => g.probeLink?.close().catch(() => undefined)));
}

/** Every gateway the configuration names (several: one network each). */
export async function chooseGateways(
  cfg: Config,
  log: Logger,
  clockOverride?: Clock,
  external?: SimOnMemory,
  detect?: StartDetect,
): Promise<GatewayChoice[]> {
  const specs = cfg.gateways ?? [cfg.gateway];
  const simCount = cfg.simGateways ?? 1;
  if (specs.length > 1) {
    const out: GatewayChoice[] = [];
    for (const spec of specs) out.push(await chooseOne(cfg, spec, log, clockOverride, undefined, detect));
    log.info({ gateways: out.map((g) => g.port) }, 'several gateways: one network each');
    return out;
  }
  if (cfg.gateway.kind === 'auto' && !external) {
    // Every port at once; every gateway that answers is driven (one network each).
    const res = await detectGateways(detectOptions(log, detect));
    if (res.found.length > 0) {
      if (simCount > 1)
        log.warn({ ports: res.found.map((f) => f.path) }, 'gateways answered: --sim-gateways is ignored');
      log.info(
        { gateways: res.found.map((f) => ({ port: f.path, gateway_mac: f.mac })), tried: res.tried },
        res.found.length > 1 ? 'gateways found: one network each' : 'gateway found',
      );
      return res.found.map((f) => foundChoice(f, log, detect));
    }
    if (simCount <= 1) {
      log.warn(
        { tried: res.tried, nodes: cfg.simNodes, seed: cfg.simSeed, timeScale: cfg.simTimeScale },
        'no gateway answered the identify ping: using the SIMULATED gateway and fleet',
      );
      return [await chooseOne(cfg, { kind: 'sim' }, log, clockOverride, undefined, undefined, true)];
    }
  }
  if (simCount <= 1 || external) return chooseGateway(cfg, log, clockOverride, external, detect);
  const clock = clockOverride ?? new ScaledClock(cfg.simTimeScale);
  log.warn(
    { gateways: simCount, nodesEach: cfg.simNodes, seed: cfg.simSeed, timeScale: cfg.simTimeScale },
    'using SIMULATED gateways and fleets',
  );
  const { startSimGatewaysOnMemory } = await import('../../sim/fleets.ts');
  const sims = startSimGatewaysOnMemory({
    gateways: simCount,
    ...(cfg.simSameChannel ? { sameChannel: true } : {}),
    ...(cfg.simSplitFleet ? { split: true } : {}),
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
