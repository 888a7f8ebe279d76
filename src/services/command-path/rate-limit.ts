/**
 * Per-source token buckets: a source may send `burst` commands at once and `perSecond` on
 * average. Only the sources below the race's rank draw from a bucket (see path.ts): Blackout,
 * safety and race commands never wait for, nor are refused by, a flood from another source.
 */
export interface RateLimit {
  perSecond: number;
  burst: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  /** Takes one token from `source`'s bucket; false (nothing taken) when it is empty. */
  take(source: string, limit: RateLimit, now: number): boolean {
    const b = this.buckets.get(source) ?? { tokens: limit.burst, at: now };
    const refill = Math.max(0, now - b.at) * (limit.perSecond / 1000);
    b.tokens = Math.min(limit.burst, b.tokens + refill);
    b.at = now;
    this.buckets.set(source, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  /** A changed limit starts every bucket full again. */
  reset(): void {
    this.buckets.clear();
  }
}
