/** The page's clock: a "now" that ticks every second, and "… ago" against it. */
import { useEffect, useState } from 'preact/hooks';
import { relativeTime } from '../format.ts';

export function useNow(): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return now;
}

export const ago = (ms: number | null | undefined, now: number): string =>
  ms ? relativeTime(ms / 1000, now / 1000) : 'never';
