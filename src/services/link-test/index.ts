/** Link test: N status exchanges per device → loss, round trip, signal ranges. */
export { LinkStats, type LinkTestDeviceResult, type Probe, type Range } from './stats.ts';
export {
  LINK_TEST_DEFAULT_COUNT,
  LINK_TEST_MAX_COUNT,
  LinkTestService,
  type LinkTestRequest,
  type LinkTestResult,
} from './service.ts';
