/**
 * The current heat a timing application (RotorHazard) reported, as the start blocks show
 * it. Only when the host runs managed by the plugin: a standalone host answers mode `none`
 * once and the banner never asks again. No SSE event carries the heat, so it is re-read
 * every few seconds while the page is open.
 */
import { useEffect, useState } from 'preact/hooks';
import { get } from '../api.ts';

interface IntegrationView {
  mode: string;
  heat: { heat_name: string } | null;
  startblock_slots: { slot: number; callsign: string; racechannel: string }[];
}

const POLL_MS = 5000;

export function HeatBanner() {
  const [view, setView] = useState<IntegrationView | null>(null);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async () => {
      try {
        const v = await get<IntegrationView>('integration');
        if (stopped) return;
        setView(v);
        if (v.mode === 'none') return;
      } catch {
        /* host restarting: try again */
      }
      if (!stopped) timer = setTimeout(() => void load(), POLL_MS);
    };
    void load();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, []);
  if (!view || view.mode === 'none' || !view.heat) return null;
  const seats = view.startblock_slots.filter((s) => s.callsign);
  return (
    <div class="banner heat" data-testid="banner-heat">
      RotorHazard heat: {view.heat.heat_name || 'practice'}
      {seats.map((s) => (
        <span key={s.slot} class="heat-seat">
          {s.slot} {s.callsign} {s.racechannel}
        </span>
      ))}
    </div>
  );
}
