/**
 * Link-alive check: a gateway that hangs with its USB port still open sends nothing and
 * answers nothing, and the port never reports an error. When the line has been quiet for
 * a check interval, the watch asks for the gateway state (a USB-only command, answered at
 * once and using no airtime); after `misses` unanswered queries in a row the link counts
 * as lost, so readiness turns false within seconds and the reconnect cycle (identify
 * handshake, backoff) brings it back once the gateway answers again. Busy lines are never
 * queried: any byte from the gateway proves it alive.
 */
import type { Clock, TimerHandle } from '../clock.ts';

export interface LinkWatchDeps {
  clock: Clock;
  /** Check period and the quiet time that triggers a query (0 disables the watch). */
  intervalMs: number;
  /** Unanswered queries in a row that make the link count as lost. */
  misses: number;
  queryMs: number;
  isReady(): boolean;
  lastRxAt(): number;
  /** GW_CMD_STATE_REQUEST; true when the report came in time. */
  query(ms: number): Promise<boolean>;
  onDead(detail: string): void;
}

export class LinkWatch {
  private timer: TimerHandle | null = null;
  private missed = 0;
  private stopped = false;

  constructor(private readonly d: LinkWatchDeps) {}

  start(): void {
    if (this.d.intervalMs <= 0 || this.stopped) return;
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.d.clock.setTimeout(() => void this.tick(), this.d.intervalMs);
  }

  private async tick(): Promise<void> {
    this.timer = null;
    const { d } = this;
    if (!d.isReady() || d.clock.now() - d.lastRxAt() < d.intervalMs) {
      this.missed = 0;
      this.schedule();
      return;
    }
    const answered = await d.query(d.queryMs);
    if (this.stopped) return;
    // A reconnect may have happened meanwhile: only a still-ready link can be declared dead.
    if (answered || !d.isReady()) this.missed = 0;
    else if (++this.missed >= d.misses) {
      this.missed = 0;
      d.onDead(`gateway stopped answering: no reply to ${d.misses} state queries (the port is still open)`);
    }
    this.schedule();
  }
}
