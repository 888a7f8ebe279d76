/** Link test: N status exchanges per device → loss, round trip, signal ranges. */
import { LinkTestService } from './service.ts';
export { LinkStats, type LinkTestDeviceResult, type Probe, type Range } from './stats.ts';
export {
  LINK_TEST_DEFAULT_COUNT,
  LINK_TEST_MAX_COUNT,
  LinkTestService,
  type LinkTestRequest,
  type LinkTestResult,
} from './service.ts';

export function createLinkTest(d: ConstructorParameters<typeof LinkTestService>[0]): LinkTestService {
  return new LinkTestService({ ...d, log: d.log.child({ mod: 'radio' }) });
}
