/**
 * RotorHazard as a race-light source, as the operator sees it: whether the plugin talks to
 * this host, what it sent last and how often, and what it sent that was bad. The plugin's
 * requests are few (laps, phases, heat changes), so this is counted on every one; nothing
 * here runs when no plugin is attached.
 *
 * Lap numbers are RotorHazard's to decide (it deletes, recounts, marks late): a lap number
 * repeated or going back for a seat is counted here so the operator sees it, not refused.
 */
import { SourceActivity } from './timers/source-activity.ts';

export type RotorHazardCounter =
  'accepted' | 'malformed' | 'unknown' | 'out_of_order' | 'duplicate' | 'unauthorized';

const MAX_ERROR = 200;

export class RotorHazardSource {
  private readonly counters: Record<RotorHazardCounter, number> = {
    accepted: 0,
    malformed: 0,
    unknown: 0,
    out_of_order: 0,
    duplicate: 0,
    unauthorized: 0,
  };
  /** Last heard, connected, events per minute (the same as every timer's). */
  private readonly activity = new SourceActivity();
  private lastEvent: { type: string; detail: string | null; received_epoch_ms: number } | null = null;
  private lastError: { at_epoch_ms: number; error: string } | null = null;
  /** The last lap number per seat in this race (a stage or heat change starts afresh). */
  private readonly laps = new Map<number, number>();
  private listener: () => void = () => {};

  constructor(private readonly now: () => number) {}

  /** Called after every change (the UI's live stream). */
  onChange(fn: () => void): void {
    this.listener = fn;
  }

  /** An authenticated request that was applied: `type` names it (`lap`, `phase stop`, `heat`), `detail` what of it. */
  heard(type: string, detail: string | null = null): void {
    const at = this.now();
    this.tick(at);
    this.counters.accepted++;
    this.lastEvent = { type, detail, received_epoch_ms: at };
    if (type === 'phase stage' || type === 'phase heat_change') this.laps.clear();
    this.listener();
  }

  /** A lap's number against the seat's last one; repeated or going back is counted. */
  lap(seat: number, lapNumber: number): void {
    const last = this.laps.get(seat);
    const name = `seat ${seat + 1}`; // as RotorHazard's panel numbers them (1–8)
    // Lap 0 (the holeshot) is a new race for this seat, whatever came before.
    if (last !== undefined && lapNumber !== 0) {
      if (lapNumber === last) this.count('duplicate', `${name}: lap ${lapNumber} again`);
      else if (lapNumber < last) this.count('out_of_order', `${name}: lap ${lapNumber} after ${last}`);
    }
    this.laps.set(seat, lapNumber);
  }

  /** A refused request: a body that failed validation, an unknown phase, a wrong secret. */
  bad(c: Exclude<RotorHazardCounter, 'accepted'>, error: string): void {
    // A wrong secret is someone else knocking, not the plugin: it does not make it connected.
    if (c !== 'unauthorized') this.tick(this.now());
    this.count(c, error);
    this.listener();
  }

  view(): Record<string, unknown> {
    const now = this.now();
    return {
      connected: this.activity.connected(now),
      last_heard_epoch_ms: this.activity.lastHeard,
      last_event: this.lastEvent,
      events_per_minute: this.activity.perMinute(now),
      last_error: this.lastError,
      counters: { ...this.counters },
    };
  }

  private count(c: RotorHazardCounter, error: string): void {
    this.counters[c]++;
    this.lastError = { at_epoch_ms: this.now(), error: error.slice(0, MAX_ERROR) };
  }

  private tick(at: number): void {
    this.activity.heard(at);
  }
}
