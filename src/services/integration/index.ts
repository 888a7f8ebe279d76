/** Timing-application integration: the public face of this capability. */
export { IntegrationService, type IntegrationMode, type PendingStart, type WallTimer } from './service.ts';
export { heatBodySchema, heatSlots, raceChannel, type Heat, type HeatBody, type HeatSeat } from './heat.ts';
