/** Signal and battery history per device, its online timeline and link summaries. */
import { HistoryService, type HistoryOptions, type HistoryRegistry } from './service.ts';
import type { Clock } from '../../clock.ts';
import type { GatewayDriver } from '../../gateway/types.ts';
import type { Logger } from '../../logger.ts';
export { BYTES_PER_SAMPLE, MISSING, SampleRing, type SampleInput, type SeriesJson } from './ring.ts';
export {
  DEFAULT_HISTORY,
  HistoryService,
  type DeviceHistoryJson,
  type HistoryOptions,
  type HistoryRegistry,
  type LinkSummary,
  type Transition,
} from './service.ts';

export function createHistory(d: {
  driver: Pick<GatewayDriver, 'on'>;
  registry: HistoryRegistry;
  clock: Clock;
  log: Logger;
  options?: Partial<HistoryOptions>;
}): HistoryService {
  return new HistoryService({ ...d, log: d.log.child({ mod: 'history' }) });
}
