/**
 * When a table row redraws: one of the props it shows changed, or the clock moved into a
 * new 5-second bucket (its "last seen" text). The page's clock ticks every 5 s; without
 * this every row of a table redrew on every tick.
 */
export function rowChanged<T extends { now: number }>(prev: T, next: T, keys: readonly (keyof T)[]): boolean {
  return keys.some((k) => next[k] !== prev[k]) || Math.floor(next.now / 5) !== Math.floor(prev.now / 5);
}
