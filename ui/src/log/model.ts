/** Activity-log entries as the host serves them, the filter the page applies, and the text download (pure). */

import type { LogCategory, LogEntry, LogLevel } from '../../../src/services/logs/buffer.ts';

export type { LogCategory, LogEntry, LogLevel };
/** The host's levels and categories (the type checks these lists against the host's). */
export const LEVELS = ['debug', 'info', 'warn', 'error'] as const satisfies readonly LogLevel[];
export const CATEGORIES = [
  'radio',
  'task',
  'ota',
  'http',
  'security',
  'host',
] as const satisfies readonly LogCategory[];

export interface LogFilter {
  level: LogLevel;
  category: LogCategory | '';
  device: string;
  q: string;
}

const RANK: Record<LogLevel, number> = { debug: 20, info: 30, warn: 40, error: 50 };

/** The same test the host's `GET /api/log` applies, for entries that arrive live. */
export function matchesFilter(e: LogEntry, f: LogFilter): boolean {
  if (RANK[e.level] < RANK[f.level]) return false;
  if (f.category && e.category !== f.category) return false;
  if (f.device && e.device !== f.device.toUpperCase()) return false;
  const q = f.q.trim().toLowerCase();
  if (!q) return true;
  if (e.msg.toLowerCase().includes(q) || e.device?.toLowerCase().includes(q)) return true;
  return Object.values(e.fields).some((v) => v !== null && String(v).toLowerCase().includes(q));
}

export function queryString(f: LogFilter, since?: number): string {
  const p = new URLSearchParams({ level: f.level, limit: '1000' });
  if (f.category) p.set('category', f.category);
  if (f.device) p.set('device', f.device);
  if (f.q.trim()) p.set('q', f.q.trim());
  if (since !== undefined) p.set('since', String(since));
  return p.toString();
}

/** Fields other than the ones shown in their own columns, as `key=value`. */
export function fieldText(e: LogEntry): string {
  return Object.entries(e.fields)
    .filter(([k]) => !['mod', 'device', 'addr', 'mac'].includes(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' && /\s/.test(v) ? JSON.stringify(v) : String(v)}`)
    .join(' ');
}

export function toText(entries: readonly LogEntry[], names: ReadonlyMap<string, string>): string {
  return (
    entries
      .map((e) => {
        const dev = e.device ? `${e.device}${names.get(e.device) ? ` (${names.get(e.device)})` : ''}` : '-';
        return `${new Date(e.ts * 1000).toISOString()} ${e.level.toUpperCase().padEnd(5)} ${e.category.padEnd(8)} ${dev} ${e.msg} ${fieldText(e)}`.trimEnd();
      })
      .join('\n') + '\n'
  );
}
