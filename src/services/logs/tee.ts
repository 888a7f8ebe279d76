/**
 * A Logger that writes to the process logger (pino: console or journal) and also
 * records each entry, classified, into the activity-log ring. The ring has its own
 * level: debug-level device events reach the Log page while the console stays at info.
 */
import type { Logger } from '../../logger.ts';
import { LEVEL_RANK, type LogBuffer, type LogCategory, type LogLevel } from './buffer.ts';

type Fields = Record<string, unknown>;

const MOD_CATEGORY: Record<string, LogCategory> = {
  gateway: 'radio',
  radio: 'radio',
  discovery: 'radio',
  status: 'radio',
  history: 'radio',
  scenes: 'task',
  task: 'task',
  ota: 'ota',
  uploads: 'ota',
  'led-presets': 'ota',
  http: 'http',
  security: 'security',
};
const CATEGORIES = new Set<string>(['radio', 'task', 'ota', 'http', 'security', 'host']);
const MAX_FIELD_CHARS = 200;
const MAX_FIELDS = 12;

/** Which part of the host an entry is about: an explicit `cat`, the module, or telling fields. */
export function categorize(f: Fields): LogCategory {
  if (typeof f.cat === 'string' && CATEGORIES.has(f.cat)) return f.cat as LogCategory;
  if (typeof f.mod === 'string' && MOD_CATEGORY[f.mod]) return MOD_CATEGORY[f.mod] as LogCategory;
  if ('task' in f) return 'task';
  if ('method' in f && 'url' in f) return 'http';
  return 'host';
}

/** The device an entry is about (`device`, `addr` or `mac` of 6 hex), upper case. */
export function deviceOf(f: Fields): string | null {
  for (const k of ['device', 'addr', 'mac']) {
    const v = f[k];
    if (typeof v === 'string' && /^[0-9a-fA-F]{6}$/.test(v)) return v.toUpperCase();
  }
  return null;
}

function flatten(f: Fields): Record<string, string | number | boolean | null> {
  const out: Record<string, string | number | boolean | null> = {};
  let n = 0;
  for (const [k, v] of Object.entries(f)) {
    if (k === 'cat' || k === 'app' || n >= MAX_FIELDS) continue;
    n++;
    if (v === null || typeof v === 'number' || typeof v === 'boolean') out[k] = v;
    else if (typeof v === 'string')
      out[k] = v.length > MAX_FIELD_CHARS ? `${v.slice(0, MAX_FIELD_CHARS)}…` : v;
    else if (v === undefined) continue;
    else {
      let s: string;
      try {
        s = v instanceof Error ? v.message : (JSON.stringify(v) ?? String(v));
      } catch {
        s = String(v);
      }
      out[k] = s.length > MAX_FIELD_CHARS ? `${s.slice(0, MAX_FIELD_CHARS)}…` : s;
    }
  }
  return out;
}

export function teeLogger(base: Logger, ring: LogBuffer, minLevel: LogLevel, bindings: Fields = {}): Logger {
  const min = LEVEL_RANK[minLevel];
  const record = (level: LogLevel, obj: object, msg?: string): void => {
    if (LEVEL_RANK[level] < min) return;
    const f: Fields = { ...bindings, ...(obj as Fields) };
    ring.push({
      level,
      category: categorize(f),
      device: deviceOf(f),
      msg: msg ?? (typeof f.msg === 'string' ? f.msg : ''),
      fields: flatten(f),
    });
  };
  return {
    debug: (obj, msg) => {
      base.debug(obj, msg);
      record('debug', obj, msg);
    },
    info: (obj, msg) => {
      base.info(obj, msg);
      record('info', obj, msg);
    },
    warn: (obj, msg) => {
      base.warn(obj, msg);
      record('warn', obj, msg);
    },
    error: (obj, msg) => {
      base.error(obj, msg);
      record('error', obj, msg);
    },
    child: (b) => teeLogger(base.child(b), ring, minLevel, { ...bindings, ...b }),
  };
}
