/**
 * Race lights (RotorHazard laps and race phases on the gates): settings kept by the host,
 * and the service that turns the plugin's events into lap flashes and phase looks.
 */
import { ScaledClock } from '../../../clock.ts';
import type { NetworkRoute, NetworkRouter } from '../../../gateway/network-parts.ts';
import { parallelAirtimeMs } from '../../scenes/index.ts';
import type { GatewayDriver } from '../../../gateway/types.ts';
import type { Logger } from '../../../logger.ts';
import type { SceneDispatchService } from '../../scenes/index.ts';
import type { IntegrationService } from '../service.ts';
import { LookMemory } from './looks.ts';
import { RaceLightsService } from './service.ts';
import { RaceLightsFile, defaultRaceLights, type RaceLightsSettings } from './settings.ts';
import { checkTargets, type TargetCatalog } from './targets.ts';
import { CommandRefusedError } from '../../../errors.ts';
import { fromActionTarget, type CommandGate } from '../../command-path/index.ts';

export { hexToRgb } from './merge.ts';
export { LookMemory } from './looks.ts';
export { RaceLightsService, type LapEvent, type PhaseEvent, type FlashResult } from './service.ts';
export { SEATS, type TargetCatalog } from './targets.ts';
export { testFlashSchema, testTarget, type TestFlash } from './test-flash.ts';
export {
  raceLightsSchema,
  raceLightGatesOf,
  PHASES,
  type RaceLightsSettings,
  type Gate,
  type Phase,
} from './settings.ts';

/** The settings as last saved (defaults until loaded or when the file is absent). */
export class RaceLightsSettingsStore {
  private current: RaceLightsSettings = defaultRaceLights();
  private listener: () => void = () => {};

  constructor(
    private readonly file: RaceLightsFile,
    private readonly log: Logger,
    private readonly catalog: TargetCatalog,
  ) {}

  /** Called after each save (the UI's live stream). */
  onChange(fn: () => void): void {
    this.listener = fn;
  }

  get(): RaceLightsSettings {
    return this.current;
  }

  async load(): Promise<void> {
    const { settings, problem } = await this.file.load();
    if (problem) this.log.warn({ problem }, 'race lights settings unreadable: using the defaults');
    this.current = settings;
  }

  /**
   * Shape validated at the route; every group, device and scene named must exist here
   * (ValidationError otherwise, nothing written). On disk (fsynced) before it takes effect.
   */
  async put(s: RaceLightsSettings): Promise<RaceLightsSettings> {
    checkTargets(s, this.catalog);
    await this.file.save(s);
    this.current = s;
    this.listener();
    this.log.info({ seats: s.seats.length, enabled: s.enabled }, 'race lights settings saved');
    return s;
  }
}

export interface RaceLights {
  service: RaceLightsService;
  settings: RaceLightsSettingsStore;
  /** The groups, devices and scenes a setting or a test may name. */
  catalog: TargetCatalog;
}

const AIRTIME_MEMO_MS = 5000;
/** From the host's write to the radio starting to transmit: USB frame and the gateway's main loop. */
const LINK_TO_AIR_MS = 2;

export function createRaceLights(d: {
  dataDir: string;
  log: Logger;
  driver: GatewayDriver;
  sceneDispatch: SceneDispatchService;
  integration: IntegrationService;
  looks: LookMemory;
  /** The groups, devices and scenes a setting may name. */
  catalog: TargetCatalog;
  /** Several gateways: a flash planned per network goes through that network's gateway. */
  router?: NetworkRouter;
  /** Why race looks may not show now (a red flag is up), or null. */
  suppressed?: () => string | null;
  /** Decides each lap flash (looks are decided by the integration's scene run). */
  commandPath?: CommandGate;
}): RaceLights {
  const log = d.log.child({ mod: 'race-lights' });
  const wall = new ScaledClock(1);
  const settings = new RaceLightsSettingsStore(new RaceLightsFile(d.dataDir), log, d.catalog);
  let airtime = { at: -Infinity, ms: 0 };
  const flashAirtimeMs = (): number => {
    const now = wall.now();
    if (now - airtime.at > AIRTIME_MEMO_MS) {
      const est = d.sceneDispatch.estimate([
        {
          kind: 'native_effect',
          target: { kind: 'broadcast' },
          params: { mode: 0, brightness: 255, color1: [1, 1, 1], color2: [1, 1, 1], color3: [1, 1, 1] },
          flags_override: {},
        },
      ]);
      airtime = { at: now, ms: parallelAirtimeMs(est) };
    }
    return airtime.ms;
  };
  const driverFor = (f: { network?: number }): NetworkRoute =>
    f.network !== undefined && d.router ? d.router.route(f.network) : { ok: true, driver: d.driver };
  const service = new RaceLightsService({
    log,
    wall,
    heat: () => d.integration.heat(),
    planEffect: (target, params) => d.sceneDispatch.planEffect(target, params),
    admit: (target, source) => {
      try {
        d.commandPath?.admit({ source, targets: fromActionTarget(target), action: 'lap flash' });
        return null;
      } catch (err) {
        if (err instanceof CommandRefusedError) return err.message;
        throw err;
      }
    },
    send: (f, deadlineMs) => {
      const r =
        f.network !== undefined && d.router
          ? d.router.route(f.network)
          : { ok: true as const, driver: d.driver };
      if (!r.ok)
        return Promise.resolve({ ok: false as const, reason: 'link_down' as const, detail: r.error });
      return r.driver.send(f.receiver, f.request, { priority: 'interactive', deadlineMs });
    },
    // Only what would go before the flash: a status poll's queued bulk frames it overtakes.
    radioBacklog: () => d.driver.queuedAhead?.('interactive') ?? d.driver.stats().queueDepth,
    flashAirtimeMs,
    runner: {
      run: (key, body, source) => d.integration.runScene(key, body, source),
      running: () => d.sceneDispatch.running(),
      cancels: () => d.sceneDispatch.cancels(),
      cancel: () => void d.sceneDispatch.cancel(),
    },
    looks: d.looks,
    settings: () => settings.get(),
    countdown: {
      planArmed: (look) => d.sceneDispatch.planArmed(look),
      syncFrames: () => d.sceneDispatch.planSyncAfter(null),
      send: async (frames, priority) => {
        // Every network's frames are handed over in the same turn: the gateways send together.
        const outs = await Promise.all(
          frames.map((f) => {
            const r = driverFor(f);
            if (!r.ok) return { ok: false as const, reason: 'link_down' as const, detail: r.error };
            return r.driver.send(f.receiver, f.request, { priority });
          }),
        );
        return outs.find((o) => !o.ok) ?? { ok: true as const };
      },
      holdBulk: (frames) => {
        const releases = frames.map((f) => {
          const r = driverFor(f);
          return r.ok ? r.driver.hold?.('bulk') : undefined;
        });
        return () => releases.forEach((r) => r?.());
      },
      // The SYNC is received once it has been on the air whole; before that the host's
      // write has to cross the link and the radio to start (wire protocol §4.6).
      leadMs: () => parallelAirtimeMs(d.sceneDispatch.estimate([{ kind: 'sync' }])) + LINK_TO_AIR_MS,
      monotonicMs: () => Number(process.hrtime.bigint()) / 1e6,
    },
    ...(d.suppressed ? { suppressed: d.suppressed } : {}),
  });
  return { service, settings, catalog: d.catalog };
}
