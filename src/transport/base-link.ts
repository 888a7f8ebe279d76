import type { Link, LinkKind, TransportLog } from './link.ts';
import { errText } from '../util/err-text.ts';

export type LinkState = 'idle' | 'opening' | 'open' | 'closing' | 'closed';

/** Bytes kept while nobody listens; beyond this the oldest chunks are dropped. */
const MAX_BACKLOG_BYTES = 1 << 20;

/**
 * Listener bookkeeping shared by every link implementation, so that serial, TCP and
 * memory links behave the same way at the edges:
 *
 * - Bytes that arrive while no data listener is subscribed are kept (like a kernel
 *   receive buffer) and delivered, in order, to the first subscriber. A driver that
 *   awaits `open()` and only then subscribes therefore never misses a boot event.
 * - `onClose` listeners fire once per open session. A listener that subscribes after the
 *   link already closed is called on the next microtask with the same error, so a close
 *   that races with subscription is never lost.
 * - A throwing listener does not break the link, starve the other listeners or crash the
 *   process: its error is reported through the link's log (or, without one, as a process
 *   warning), never rethrown. Rethrowing from a data callback would be an uncaught
 *   exception that takes the whole host down over one faulty listener.
 */
export abstract class BaseLink implements Link {
  abstract readonly kind: LinkKind;
  abstract readonly path: string;

  protected state: LinkState = 'idle';
  private readonly dataListeners = new Set<(chunk: Uint8Array) => void>();
  private readonly closeListeners = new Set<(err?: Error) => void>();
  private backlog: Uint8Array[] = [];
  private backlogBytes = 0;
  private drainScheduled = false;
  private closeResult: { err: Error | undefined } | null = null;

  constructor(protected readonly log?: TransportLog) {}

  get isOpen(): boolean {
    return this.state === 'open';
  }

  abstract open(): Promise<void>;
  abstract write(bytes: Uint8Array): Promise<void>;
  abstract close(): Promise<void>;

  onData(listener: (chunk: Uint8Array) => void): () => void {
    this.dataListeners.add(listener);
    if (this.backlog.length > 0) this.scheduleDrain();
    return () => {
      this.dataListeners.delete(listener);
    };
  }

  onClose(listener: (err?: Error) => void): () => void {
    this.closeListeners.add(listener);
    const result = this.closeResult;
    if (this.state === 'closed' && result) {
      queueMicrotask(() => {
        if (this.closeListeners.has(listener) && this.closeResult === result) {
          this.callSafely(listener, result.err);
        }
      });
    }
    return () => {
      this.closeListeners.delete(listener);
    };
  }

  flushInput(): Promise<void> {
    this.backlog = [];
    this.backlogBytes = 0;
    return Promise.resolve();
  }

  /** Hands received bytes to the listeners, or keeps them until someone subscribes. */
  protected deliver(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    if (this.dataListeners.size > 0 && this.backlog.length === 0) {
      for (const l of [...this.dataListeners]) this.callSafely(l, chunk);
      return;
    }
    this.backlog.push(chunk);
    this.backlogBytes += chunk.length;
    while (this.backlogBytes > MAX_BACKLOG_BYTES && this.backlog.length > 1) {
      const dropped = this.backlog.shift();
      this.backlogBytes -= dropped?.length ?? 0;
    }
    if (this.dataListeners.size > 0) this.scheduleDrain();
  }

  /** Starts a new session: stale bytes and the previous close result are forgotten. */
  protected markOpen(): void {
    this.state = 'open';
    this.closeResult = null;
    this.backlog = [];
    this.backlogBytes = 0;
  }

  /** Ends the session and notifies close listeners once. Returns false if already closed. */
  protected markClosed(err?: Error): boolean {
    if (this.state === 'closed' || this.state === 'idle') return false;
    this.state = 'closed';
    const result = { err };
    this.closeResult = result;
    for (const l of [...this.closeListeners]) this.callSafely(l, err);
    return true;
  }

  private scheduleDrain(): void {
    if (this.drainScheduled) return;
    this.drainScheduled = true;
    queueMicrotask(() => {
      this.drainScheduled = false;
      while (this.backlog.length > 0 && this.dataListeners.size > 0) {
        const chunk = this.backlog.shift();
        if (!chunk) break;
        this.backlogBytes -= chunk.length;
        for (const l of [...this.dataListeners]) this.callSafely(l, chunk);
      }
    });
  }

  private callSafely<T>(fn: (arg: T) => void, arg: T): void {
    try {
      fn(arg);
    } catch (err) {
      const error = errText(err);
      if (this.log) this.log('link listener threw', { path: this.path, error });
      else process.emitWarning(`${this.path}: link listener threw: ${error}`, 'LinkListenerWarning');
    }
  }
}
