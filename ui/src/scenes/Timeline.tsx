/** A picture of the scene on a time axis: bars per action, SYNC lines, offset lanes. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { formatDuration } from '../format.ts';
import type { TimelineBar } from './scene-model.ts';

const ROW = 18;

export function Timeline({
  bars,
  total,
  measured,
}: {
  bars: TimelineBar[];
  total: number;
  measured: boolean;
}) {
  // The drawing is as wide as its box in CSS pixels, so labels keep their size on a tablet.
  const box = useRef<HTMLElement>(null);
  const [W, setW] = useState(1200);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setW(Math.max(320, Math.round(el.clientWidth - 8))));
    ro.observe(el);
    return () => ro.disconnect();
  }, [bars.length > 0]);
  if (!bars.length) return null;
  const span = Math.max(total, 1);
  const x = (ms: number) => 4 + (ms / span) * (W - 8);
  const rows: { bar: TimelineBar; y: number }[] = [];
  let y = 4;
  for (const bar of bars) {
    rows.push({ bar, y });
    y += ROW * (1 + Math.max(0, (bar.lanes?.length ?? 0) - 0));
  }
  const h = y + 18;
  return (
    <figure class="timeline" data-testid="timeline" ref={box}>
      <svg
        viewBox={`0 0 ${W} ${h}`}
        width={W}
        height={h}
        role="img"
        aria-label={`Scene timeline, ${formatDuration(total)}`}
      >
        {rows.map(({ bar, y: top }) => (
          <g key={bar.index}>
            {bar.sync ? (
              <line x1={x(bar.start)} x2={x(bar.start)} y1={0} y2={h - 16} class="tl-sync" />
            ) : (
              <rect
                x={x(bar.start)}
                y={top}
                width={Math.max(2, x(bar.end) - x(bar.start))}
                height={ROW - 4}
                rx={3}
                class={`tl-bar tl-${bar.kind}${bar.armed ? ' tl-armed' : ''}`}
              >
                <title>
                  {bar.index + 1}. {bar.label}: {formatDuration(bar.start)} → {formatDuration(bar.end)}
                  {bar.armed ? ' (armed: fires at the next SYNC)' : ''}
                </title>
              </rect>
            )}
            <text x={Math.min(x(bar.start) + 4, W - 120)} y={top + ROW - 7} class="tl-label">
              {bar.index + 1}. {bar.label}
            </text>
            {bar.lanes?.map((l, i) => (
              <g key={l.gid}>
                <line
                  x1={x(bar.end)}
                  x2={x(l.at)}
                  y1={top + ROW * (i + 1) + 7}
                  y2={top + ROW * (i + 1) + 7}
                  class="tl-lane"
                />
                <circle cx={x(l.at)} cy={top + ROW * (i + 1) + 7} r={4} class="tl-fire">
                  <title>
                    group {l.gid} fires at {formatDuration(l.at)}
                  </title>
                </circle>
                <text
                  x={Math.min(x(l.at) + 7, W - 60)}
                  y={top + ROW * (i + 1) + 11}
                  class="tl-label muted-fill"
                >
                  gid {l.gid}
                </text>
              </g>
            ))}
          </g>
        ))}
        <text x={4} y={h - 3} class="tl-label muted-fill">
          0
        </text>
        <text x={W - 4} y={h - 3} text-anchor="end" class="tl-label muted-fill">
          {formatDuration(total)} {measured ? '(measured)' : '(estimated)'}
        </text>
      </svg>
    </figure>
  );
}
