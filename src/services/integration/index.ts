/**
 * Timing-application integration (plugin mode): the latest heat and its start-block slots,
 * scene starts that never hold the caller, and the race start (arm at staging, one SYNC at
 * the announced start; Race Start scenes scheduled for that instant).
 */
import { ScaledClock } from '../../clock.ts';
import type { GatewayDriver } from '../../gateway/types.ts';
import type { Logger } from '../../logger.ts';
import type { NetworkRoute, NetworkRouter } from '../../gateway/network-parts.ts';
import { parallelAirtimeMs } from '../scenes/cost-estimator.ts';
import type { PlannedFrame, SceneDispatchService } from '../scenes/index.ts';
import { IntegrationService, type IntegrationMode } from './service.ts';
import { sceneTargets, type CommandGate } from '../command-path/index.ts';

export { IntegrationService, type IntegrationMode, type PendingStart } from './service.ts';
export { atWallTime, type WallTimer } from './at-time.ts';
export { heatBodySchema, heatSlots, raceChannel, type Heat, type HeatBody, type HeatSeat } from './heat.ts';

export function createIntegration(d: {
  mode: IntegrationMode;
  log: Logger;
  driver: GatewayDriver;
  sceneDispatch: SceneDispatchService;
  /** Several gateways: each network's gateway. */
  router?: NetworkRouter;
  /** Decides each scene the timers start (absent: they run undecided, as in unit tests). */
  commandPath?: CommandGate;
}): IntegrationService {
  const { sceneDispatch, driver } = d;
  // A frame planned for one network goes through that network's gateway; else the driver.
  const driverFor = (f: PlannedFrame): NetworkRoute =>
    f.network !== undefined && d.router ? d.router.route(f.network) : { ok: true, driver };
  return new IntegrationService({
    mode: d.mode,
    log: d.log.child({ mod: 'integration' }),
    // Race times are the timing application's wall clock, never the simulator's.
    wall: new ScaledClock(1),
    // A race's scene holds its targets while it plays (race events: priority 80 by default).
    runScene: (key, body, source) => {
      const path = d.commandPath;
      if (!path) return sceneDispatch.run(key, body);
      const targets = sceneTargets(sceneDispatch.actionsOf(key, body));
      return path.run({ source, targets, action: `scene ${key}`, hold: 'run' }, () =>
        sceneDispatch.run(key, body),
      );
    },
    // Several networks send their SYNCs in parallel: the lead is one SYNC's airtime.
    syncAirtimeMs: () => parallelAirtimeMs(sceneDispatch.estimate([{ kind: 'sync' }])),
    planSync: (scene) => sceneDispatch.planSyncAfter(scene),
    sendFrames: async (frames) => {
      // Every network's SYNC is handed over in the same turn: the gateways transmit together.
      const outcomes = await Promise.all(
        frames.map(async (f) => {
          const d = driverFor(f);
          if (!d.ok) return { ok: false as const, reason: 'link_down' as const, detail: d.error };
          return d.driver.send(f.receiver, f.request, { priority: 'urgent' });
        }),
      );
      return outcomes.find((o) => !o.ok) ?? { ok: true };
    },
    holdBulk: (frames) => {
      const releases = frames.map((f) => {
        const d = driverFor(f);
        return d.ok ? d.driver.hold?.('bulk') : undefined;
      });
      return () => releases.forEach((r) => r?.());
    },
  });
}
