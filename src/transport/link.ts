/**
 * A byte link to a gateway (or to anything that speaks like one). The driver only
 * sees this interface; serial, TCP and in-memory links implement it.
 */
export type LinkKind = 'serial' | 'tcp' | 'memory';

export interface Link {
  readonly kind: LinkKind;
  /** Human-readable endpoint, e.g. `/dev/ttyUSB0`, `127.0.0.1:7000`, `memory`. */
  readonly path: string;
  readonly isOpen: boolean;
  open(): Promise<void>;
  /** Writes the bytes in one call and flushes. Rejects when the link is closed or broken. */
  write(bytes: Uint8Array): Promise<void>;
  close(): Promise<void>;
  /** Subscribes to received bytes; returns an unsubscribe function. */
  onData(listener: (chunk: Uint8Array) => void): () => void;
  /** Fires once when the link closes, with the error if it broke rather than was closed. */
  onClose(listener: (err?: Error) => void): () => void;
  /**
   * Discards bytes received but not yet delivered (and, on a serial port, the OS input
   * buffer). Optional: used by gateway detection after the post-open settle delay.
   */
  flushInput?(): Promise<void>;
}

/** Optional diagnostics sink for transports (debug-level detail such as low-latency setup). */
export type TransportLog = (msg: string, fields?: object) => void;

/** Opens a fresh link to the same endpoint each time (used for reconnects). */
export type LinkFactory = () => Link;
