/**
 * Seeded pseudo-random numbers (mulberry32). Everything random in the simulator and in
 * tests draws from one of these, so a seed reproduces a run exactly. `fork(label)` derives
 * an independent stream, so adding draws in one component (a node) does not shift the
 * numbers every other component sees.
 */
export class Prng {
  private state: number;
  /** Where this stream started (restart derives from it). */
  private readonly origin: number;
  /** Streams forked from this one (restart resets them too). */
  private readonly forks: Prng[] = [];

  constructor(seed: number | string) {
    this.state = typeof seed === 'string' ? hashString(seed) : seed >>> 0;
    this.origin = this.state;
  }

  /** Uniform float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform integer in [min, maxInclusive]. */
  int(min: number, maxInclusive: number): number {
    if (!Number.isInteger(min) || !Number.isInteger(maxInclusive) || maxInclusive < min) {
      throw new RangeError(`Prng.int: invalid range ${min}..${maxInclusive}`);
    }
    return min + Math.floor(this.next() * (maxInclusive - min + 1));
  }

  /** Uniform float in [min, max). */
  range(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(arr: readonly T[]): T {
    if (arr.length === 0) throw new RangeError('Prng.pick: empty array');
    return arr[Math.floor(this.next() * arr.length)] as T;
  }

  /**
   * An independent stream derived from this one's current state and a label. Forking does
   * not advance this stream, so the order in which forks are taken does not matter.
   */
  fork(label: string): Prng {
    const child = new Prng((hashString(label) ^ Math.imul(this.state, 0x9e3779b1)) >>> 0);
    this.forks.push(child);
    return child;
  }

  /**
   * Common random numbers (benchmarks): puts this stream and every stream forked from it at
   * a state derived from where each started and `label` only — not from how many numbers
   * were drawn so far. Two runs of the same seed that drew differently up to here (one took
   * longer) draw the same numbers from here on, per stream; draws before are unaffected.
   */
  restart(label: string): void {
    this.state = (hashString(label) ^ Math.imul(this.origin, 0x85ebca6b)) >>> 0;
    for (const f of this.forks) f.restart(label);
  }
}

/** FNV-1a, 32 bit: stable across runs and platforms. */
function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
