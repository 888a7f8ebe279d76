/** An adapter's counters as a definition list; the ones that mean trouble are red when not zero. */
export function Counters({ counters, bad }: { counters: Record<string, number>; bad: readonly string[] }) {
  return (
    <dl class="ig-counters">
      {Object.entries(counters).map(([k, n]) => (
        <div key={k} class={bad.includes(k) && n > 0 ? 'ig-bad' : ''} data-counter={k}>
          <dt>{k.replace(/_/g, ' ')}</dt>
          <dd>{n}</dd>
        </div>
      ))}
    </dl>
  );
}

/** "3 s ago", "2 min ago", "1 h ago". */
export function ago(epochMs: number, now: number): string {
  const s = Math.max(0, Math.round((now - epochMs) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  return `${Math.round(s / 3600)} h ago`;
}
