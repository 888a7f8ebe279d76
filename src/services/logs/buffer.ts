/**
 * The activity log: a bounded ring of structured log entries (level, category,
 * device, message, a few fields) the host keeps in memory for the Log page, the
 * `GET /api/log` route and the opt-in live feed. Oldest entries fall off first.
 */
import type { Clock } from '../../clock.ts';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_CATEGORIES = ['radio', 'task', 'ota', 'http', 'security', 'host'] as const;
export type LogCategory = (typeof LOG_CATEGORIES)[number];

export const LEVEL_RANK: Record<LogLevel, number> = { debug: 20, info: 30, warn: 40, error: 50 };

export interface LogEntry {
  /** Monotonic per process; `since` cursors refer to it. */
  seq: number;
  /** Unix seconds (wall clock). */
  ts: number;
  level: LogLevel;
  category: LogCategory;
  /** 6-hex device address when the entry is about one device. */
  device: string | null;
  msg: string;
  /** The entry's other fields, flattened to short values. */
  fields: Record<string, string | number | boolean | null>;
}

export interface LogQuery {
  /** Minimum level. */
  level?: LogLevel;
  device?: string;
  category?: LogCategory;
  /** Case-insensitive text search over message, device and field values. */
  q?: string;
  /** Only entries with seq > since. */
  since?: number;
  /** Newest entries kept when more match (default 500). */
  limit?: number;
}

export const DEFAULT_LOG_CAPACITY = 5000;

export class LogBuffer {
  private readonly ring: (LogEntry | undefined)[];
  private head = 0;
  private size = 0;
  private nextSeq = 1;
  private readonly listeners = new Set<(e: LogEntry) => void>();

  constructor(
    private readonly clock: Clock,
    readonly capacity = DEFAULT_LOG_CAPACITY,
  ) {
    this.ring = new Array<LogEntry | undefined>(capacity);
  }

  get length(): number {
    return this.size;
  }

  /** The seq the next entry will get (a client's cursor after an empty answer). */
  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  push(e: Omit<LogEntry, 'seq' | 'ts'>): LogEntry {
    const entry: LogEntry = { seq: this.nextSeq++, ts: this.clock.now() / 1000, ...e };
    this.ring[(this.head + this.size) % this.capacity] = entry;
    if (this.size < this.capacity) this.size++;
    else this.head = (this.head + 1) % this.capacity;
    for (const fn of this.listeners) {
      try {
        fn(entry);
      } catch {
        // A broken listener must never break the code that logged.
      }
    }
    return entry;
  }

  onEntry(fn: (e: LogEntry) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  query(q: LogQuery = {}): LogEntry[] {
    const min = q.level ? LEVEL_RANK[q.level] : 0;
    const text = q.q?.trim().toLowerCase() ?? '';
    const device = q.device?.toUpperCase();
    const limit = q.limit ?? 500;
    const out: LogEntry[] = [];
    // Newest first, so a small limit stops early; reversed at the end.
    for (let i = this.size - 1; i >= 0 && out.length < limit; i--) {
      const e = this.ring[(this.head + i) % this.capacity];
      if (!e) continue;
      if (q.since !== undefined && e.seq <= q.since) break;
      if (LEVEL_RANK[e.level] < min) continue;
      if (q.category && e.category !== q.category) continue;
      if (device && e.device !== device) continue;
      if (text && !matches(e, text)) continue;
      out.push(e);
    }
    return out.reverse();
  }
}

function matches(e: LogEntry, text: string): boolean {
  if (e.msg.toLowerCase().includes(text)) return true;
  if (e.device?.toLowerCase().includes(text)) return true;
  for (const v of Object.values(e.fields)) {
    if (v !== null && String(v).toLowerCase().includes(text)) return true;
  }
  return false;
}
