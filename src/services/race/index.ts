/** Race day: the blackout (all off, whatever is running). */
export { BlackoutService, type BlackoutDeps, type BlackoutReport } from './blackout.ts';
export {
  SafetyRepeats,
  reachesKnownDevice,
  SAFETY_REPEATS,
  type SafetyCheck,
  type SafetyRepeatOptions,
  type SafetySender,
} from './safety-repeats.ts';
