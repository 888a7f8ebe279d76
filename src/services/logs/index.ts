/** The activity log: the bounded ring of log entries and the logger that feeds it. */
export {
  DEFAULT_LOG_CAPACITY,
  LEVEL_RANK,
  LOG_CATEGORIES,
  LOG_LEVELS,
  LogBuffer,
  type LogCategory,
  type LogEntry,
  type LogLevel,
  type LogQuery,
} from './buffer.ts';
export { categorize, deviceOf, teeLogger } from './tee.ts';
