/** Shared bits of bench/rotorhazard-*.ts: a numeric flag, a percentile and a wait on the host. */

/** The number after `flag` on the command line, or `dflt` when the flag is absent. */
export function numFlag(flag: string, dflt: number): number {
  const i = process.argv.indexOf(flag);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
}

/** Nearest-rank percentile (p in 0..100); NaN for no samples. */
export function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? NaN;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` every 50 ms until it gives a value; throws after `timeoutMs`. */
export async function waitFor<T>(
  fn: () => Promise<T | null | undefined | false>,
  timeoutMs = 60_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('timeout');
    await sleep(50);
  }
}
