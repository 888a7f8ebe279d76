/**
 * The logging interface modules depend on (pino satisfies it). Structured: fields
 * first, message second; one line per meaningful event.
 */
import { pino } from 'pino';
import { prettyStream } from './log-pretty.ts';

export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

/** JSON lines, or readable lines when a person watches (stdout is a terminal). */
export function createLogger(level: string, pretty = process.stdout.isTTY === true): Logger {
  const opts = { level, base: { app: 'lightnet' } };
  return pretty ? pino(opts, prettyStream()) : pino(opts);
}

/** For command-line tools whose stdout is their answer (`--json`): log lines go to stderr. */
export function createStderrLogger(level: string): Logger {
  return pino({ level, base: { app: 'lightnet' } }, pino.destination(2));
}

export const silentLogger = (): Logger => pino({ level: 'silent' });
