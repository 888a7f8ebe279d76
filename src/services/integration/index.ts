/** Timing-application integration: the public face of this capability. */
export { IntegrationService, type IntegrationMode, type PendingStart } from './service.ts';
export { atWallTime, type WallTimer } from './at-time.ts';
export { heatBodySchema, heatSlots, raceChannel, type Heat, type HeatBody, type HeatSeat } from './heat.ts';
