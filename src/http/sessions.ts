/**
 * Login sessions: random tokens with an idle timeout (a laptop left logged in at the
 * end of a race day stops being a key) and an absolute lifetime; logout ends one at once.
 * Bounded: logging in in a loop cannot grow memory, the oldest session goes first.
 */
import { randomBytes } from 'node:crypto';

export interface SessionOptions {
  now: () => number;
  idleMs: number;
  lifetimeMs: number;
  max: number;
}

export const DEFAULT_SESSIONS: Omit<SessionOptions, 'now'> = {
  idleMs: 12 * 3600_000,
  lifetimeMs: 7 * 24 * 3600_000,
  max: 1000,
};

interface Session {
  created: number;
  lastSeen: number;
}

export class SessionStore {
  private readonly sessions = new Map<string, Session>();
  private readonly o: SessionOptions;

  constructor(opts: Partial<SessionOptions> = {}) {
    this.o = { now: Date.now, ...DEFAULT_SESSIONS, ...opts };
  }

  /** Seconds for the cookie's Max-Age: the browser drops it when the server would. */
  get maxAgeS(): number {
    return Math.floor(this.o.lifetimeMs / 1000);
  }

  create(): string {
    const token = randomBytes(24).toString('hex');
    const now = this.o.now();
    if (this.sessions.size >= this.o.max) {
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.sessions.delete(oldest);
    }
    this.sessions.set(token, { created: now, lastSeen: now });
    return token;
  }

  /** True (and the idle timer restarts) when the token names a live session. */
  touch(token: string): boolean {
    const s = this.sessions.get(token);
    if (!s) return false;
    const now = this.o.now();
    if (now - s.lastSeen >= this.o.idleMs || now - s.created >= this.o.lifetimeMs) {
      this.sessions.delete(token);
      return false;
    }
    s.lastSeen = now;
    return true;
  }

  end(token: string): boolean {
    return this.sessions.delete(token);
  }
}
