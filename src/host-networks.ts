/**
 * The networks' wiring to the rest of the host: their bind and readiness news become the
 * `networks` SSE event (coalesced to at most 4 a second, wall time like the SSE hub's other
 * coalescing), and a reload or restore (scope FULL: new records) re-runs the binding.
 */
import type { AppServices } from './services/index.ts';

/** ≤ 4 events a second however fast gateways flap or unknown nodes announce. */
export const NETWORKS_EVENT_MS = 250;

export function wireNetworksEvents(svc: AppServices): () => void {
  let timer: NodeJS.Timeout | null = null;
  const flush = (): void => {
    timer = null;
    const { networks, unassigned, alerts } = svc.networks.list();
    svc.bus.emit('networks', { networks, unassigned, alerts });
  };
  const offs = [
    svc.networks.onChange(() => {
      timer ??= setTimeout(flush, NETWORKS_EVENT_MS);
    }),
    svc.bus.on('scopes', (scopes) => {
      if (scopes.includes('FULL')) svc.networks.rebind();
    }),
  ];
  return () => {
    offs.forEach((off) => off());
    if (timer) clearTimeout(timer);
  };
}
