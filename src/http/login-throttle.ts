/**
 * Password guessing, throttled per client address: a few free failures (typos), then
 * every further failure locks the client out for a doubling time (1 s, 2 s, 4 s, … up to
 * 5 min). While locked, login and Bearer attempts answer 429 with Retry-After, so a
 * guesser gets a handful of tries per hour instead of thousands per second. A success
 * clears the record; a quiet client is forgotten. The table is bounded so a flood of
 * source addresses cannot grow it without limit (the oldest records go first).
 */
export interface ThrottleOptions {
  /** Wall-clock milliseconds (injectable for tests). */
  now: () => number;
  freeFailures: number;
  baseLockMs: number;
  maxLockMs: number;
  /** A client with no failure for this long starts over. */
  forgetMs: number;
  maxClients: number;
}

export const DEFAULT_THROTTLE: Omit<ThrottleOptions, 'now'> = {
  freeFailures: 5,
  baseLockMs: 1000,
  maxLockMs: 5 * 60_000,
  forgetMs: 15 * 60_000,
  maxClients: 10_000,
};

interface Record {
  failures: number;
  lastFailure: number;
  lockedUntil: number;
}

export class LoginThrottle {
  private readonly clients = new Map<string, Record>();
  private readonly o: ThrottleOptions;

  constructor(opts: Partial<ThrottleOptions> = {}) {
    this.o = { now: Date.now, ...DEFAULT_THROTTLE, ...opts };
  }

  /** Milliseconds until this client may try again; 0 when it may try now. */
  retryAfterMs(client: string): number {
    const r = this.live(client);
    return r ? Math.max(0, r.lockedUntil - this.o.now()) : 0;
  }

  /** Records a wrong password; returns the lock it earned (0 while failures are still free). */
  fail(client: string): number {
    const now = this.o.now();
    let r = this.live(client);
    if (!r) {
      r = { failures: 0, lastFailure: now, lockedUntil: 0 };
      if (this.clients.size >= this.o.maxClients) {
        const oldest = this.clients.keys().next().value;
        if (oldest !== undefined) this.clients.delete(oldest);
      }
    }
    // Re-inserted so the Map's order stays oldest-first for eviction.
    this.clients.delete(client);
    this.clients.set(client, r);
    r.failures++;
    r.lastFailure = now;
    const over = r.failures - this.o.freeFailures;
    if (over < 0) return 0;
    const lock = Math.min(this.o.maxLockMs, this.o.baseLockMs * 2 ** Math.min(over, 30));
    r.lockedUntil = now + lock;
    return lock;
  }

  succeed(client: string): void {
    this.clients.delete(client);
  }

  private live(client: string): Record | undefined {
    const r = this.clients.get(client);
    if (!r) return undefined;
    const now = this.o.now();
    if (now >= r.lockedUntil && now - r.lastFailure >= this.o.forgetMs) {
      this.clients.delete(client);
      return undefined;
    }
    return r;
  }
}
