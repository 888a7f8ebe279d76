/**
 * A stand-in for FPVTrackside's Extension notifier, written from the interface (v1.1, facts
 * in shared/reference/timers.md §2) — not from our receiver — so tests send what the real
 * sender sends and behave as it behaves:
 *
 * - PUT of one JSON object to the configured URL, `Content-Type: application/json;
 *   charset=utf-8`, keep-alive (fetch's pooled connections).
 * - One worker sends in order, one request in flight; the queue holds QUEUE_LIMIT events and
 *   drops the newest when full.
 * - Each request is abandoned after TIMEOUT_MS. No retries: a timeout, a refused connection
 *   or a non-2xx drops the event. The response body is ignored.
 * - Hello goes over its own call (not the queue) at start, repeated every HELLO_EVERY_MS until
 *   one 2xx; each attempt is built anew and takes a new `seq`.
 * - `seq` starts at 1 per session (a restart begins a new session) and grows by one per
 *   event, Hello attempts included; `ts` is the creation time, `yyyy-MM-ddTHH:mm:ss.fffZ`.
 */
export const TIMEOUT_MS = 1500;
export const QUEUE_LIMIT = 200;
export const HELLO_EVERY_MS = 2000;

export type Outcome = 'ok' | 'timeout' | 'refused' | `status_${number}` | 'queue_full';

export interface Sent {
  type: string;
  seq: number;
  outcome: Outcome;
  /** Send to answer (ms); null when no answer came. */
  ms: number | null;
  /** Wall-clock ms the request was started (null: never sent). */
  sentAt: number | null;
}

export const HELLO_BODY = {
  fpvtVersion: '2.0.40',
  platform: 'Windows',
  paths: {
    workingDirectory: 'C:\\FPVT\\',
    baseDirectory: 'C:\\FPVT\\bin\\',
    eventsDirectory: 'C:\\FPVT\\events\\',
    profileDirectory: 'C:\\FPVT\\data\\club\\',
    pilotsDirectory: 'C:\\FPVT\\pilots\\',
  },
  profile: { name: 'club' },
  decimalPlaces: 3,
  timingSystem: {
    count: 2,
    primeCount: 1,
    splitCount: 1,
    splitsPerLap: 2,
    allDummy: true,
    systems: [
      { index: 0, type: 'DummyTimingSystem', role: 'Prime' },
      { index: 1, type: 'DummyTimingSystem', role: 'Split' },
    ],
  },
  eventSettings: { raceStartIgnoreDetections: 1.0, minLapTime: 8.0, primaryTimingSystemLocation: 'Holeshot' },
  channelSettings: {
    channels: [
      { band: 'Raceband', number: 4, frequency: 5769, colorR: 255, colorG: 200, colorB: 0 },
      { band: 'Raceband', number: 8, frequency: 5917, colorR: 0, colorG: 90, colorB: 255 },
    ],
  },
};

export class FpvTracksideSender {
  private seq = 0;
  private readonly queue: { body: string; type: string; seq: number }[] = [];
  private working: Promise<void> | null = null;
  private helloTimer: NodeJS.Timeout | null = null;
  private helloDone = false;
  private session = 0;
  /** Every event's fate, in the order they were created. */
  readonly log: Sent[] = [];

  constructor(
    private readonly url: string,
    private readonly opts: { timeoutMs?: number; helloEveryMs?: number; queueLimit?: number } = {},
  ) {}

  /** FPVTrackside starts: a new session, Hello until one is taken. */
  start(hello: Record<string, unknown> = HELLO_BODY): void {
    this.seq = 0;
    this.helloDone = false;
    this.stopHello();
    const session = ++this.session;
    const attempt = (): void => {
      const { body, seq } = this.envelope('Hello', hello);
      void this.put('Hello', seq, body).then((outcome) => {
        if (session !== this.session) return; // stopped, or a newer start
        if (outcome === 'ok') this.helloDone = true;
        else this.helloTimer = setTimeout(attempt, this.opts.helloEveryMs ?? HELLO_EVERY_MS);
      });
    };
    attempt();
  }

  /** Whether a Hello has been answered 2xx in this session. */
  helloAccepted(): boolean {
    return this.helloDone;
  }

  /** Queues an event (the newest is dropped when the queue is full); returns its seq. */
  send(type: string, fields: Record<string, unknown> = {}): number {
    const { body, seq } = this.envelope(type, fields);
    return this.enqueue(type, seq, body);
  }

  /** Queues a body as given (not JSON, or any shape): the transport is the same. */
  sendRaw(text: string, type = 'raw'): number {
    return this.enqueue(type, ++this.seq, text);
  }

  /** Resolves when the queue is empty and nothing is in flight. */
  async idle(): Promise<void> {
    while (this.working) await this.working;
  }

  stopHello(): void {
    this.session++;
    if (this.helloTimer) clearTimeout(this.helloTimer);
    this.helloTimer = null;
  }

  outcomes(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const s of this.log) out[s.outcome] = (out[s.outcome] ?? 0) + 1;
    return out;
  }

  private envelope(type: string, fields: Record<string, unknown>): { body: string; seq: number } {
    const seq = ++this.seq;
    return { seq, body: JSON.stringify({ type, ts: new Date().toISOString(), seq, ...fields }) };
  }

  private enqueue(type: string, seq: number, body: string): number {
    if (this.queue.length >= (this.opts.queueLimit ?? QUEUE_LIMIT)) {
      this.log.push({ type, seq, outcome: 'queue_full', ms: null, sentAt: null });
      return seq;
    }
    this.queue.push({ body, type, seq });
    this.working ??= this.work().finally(() => (this.working = null));
    return seq;
  }

  private async work(): Promise<void> {
    for (let e = this.queue.shift(); e; e = this.queue.shift()) await this.put(e.type, e.seq, e.body);
  }

  private async put(type: string, seq: number, body: string): Promise<Outcome> {
    const started = performance.now();
    const sentAt = Date.now();
    let outcome: Outcome;
    let ms: number | null = null;
    try {
      const res = await fetch(this.url, {
        method: 'PUT',
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body,
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? TIMEOUT_MS),
      });
      await res.arrayBuffer(); // ignored, but read so the connection goes back to the pool
      ms = performance.now() - started;
      outcome = res.status >= 200 && res.status < 300 ? 'ok' : `status_${res.status}`;
    } catch (err) {
      const name = (err as Error).name;
      outcome = name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'refused';
    }
    this.log.push({ type, seq, outcome, ms, sentAt });
    return outcome;
  }
}
