/**
 * The master snapshot the API serves: the driver's gateway-state mirror, plus the
 * host-side events (CONTROL_SENT, TASK_<NAME>_START/DONE/ERROR, …) noted by services.
 * Whichever event is newer wins `last_event`.
 */
import type { Clock } from '../../clock.ts';
import type { EventBus } from '../../events.ts';
import type { GatewayDriver, GatewaySnapshot, MasterSnapshot } from '../../gateway/types.ts';

export type { GatewaySnapshot };

export class MasterView {
  private hostEvent: { name: string; ts: number; error: string | null } | null = null;

  constructor(
    private readonly driver: GatewayDriver,
    private readonly bus: EventBus,
    private readonly clock: Clock,
  ) {
    driver.on('master', () => bus.emit('master', this.snapshot()));
  }

  note(name: string, error?: string | null): void {
    this.hostEvent = { name, ts: this.clock.now() / 1000, error: error ?? null };
    this.bus.emit('master', this.snapshot());
  }

  /** Readiness plus driver statistics: the one gateway snapshot of the API and SSE. */
  gateway(): GatewaySnapshot {
    const stats = this.driver.stats();
    return { ...this.driver.readiness(), stats: { ...stats, airtimeMs: Math.round(stats.airtimeMs) } };
  }

  snapshot(): MasterSnapshot {
    const m = this.driver.master();
    const h = this.hostEvent;
    if (!h || h.ts < m.last_event_ts) return m;
    return { ...m, last_event: h.name, last_event_ts: h.ts, last_error: h.error ?? m.last_error };
  }
}
