/**
 * Composition root: builds the clock, store, gateway link (real or simulated),
 * driver, services and HTTP app, starts them in order and shuts them down cleanly.
 * main.ts calls this for the CLI; the integration harness calls it in-process.
 */
import { UNCONFIGURED_GROUP_NAME } from '../domain/model.ts';
import { resolve } from 'node:path';
import { ScaledClock } from '../clock.ts';
import type { HostHandle, HostOverrides } from './types.ts';
import type { Config } from '../config/index.ts';
import { EventBus } from '../events.ts';
import { createGatewayDriver } from '../gateway/driver.ts';
import type { GatewayDriver } from '../gateway/types.ts';
import { buildApp } from '../http/app.ts';
import type { Logger } from '../logger.ts';
import { openDataFolder, type DataFolder } from './data-folder.ts';
import { shutdown, wireEvents } from './lifecycle.ts';
import { createDevices } from '../services/devices/index.ts';
import { createHistory } from '../services/history/index.ts';
import { createLinkTest } from '../services/link-test/index.ts';
import { LogBuffer, teeLogger } from '../services/logs/index.ts';
import type { AppServices } from '../services/index.ts';
import { createBackup } from '../services/backup/index.ts';
import { createRaceLinkImport } from '../services/import/index.ts';
import { createIntegration, type IntegrationService } from '../services/integration/index.ts';
import { LookMemory, createRaceLights, raceLightGatesOf } from '../services/integration/laps/index.ts';
import { createTimers } from '../services/integration/timers/index.ts';
import { createLedPresets } from '../services/led-presets/index.ts';
import type { StartblockSlot } from '../domain/scenes/types.ts';
import { createOta } from '../services/ota/index.ts';
import { createScenes, mirrorSentFrames } from '../services/scenes/index.ts';
import { BlackoutService, SafetyRepeats, reachesKnownDevice } from '../services/race/index.ts';
import { FLAG_SOURCE, FlagService, FlagsStore, fieldSender } from '../services/flags/index.ts';
import { createCommandPath } from '../services/command-path/index.ts';
import { createConsoleSettings } from '../services/console/index.ts';
import { createSpecials } from '../services/specials/index.ts';
import { createWifi, processRunner } from '../services/wifi/index.ts';
import type { GatewayChoice } from './gateways/choice.ts';
import { chooseGateways, closeProbeLinks } from './gateways/choose.ts';
import { createNetworks } from '../services/networks/index.ts';
import { buildRadio, rfTaskGateway, wireNetworksEvents } from './networks.ts';
import { createGatewayScanner } from './gateways/rescan.ts';
import { hostHotplug } from './gateways/hotplug.ts';
import { createRfMoves } from '../services/rf-moves/index.ts';
import type { DeviceRegistry } from '../services/devices/index.ts';
import { FileStatePersistence } from '../state/persistence.ts';
import { BROADCAST } from '../protocol/types.ts';
import { startOsc, type OscHandle } from './osc.ts';
import type { MqttHandle } from './mqtt.ts';
import type { DmxHandle } from './dmx.ts';
import { Store } from '../state/store.ts';
import { TaskManager } from '../tasks/task-manager.ts';

export type { HostHandle, HostOverrides } from './types.ts';

export async function startHost(
  cfg: Config,
  processLog: Logger,
  overrides: HostOverrides = {},
): Promise<HostHandle> {
  // Every module logs through the tee: the console keeps its level, the activity log
  // also keeps debug-level device events (timestamps on wall time, like the console's).
  const logs = new LogBuffer(new ScaledClock(1));
  const log = teeLogger(processLog, logs, 'debug');
  const gws = await chooseGateways(cfg, log, overrides.simClock, overrides.sim, overrides.detect);
  const gw = gws[0]!;
  const ownSim = gw.sim !== null && gw.sim !== overrides.sim;
  let data: DataFolder;
  try {
    data = await openDataFolder(cfg, gw.sim !== null, log);
  } catch (err) {
    if (ownSim) for (const g of gws) g.sim?.stop();
    await closeProbeLinks(gws);
    throw err;
  }
  try {
    return await startOn(cfg, log, logs, gws, ownSim, data, overrides);
  } catch (err) {
    if (ownSim) for (const g of gws) g.sim?.stop();
    await closeProbeLinks(gws);
    await data.lock.release();
    await data.discardIfUnused();
    throw err;
  }
}

async function startOn(
  cfg: Config,
  log: Logger,
  logs: LogBuffer,
  gws: GatewayChoice[],
  ownSim: boolean,
  data: DataFolder,
  overrides: HostOverrides,
): Promise<HostHandle> {
  const { dir: dataDir } = data;
  const gw = gws[0]!;
  const sims = gws.flatMap((g) => (g.sim ? [g.sim] : []));
  const clock = gw.clock;
  const bus = new EventBus();
  const store = new Store({ persistence: new FileStatePersistence(dataDir), bus, clock, log });
  const tasks = new TaskManager(bus, clock, log);
  const drivers = gws.map((g) =>
    createGatewayDriver({
      linkFactory: g.linkFactory,
      clock,
      transport: g.transport,
      port: g.port,
      log: log.child(gws.length > 1 ? { mod: 'gateway', gateway: g.port } : { mod: 'gateway' }),
      // The in-process simulated gateway never resets when its port opens: no boot settle.
      options:
        g.transport === 'sim' ? { identifySettleMs: 0, ...overrides.driverOptions } : overrides.driverOptions,
    }),
  );
  const gatewayList = drivers.map((d, i) => ({ driver: d, label: gws[i]?.port ?? '?' }));
  let registryRef: DeviceRegistry | null = null;
  const { radio, router } = buildRadio(gatewayList, store, () => registryRef);
  const driver: GatewayDriver = radio;
  const devices = createDevices({
    store,
    driver,
    bus,
    tasks,
    clock,
    log,
    recovery: {
      ...(cfg.restoreBudgetS !== undefined ? { budgetMs: cfg.restoreBudgetS * 1000 } : {}),
      ...overrides.recoveryOptions,
    },
  });
  const { registry, master } = devices;
  registryRef = registry;
  const networks = createNetworks({
    store,
    radio,
    clock,
    registry,
    log: log.child({ mod: 'networks' }),
  });
  // Every light command is decided here first (issue 37); live timeouts run on wall time.
  const commandPath = createCommandPath({
    dataDir,
    log,
    groupOf: (addr) => registry.find(addr)?.groupId ?? null,
    groupName: (id) =>
      id === 0 ? UNCONFIGURED_GROUP_NAME : (store.state.groups.find((g) => g.id === id)?.name ?? null),
  });
  const history = createHistory({ driver, registry, clock, log, options: overrides.history });
  const ledPresets = createLedPresets({ dataDir: dataDir, store, bus, clock, log });
  // The integration is built after the scenes it drives; they read its heat lazily.
  let integration: IntegrationService | null = null;
  // What each gate last showed (scene frames), so a lap flash can put it back.
  const looks = new LookMemory();
  const heatSlots = (): StartblockSlot[] => integration?.slots() ?? [];
  const scenes = createScenes({
    store,
    driver,
    bus,
    clock,
    log,
    registry,
    groups: devices.groups,
    ledPresets,
    heatSlots,
    onSent: (frames) => looks.note(frames),
    router,
  });
  integration = createIntegration({
    mode: cfg.integration ?? 'none',
    log,
    driver,
    sceneDispatch: scenes.sceneDispatch,
    router,
    commandPath,
  });
  // Race flags: red stops the race looks (they ask `suppressed`) and the running scene.
  commandPath.registerSource({
    id: FLAG_SOURCE,
    sourceClass: 'safety',
    label: 'Race flag',
    external: false,
    http: false,
  });
  // Blackout and red are repeated unless a later command went out (race/safety-repeats.ts).
  const safetyRepeats = new SafetyRepeats({
    driver,
    clock,
    log: log.child({ mod: 'race' }),
    reaches: (f) => reachesKnownDevice(store.state.devices, f),
    holdBulk: () => driver.hold?.('bulk') ?? (() => undefined),
    options: overrides.safetyRepeats,
  });
  const flags: FlagService = new FlagService({
    file: new FlagsStore(dataDir),
    path: commandPath,
    field: fieldSender(driver, router, safetyRepeats),
    log: log.child({ mod: 'flags' }),
    now: () => Date.now(),
    cancelScene: () => scenes.sceneDispatch.cancel(),
    haltRaceLooks: () => raceLights.service.halt(),
    shown: (request, network) => {
      const frame =
        network === undefined ? { receiver: BROADCAST, request } : { receiver: BROADCAST, request, network };
      looks.note([frame]);
      // The device rows follow the flag's look as they follow a scene's frames.
      mirrorSentFrames(store, [frame]);
    },
    changed: (state) => bus.emit('flag', state),
  });
  const raceLights = createRaceLights({
    dataDir,
    log,
    driver,
    sceneDispatch: scenes.sceneDispatch,
    integration,
    looks,
    commandPath,
    catalog: {
      groupExists: (id) => store.state.groups.some((g) => g.id === id),
      deviceExists: (addr) => store.state.devices.some((x) => x.addr === addr),
      sceneExists: (key) => scenes.scenes.lookup(key) !== undefined,
      sceneArmable: (key) =>
        scenes.scenes.lookup(key)?.actions.every((a) => a.kind === 'native_effect') ?? false,
    },
    router,
    suppressed: () => flags.suppressing(),
  });
  let oscRef: OscHandle | null = null;
  let mqttRef: MqttHandle | null = null;
  let dmxRef: DmxHandle | null = null;
  const timers = createTimers({ dataDir, log, lights: raceLights.service });
  // The Race lights page follows these live; each fires only when its source sends something.
  raceLights.service.onChange(() => bus.emit('race_lights', { what: 'lights' }));
  raceLights.settings.onChange(() => bus.emit('race_lights', { what: 'settings' }));
  integration.rotorhazard.onChange(() => bus.emit('race_lights', { what: 'rotorhazard' }));
  timers.fpvtrackside.onChange(() => bus.emit('race_lights', { what: 'fpvtrackside' }));
  let phase: 'booting' | 'ready' = 'booting';
  // WiFi and HTTP waits run on wall time: nmcli and sockets do not follow a simulated clock.
  const io = new ScaledClock(1);
  const wifi = createWifi({
    mode: cfg.wifi,
    dataDir: dataDir,
    runner: overrides.runner ?? processRunner(),
    io,
    log,
    otaLog: log.child({ mod: 'ota' }),
    missing: cfg.wifiMissing ?? null,
  });
  const ota = createOta({
    dataDir: dataDir,
    driver,
    registry,
    ledPresets,
    wifi,
    tasks,
    clock,
    io,
    log,
    timings: overrides.otaTimings,
  });
  const backup = createBackup({
    dataDir,
    store,
    tasks,
    ledPresets,
    firmware: ota.firmware,
    clock,
    log,
    pollUnheard: (addrs) => {
      if (!driver.readiness().ready) return null;
      try {
        return devices.status.start({ selection: addrs });
      } catch (err) {
        log.info({ err: (err as Error).message }, 'no status poll after the restore');
        return null;
      }
    },
  });
  const svc: AppServices = {
    clock,
    log,
    bus,
    store,
    tasks,
    driver,
    ...devices,
    wifi: wifi.service,
    ...ota,
    ledPresets,
    ...scenes,
    ...createSpecials({
      store,
      driver,
      registry,
      tasks,
      clock,
      log,
      master,
      ledPresets,
      nativePresets: scenes.nativePresets,
      heatSlots,
      ackBudgetMs: overrides.specialsAckBudgetMs,
    }),
    backup,
    racelinkImport: createRaceLinkImport({ store, tasks, ledPresets, backup, clock, log }),
    integration,
    raceLights,
    timers,
    phase: () => phase,
    dataFolder: {
      dir: dataDir,
      simulated: data.simulated,
      realDir: resolve(cfg.dataDir),
      simulatedLeftovers: [],
      real: null,
    },
    logs,
    history,
    linkTest: createLinkTest({ driver, registry, tasks, clock, log, onLost: (a) => history.noteFailure(a) }),
    blackout: new BlackoutService({
      driver,
      router,
      store,
      log: log.child({ mod: 'race' }),
      cancelScene: () => scenes.sceneDispatch.cancel(),
      cancelTask: () => tasks.cancel()?.name ?? null,
      stopFlashes: () => {
        raceLights.service.blackout();
        bus.emit('blackout', { at_epoch_ms: Date.now() });
      },
      note: (ev) => master.note(ev),
      repeats: safetyRepeats,
    }),
    safetyRepeats,
    flags,
    oscStats: () => oscRef?.server.stats() ?? null,
    mqttStats: () => mqttRef?.stats() ?? null,
    dmx: () => dmxRef?.service ?? null,
    consoleSettings: createConsoleSettings({ store, log }),
    commandPath,
    networks,
    gatewayScan: createGatewayScanner({
      radio,
      networks,
      clock,
      log: log.child({ mod: 'networks' }),
      driverOptions: overrides.driverOptions,
      detect: overrides.detect,
    }),
    rfMoves: createRfMoves({
      store,
      tasks,
      clock,
      log: log.child({ mod: 'rf-moves' }),
      registry,
      recovery: devices.recovery,
      driver,
      gatewayOf: rfTaskGateway(radio, store),
    }),
  };
  const unsubs = wireEvents(svc);
  unsubs.push(
    commandPath.subscribe((v) => bus.emit('owners', v)),
    () => commandPath.stop(),
  );
  unsubs.push(
    wireNetworksEvents(svc),
    () => svc.gatewayScan.stop(),
    () => safetyRepeats.close(),
  );
  // A forgotten device: its history goes, the scenes naming it are reported, and a simulated
  // left-over that was forgotten is no longer one.
  devices.deviceForget.onForget((addrs) => {
    history.drop(addrs);
    svc.dataFolder.simulatedLeftovers = svc.dataFolder.simulatedLeftovers.filter((a) => !addrs.has(a));
  });
  devices.deviceForget.setReferences((addrs) => ({
    scenes: scenes.scenes.targeting(addrs),
    race_lights: raceLightGatesOf(raceLights.settings.get(), addrs),
  }));

  // HTTP first, so `phase: booting` is observable while state and link come up.
  const { app, sse, fastReads } = await buildApp(svc, {
    prefix: cfg.prefix,
    security: {
      password: cfg.password,
      allowedHosts: cfg.allowedHosts,
      now: overrides.http?.now,
      throttle: overrides.http?.throttle,
      sessions: overrides.http?.sessions,
    },
    limits: overrides.http?.limits,
    integrationSecret: cfg.integrationSecret ?? null,
    uiDir: overrides.uiDir,
  });
  await app.listen({ port: cfg.port, host: cfg.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : cfg.port;
  await data.lock.setPort(port);
  const hostForUrl = cfg.host.includes(':') ? `[${cfg.host}]` : cfg.host;
  const url = `http://${hostForUrl === '0.0.0.0' ? '127.0.0.1' : hostForUrl}:${port}${cfg.prefix}`;
  if (!['127.0.0.1', 'localhost', '::1'].includes(cfg.host) && !cfg.password) {
    log.warn(
      { host: cfg.host },
      'listening on a non-loopback address without --password: anyone on the network can control the fleet',
    );
  }

  await store.load();
  if (!data.simulated) {
    // Older versions saved the simulated fleet into the real folder: find and say it.
    const { simulatedAmong } = await import('../sim/leftovers.ts');
    const left = simulatedAmong(
      store.state.devices.map((d) => d.addr),
      cfg.simNodes,
      cfg.simSeed,
    );
    svc.dataFolder.simulatedLeftovers = left;
    if (left.length > 0)
      log.warn(
        { dataDir, devices: left },
        `${left.length} device(s) in this data folder are the simulator's (saved by an older version): select and forget them`,
      );
  } else if (resolve(cfg.dataDir) !== dataDir) {
    // What an import or the real gateway's host saved in the real folder: named in the
    // banner, since the simulator's own folder does not show it.
    const { summarizeRealFolder } = await import('../sim/real-folder.ts');
    svc.dataFolder.real = await summarizeRealFolder(resolve(cfg.dataDir));
    const real = svc.dataFolder.real;
    if (real)
      log.warn(
        { realDataDir: real.dir, devices: real.devices, groups: real.groups, scenes: real.scenes },
        `SIMULATOR: the real data folder ${real.dir} holds ${real.devices} device(s), ${real.groups} group(s) and ` +
          `${real.scenes} scene(s), which the simulator does not show: start with the gateway plugged in to use them`,
      );
  }
  await svc.firmware.init();
  await svc.ledPresets.init();
  await raceLights.settings.load();
  await commandPath.load();
  // After the path's settings: a red flag still up takes its hold again.
  await flags.load();
  await timers.load();
  await svc.ota.recover();
  unsubs.push(registry.attach(), history.attach(), networks.attach(), svc.rfMoves.attach());
  // Before the driver starts: its first connection is the recovery's start trigger.
  unsubs.push(devices.recovery.attach());
  // The simulator's own boards come back with what their flash kept (a restart is a power cycle).
  const simMemory = ownSim
    ? await (
        await import('../sim/memory.ts')
      ).openSimMemory(
        dataDir,
        sims.map((s) => s.fleet),
        log.child({ mod: 'sim' }),
      )
    : null;
  if (ownSim) for (const s of sims) s.fleet.start();
  for (const s of sims) await s.fleet.gateway.whenBooted();
  await driver.start();
  // A gateway unplugged or its link lost: re-attached by itself when its port comes back.
  const hotplug = hostHotplug({
    radio,
    networks,
    scanner: svc.gatewayScan,
    armed: () => integration?.armed() ?? false,
    clock,
    log: log.child({ mod: 'networks' }),
    serial: gws.some((g) => g.transport === 'serial'),
    detect: overrides.detect,
  });
  // OSC last: a surface's first command finds the fleet loaded and the driver started.
  const osc =
    cfg.oscPort !== undefined && cfg.oscPort !== null
      ? await startOsc(
          {
            host: cfg.host,
            port: cfg.oscPort,
            ratePerSec: cfg.oscRate ?? 50,
            feedback: cfg.oscFeedback ?? [],
          },
          svc,
          log.child({ mod: 'osc' }),
        )
      : null;
  oscRef = osc;
  // MQTT too: its retained state is the loaded fleet. Loaded only when configured (startup time).
  const mqtt = cfg.mqtt
    ? await (await import('./mqtt.ts')).startMqtt(cfg.mqtt, svc, log.child({ mod: 'mqtt' }))
    : null;
  mqttRef = mqtt;
  // DMX in: loaded only when asked for (a host without --dmx pays nothing for it).
  const dmx =
    cfg.dmx && cfg.dmx.length > 0
      ? await (
          await import('./dmx.ts')
        ).startDmx(
          {
            host: cfg.host,
            universes: cfg.dmx,
            sacnPort: cfg.dmxSacnPort ?? 5568,
            artnetPort: cfg.dmxArtnetPort ?? 6454,
            dataDir,
          },
          svc,
          log.child({ mod: 'dmx' }),
        )
      : null;
  dmxRef = dmx;
  phase = 'ready';
  // The address a person opens (the UI lives under the prefix with its trailing slash).
  const open = url.endsWith('/') ? url : `${url}/`;
  log.info(
    {
      url: open,
      transport: gw.transport,
      port: gw.port,
      ready: driver.readiness().ready,
      // Several gateways: every one, not only the first.
      ...(gws.length > 1 ? { gateways: gws.map((g) => g.port) } : {}),
    },
    `lightnet ready — open ${open}`,
  );

  let closed = false;
  return {
    app,
    url,
    port,
    services: svc,
    sse,
    fastReads,
    sim: gw.sim,
    dataDir,
    sims,
    osc,
    mqtt,
    dmx,
    close: async () => {
      if (closed) return;
      closed = true;
      await osc?.close();
      await mqtt?.close();
      await dmx?.close();
      // Before the drivers stop: their readiness change must not start a port watch.
      hotplug?.stop();
      await shutdown(svc, app, sse, ownSim ? gw.sim : null);
      if (ownSim) for (const s of sims.slice(1)) s.stop();
      await simMemory?.close();
      for (const u of unsubs) u();
      await data.lock.release();
    },
  };
}
