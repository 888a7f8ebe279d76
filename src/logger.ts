/**
 * The logging interface modules depend on (pino satisfies it). Structured: fields
 * first, message second; one line per meaningful event.
 */
import { pino } from 'pino';

export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

export function createLogger(level: string): Logger {
  return pino({ level, base: { app: 'lightnet' } });
}

export const silentLogger = (): Logger => pino({ level: 'silent' });
