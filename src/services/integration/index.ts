/**
 * Timing-application integration (plugin mode): the latest heat and its start-block slots,
 * scene starts that never hold the caller, and the race start (arm at staging, one SYNC at
 * the announced start; Race Start scenes scheduled for that instant).
 */
import { ScaledClock } from '../../clock.ts';
import type { GatewayDriver } from '../../gateway/types.ts';
import type { Logger } from '../../logger.ts';
import type { SceneDispatchService } from '../scenes/index.ts';
import { IntegrationService, type IntegrationMode } from './service.ts';

export { IntegrationService, type IntegrationMode, type PendingStart } from './service.ts';
export { atWallTime, type WallTimer } from './at-time.ts';
export { heatBodySchema, heatSlots, raceChannel, type Heat, type HeatBody, type HeatSeat } from './heat.ts';

export function createIntegration(d: {
  mode: IntegrationMode;
  log: Logger;
  driver: GatewayDriver;
  sceneDispatch: SceneDispatchService;
}): IntegrationService {
  const { sceneDispatch, driver } = d;
  return new IntegrationService({
    mode: d.mode,
    log: d.log.child({ mod: 'integration' }),
    // Race times are the timing application's wall clock, never the simulator's.
    wall: new ScaledClock(1),
    runScene: (key, body) => sceneDispatch.run(key, body),
    syncAirtimeMs: () => sceneDispatch.estimate([{ kind: 'sync' }]).total.airtime_ms,
    planSync: (scene) => sceneDispatch.planSyncAfter(scene),
    sendFrame: (f) => driver.send(f.receiver, f.request, { priority: 'urgent' }),
  });
}
