/**
 * Composition root: builds the clock, store, gateway link (real or simulated),
 * driver, services and HTTP app, starts them in order and shuts them down cleanly.
 * main.ts calls this for the CLI; the integration harness calls it in-process.
 */
import type { FastifyInstance } from 'fastify';
import { ScaledClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { EventBus } from './events.ts';
import { createGatewayDriver } from './gateway/driver.ts';
import type { GatewayDriver } from './gateway/types.ts';
import { buildApp } from './http/app.ts';
import type { SseHub } from './http/sse.ts';
import type { Logger } from './logger.ts';
import { processRunner, type CommandRunner } from './services/command-runner.ts';
import { BlackoutService } from './services/race/blackout.ts';
import { ControlService } from './services/control.ts';
import { DeviceMetaService } from './services/device-meta.ts';
import { DeviceRegistry } from './services/device-registry.ts';
import { DiscoveryService } from './services/discovery.ts';
import { GroupService } from './services/groups.ts';
import { FirmwareStore } from './services/firmware-store.ts';
import { HostWifiService } from './services/host-wifi.ts';
import { LedPresetsService } from './services/led-presets.ts';
import { OtaService } from './services/ota.ts';
import { DEFAULT_OTA_TIMINGS, type OtaTimings } from './services/ota-types.ts';
import { LeaseFile, NoWifiBackend, type WifiBackend } from './services/wifi-backend.ts';
import { NmcliBackend } from './services/wifi-nmcli.ts';
import type { AppServices } from './services/index.ts';
import { MasterView } from './services/master-view.ts';
import { NativePresetService } from './services/native-presets.ts';
import { sceneEditorSchema } from './services/scene-editor-schema.ts';
import { SceneService } from './services/scenes.ts';
import { SceneDispatchService } from './services/scene-dispatch.ts';
import { SceneRunner } from './services/scene-runner.ts';
import { mirrorSentFrames } from './services/scene-mirror.ts';
import { WireOverheadCalibration } from './services/overhead-calibration.ts';
import { createSpecials } from './services/specials-wiring.ts';
import { StatusService } from './services/status.ts';
import type { SimOnMemory } from './sim/sim-host.ts';
import { FileStatePersistence } from './state/persistence.ts';
import { Store } from './state/store.ts';
import { TaskManager, type TaskSnapshot } from './tasks/task-manager.ts';
import { detectGateway, SerialLink, TcpLink, type LinkFactory } from './transport/index.ts';

export interface HostHandle {
  app: FastifyInstance;
  /** Base URL including the prefix, e.g. http://127.0.0.1:5077/lightnet */
  url: string;
  port: number;
  services: AppServices;
  sse: SseHub;
  sim: SimOnMemory | null;
  close(): Promise<void>;
}

export interface HostOverrides {
  runner?: CommandRunner;
  /** Clock for the simulated fleet and everything that shares its time (tests). */
  simClock?: Clock;
  /** Driver option overrides (tests). */
  driverOptions?: Parameters<typeof createGatewayDriver>[0]['options'];
  /** OTA workflow timings (tests shrink them). */
  otaTimings?: Partial<OtaTimings>;
  /** Built web UI folder (default: the project's dist/ui). */
  uiDir?: string;
}

interface GatewayChoice {
  linkFactory: LinkFactory;
  transport: 'serial' | 'tcp' | 'sim';
  port: string;
  sim: SimOnMemory | null;
  clock: Clock;
}

async function chooseGateway(cfg: Config, log: Logger, clockOverride?: Clock): Promise<GatewayChoice> {
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
  const tlog = (msg: string, fields?: object): void => log.debug({ ...fields }, msg);
  const serial = (path: string): GatewayChoice => ({
    linkFactory: () => new SerialLink(path, { log: tlog }),
    transport: 'serial',
    port: path,
    sim: null,
    clock: real,
  });
  switch (cfg.gateway.kind) {
    case 'sim':
      log.warn(
        { nodes: cfg.simNodes, seed: cfg.simSeed, timeScale: cfg.simTimeScale },
        'using the SIMULATED gateway and fleet',
      );
      return sim(simClock());
    case 'serial':
      return serial(cfg.gateway.path);
    case 'tcp': {
      const { host, port } = cfg.gateway;
      return {
        linkFactory: () => new TcpLink(host, port, { clock: real }),
        transport: 'tcp',
        port: `${host}:${port}`,
        sim: null,
        clock: real,
      };
    }
    case 'auto': {
      const res = await detectGateway({ clock: real, log: tlog });
      if (res.found) {
        const path = res.found.path;
        log.info({ port: path, gateway_mac: res.found.mac, tried: res.tried }, 'gateway found');
        return serial(path);
      }
      log.warn(
        { tried: res.tried, nodes: cfg.simNodes, seed: cfg.simSeed },
        'no gateway answered the identify ping: using the SIMULATED gateway and fleet',
      );
      return sim(simClock());
    }
  }
}

export async function startHost(
  cfg: Config,
  log: Logger,
  overrides: HostOverrides = {},
): Promise<HostHandle> {
  const gw = await chooseGateway(cfg, log, overrides.simClock);
  const clock = gw.clock;
  const bus = new EventBus();
  const store = new Store({ persistence: new FileStatePersistence(cfg.dataDir), bus, clock, log });
  const tasks = new TaskManager(bus, clock, log);
  const driver: GatewayDriver = createGatewayDriver({
    linkFactory: gw.linkFactory,
    clock,
    transport: gw.transport,
    port: gw.port,
    log: log.child({ mod: 'gateway' }),
    // The in-process simulated gateway never resets when its port opens: no boot settle.
    options:
      gw.transport === 'sim' ? { identifySettleMs: 0, ...overrides.driverOptions } : overrides.driverOptions,
  });
  const master = new MasterView(driver, bus, clock);
  const registry = new DeviceRegistry(store, driver, clock, log);
  const groups = new GroupService(store);
  const nativePresets = new NativePresetService({ store, clock, log });
  const scenes = new SceneService({ store, clock, log, presets: nativePresets });
  const ledPresets = new LedPresetsService(cfg.dataDir, store, bus, clock, log.child({ mod: 'led-presets' }));
  groups.onRenumber((deletedId) => scenes.renumberGroups(deletedId));
  const overhead = new WireOverheadCalibration(() => driver.radioSettings().rf);
  const sceneRunner = new SceneRunner({
    driver,
    clock,
    bus,
    log: log.child({ mod: 'scenes' }),
    onSent: (frames) => mirrorSentFrames(store, frames),
    onFrameTimed: (f, ms) => overhead.sample(f.body.length, ms),
  });
  const sceneDispatch = new SceneDispatchService({
    scenes,
    presets: nativePresets,
    registry,
    driver,
    runner: sceneRunner,
    overhead: () => overhead.current(),
  });
  let phase: 'booting' | 'ready' = 'booting';
  const runner = overrides.runner ?? processRunner();
  const firmware = new FirmwareStore(cfg.dataDir, clock, log.child({ mod: 'uploads' }));
  const lease = new LeaseFile(cfg.dataDir);
  const otaLog = log.child({ mod: 'ota' });
  // WiFi and HTTP waits run on wall time: nmcli and sockets do not follow a simulated clock.
  const io = new ScaledClock(1);
  const wifiBackend: WifiBackend =
    cfg.wifi === 'nmcli' ? new NmcliBackend(runner, lease, io, otaLog) : new NoWifiBackend();
  const svc: AppServices = {
    clock,
    log,
    bus,
    store,
    tasks,
    driver,
    master,
    registry,
    groups,
    discovery: new DiscoveryService({ driver, registry, groups, tasks }),
    status: new StatusService({ driver, registry, groups, tasks }),
    deviceMeta: new DeviceMetaService({ store, driver, registry, groups, tasks }),
    control: new ControlService({ store, driver, registry, groups, master, log }),
    blackout: new BlackoutService({
      driver,
      store,
      log: log.child({ mod: 'race' }),
      cancelScene: () => sceneDispatch.cancel(),
      cancelTask: () => tasks.cancel()?.name ?? null,
      note: (ev) => master.note(ev),
    }),
    wifi: new HostWifiService(cfg.wifi, runner, log),
    firmware,
    ledPresets,
    ota: new OtaService(
      {
        driver,
        registry,
        firmware,
        ledPresets,
        wifi: wifiBackend,
        lease,
        clock,
        io,
        log: otaLog,
        timings: { ...DEFAULT_OTA_TIMINGS, ...overrides.otaTimings },
      },
      tasks,
    ),
    nativePresets,
    scenes,
    sceneEditorSchema: () =>
      sceneEditorSchema({
        presets: nativePresets,
        lora: () => ({ ...sceneDispatch.lora() }),
        ledPresetOptions: () => ledPresets.options(),
      }),
    sceneDispatch,
    ...createSpecials({ store, driver, registry, tasks, clock, log, master, ledPresets, nativePresets }),
    phase: () => phase,
  };
  const unsubs = wireEvents(svc);

  // HTTP first, so `phase: booting` is observable while state and link come up.
  const { app, sse } = await buildApp(svc, {
    prefix: cfg.prefix,
    security: { password: cfg.password },
    uiDir: overrides.uiDir,
  });
  await app.listen({ port: cfg.port, host: cfg.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : cfg.port;
  const hostForUrl = cfg.host.includes(':') ? `[${cfg.host}]` : cfg.host;
  const url = `http://${hostForUrl === '0.0.0.0' ? '127.0.0.1' : hostForUrl}:${port}${cfg.prefix}`;
  if (!['127.0.0.1', 'localhost', '::1'].includes(cfg.host) && !cfg.password) {
    log.warn(
      { host: cfg.host },
      'listening on a non-loopback address without --password: anyone on the network can control the fleet',
    );
  }

  await store.load();
  await svc.firmware.init();
  await svc.ledPresets.init();
  await svc.ota.recover();
  unsubs.push(registry.attach());
  gw.sim?.fleet.start();
  await gw.sim?.fleet.gateway.whenBooted();
  await driver.start();
  phase = 'ready';
  log.info(
    { url, transport: gw.transport, port: gw.port, ready: driver.readiness().ready },
    'lightnet ready',
  );

  let closed = false;
  return {
    app,
    url,
    port,
    services: svc,
    sse,
    sim: gw.sim,
    close: async () => {
      if (closed) return;
      closed = true;
      await shutdown(svc, app, sse, gw.sim);
      for (const u of unsubs) u();
    },
  };
}

/** Task boundaries → master events and the post-task refresh; readiness → SSE `gateway`. */
function wireEvents(svc: AppServices): (() => void)[] {
  const lastState = new Map<number, TaskSnapshot['state']>();
  let prevState = '';
  return [
    svc.bus.on('task', (t) => {
      if (lastState.get(t.id) === t.state) return;
      lastState.set(t.id, t.state);
      const name = `TASK_${t.name.toUpperCase()}`;
      if (t.state === 'running') svc.master.note(`${name}_START`);
      else if (t.state === 'done') {
        svc.master.note(`${name}_DONE`);
        svc.bus.emit('scopes', ['DEVICE_MEMBERSHIP']);
      } else svc.master.note(`${name}_ERROR`, t.last_error);
    }),
    svc.driver.on('readiness', () => svc.bus.emit('gateway', svc.master.gateway())),
    svc.driver.on('master', (m) => {
      // Count entries into an RX window, not every snapshot taken while one is open.
      if (m.state === 'RX_WINDOW' && prevState !== 'RX_WINDOW') svc.tasks.bumpCurrent('rx_window_events');
      prevState = m.state;
    }),
  ];
}

async function shutdown(
  svc: AppServices,
  app: FastifyInstance,
  sse: SseHub,
  sim: SimOnMemory | null,
): Promise<void> {
  const { log } = svc;
  sse.close();
  // A scene run holds its request open: stop it, so closing the server need not wait.
  svc.sceneDispatch.cancel();
  const closing = app.close();
  if (svc.tasks.cancel()) {
    log.info({}, 'cancelling the running task for shutdown');
    await Promise.race([svc.tasks.settled(), new Promise((r) => setTimeout(r, 5000))]);
  }
  // An OTA run that could not finish its own restore in time left its lease behind.
  await svc.ota.recover();
  // Radio first, so no reply can change state after the final flush.
  await svc.driver.stop();
  sim?.stop();
  await svc.store.close();
  await closing;
  log.info({}, 'lightnet stopped');
}
