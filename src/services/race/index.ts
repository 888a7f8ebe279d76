/** Race day: the blackout (all off, whatever is running). */
export { BlackoutService, type BlackoutDeps, type BlackoutReport } from './blackout.ts';
