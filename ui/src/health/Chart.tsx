/**
 * A small canvas line chart (no library): time on x, one or more series on a shared
 * y axis, gaps where a value is missing. Redrawn when the data or the width changes.
 */
import { useEffect, useRef } from 'preact/hooks';

/** Samples further apart than this (seconds) are not joined by a line. */
const GAP_S = 180;

export interface Series {
  label: string;
  color: string;
  values: readonly (number | null)[];
}

interface Props {
  ts: readonly number[];
  series: readonly Series[];
  unit: string;
  height?: number;
  testId?: string;
}

export function Chart({ ts, series, unit, height = 140, testId }: Props) {
  const ref = useRef<HTMLCanvasElement>(null);
  const points = series.reduce((n, s) => n + s.values.filter((v) => v !== null).length, 0);
  useEffect(() => {
    const canvas = ref.current;
    if (!canvas) return;
    const draw = (): void => drawChart(canvas, ts, series, height);
    draw();
    const ro = new ResizeObserver(draw);
    ro.observe(canvas);
    return () => ro.disconnect();
  }, [ts, series, unit, height]);
  return (
    <figure class="chart">
      <canvas
        ref={ref}
        style={{ height: `${height}px` }}
        data-testid={testId}
        data-points={points}
        role="img"
        aria-label={`${series.map((s) => s.label).join(', ')} (${unit}): ${points} points`}
      />
      <figcaption>
        {series.map((s) => (
          <span key={s.label} class="legend">
            <i style={{ background: s.color }} /> {s.label}
          </span>
        ))}
        <span class="muted"> · {unit}</span>
      </figcaption>
    </figure>
  );
}

function drawChart(
  canvas: HTMLCanvasElement,
  ts: readonly number[],
  series: readonly Series[],
  height: number,
): void {
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth || 300;
  canvas.width = Math.round(w * dpr);
  canvas.height = Math.round(height * dpr);
  const g = canvas.getContext('2d');
  if (!g) return;
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, w, height);
  const style = getComputedStyle(canvas);
  const fg = style.color || '#888';
  g.font = '11px system-ui, sans-serif';
  g.fillStyle = fg;
  const vals = series.flatMap((s) => s.values.filter((v): v is number => v !== null));
  if (ts.length === 0 || vals.length === 0) {
    g.fillText('No samples yet: poll the device (status) to record some.', 8, height / 2);
    return;
  }
  let lo = Math.min(...vals);
  let hi = Math.max(...vals);
  if (hi - lo < 1) [lo, hi] = [lo - 1, hi + 1];
  const pad = (hi - lo) * 0.1;
  lo -= pad;
  hi += pad;
  const t0 = ts[0] ?? 0;
  const t1 = Math.max(ts[ts.length - 1] ?? 0, t0 + 1);
  const left = 44;
  const right = w - 8;
  const top = 8;
  const bottom = height - 18;
  const x = (t: number): number => left + ((t - t0) / (t1 - t0)) * (right - left);
  const y = (v: number): number => bottom - ((v - lo) / (hi - lo)) * (bottom - top);
  // Axes and labels.
  g.strokeStyle = 'rgba(128,128,128,0.35)';
  g.lineWidth = 1;
  g.beginPath();
  for (const v of [lo + pad, (lo + hi) / 2, hi - pad]) {
    g.moveTo(left, y(v));
    g.lineTo(right, y(v));
    g.fillText(formatTick(v), 2, y(v) + 4);
  }
  g.stroke();
  const withSeconds = t1 - t0 < 600;
  g.fillText(clock(t0, withSeconds), left, height - 4);
  const endLabel = clock(t1, withSeconds);
  g.fillText(endLabel, right - g.measureText(endLabel).width, height - 4);
  for (const s of series) {
    g.strokeStyle = s.color;
    g.fillStyle = s.color;
    g.lineWidth = 1.5;
    g.beginPath();
    let pen = false;
    let prevT = -Infinity;
    s.values.forEach((v, i) => {
      const t = ts[i];
      if (v === null || t === undefined) {
        pen = false;
        return;
      }
      // Nothing was heard in between: a gap, not a straight line across it.
      if (t - prevT > GAP_S) pen = false;
      prevT = t;
      if (pen) g.lineTo(x(t), y(v));
      else g.moveTo(x(t), y(v));
      pen = true;
    });
    g.stroke();
    // A lone sample draws no line: dots make single readings (and short series) visible.
    s.values.forEach((v, i) => {
      const t = ts[i];
      if (v === null || t === undefined) return;
      const lone = t - (ts[i - 1] ?? -Infinity) > GAP_S && (ts[i + 1] ?? Infinity) - t > GAP_S;
      if (lone || s.values.length < 60) g.fillRect(x(t) - 1.5, y(v) - 1.5, 3, 3);
    });
  }
}

const formatTick = (v: number): string => (Math.abs(v) >= 10 ? v.toFixed(0) : v.toFixed(1));
const clock = (s: number, seconds: boolean): string =>
  new Date(s * 1000).toLocaleTimeString([], {
    hour: '2-digit',
    minute: '2-digit',
    second: seconds ? '2-digit' : undefined,
  });
