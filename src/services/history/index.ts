/** Signal and battery history per device, its online timeline and link summaries. */
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
