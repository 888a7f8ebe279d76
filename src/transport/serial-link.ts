import { promises as fs } from 'node:fs';
import path from 'node:path';
import { serialport, type SerialPortClass } from './serialport-module.ts';
import { BaseLink } from './base-link.ts';
import { LinkClosedError, LinkOpenError, PortBusyError, looksLikePortBusy } from './errors.ts';
import type { TransportLog } from './link.ts';
import { errText } from '../util/err-text.ts';

export { PortBusyError } from './errors.ts';

/** The gateway's UART settings (wire-protocol §2.1): 921600 8N1, no flow control. */
export const GATEWAY_BAUD_RATE = 921600;

export interface SerialLinkOptions {
  baudRate?: number;
  /** Try to set the USB-serial latency timer to 1 ms on Linux (default true). */
  lowLatency?: boolean;
  log?: TransportLog;
  /** Root of sysfs, for tests (default `/sys`). */
  sysRoot?: string;
  /** Makes the (unopened) port, for tests (default: a serialport `SerialPort`). */
  createPort?: (options: SerialPortOptions) => SerialPortLike;
}

export type SerialPortOptions = ConstructorParameters<SerialPortClass>[0];

/** The part of a serialport `SerialPort` this link uses. */
export interface SerialPortLike {
  open(cb: (err: Error | null) => void): void;
  write(chunk: Buffer, cb: (err: Error | null | undefined) => void): boolean;
  drain(cb: (err: Error | null) => void): void;
  close(cb: (err: Error | null) => void): void;
  flush(cb: (err: Error | null) => void): void;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  on(event: 'close', listener: (err?: Error | null) => void): unknown;
}

/**
 * A USB serial port. Opened exclusively (a second opener gets {@link PortBusyError});
 * each write is followed by a drain so a frame leaves the host in one piece and the
 * write resolves only once the OS has transmitted it. Writes are serialised: the next one
 * starts after the previous drain, so each drain covers exactly its own bytes (a later
 * write cannot extend an earlier write's drain, nor resolve before its bytes are out).
 * Reopenable.
 */
export class SerialLink extends BaseLink {
  readonly kind = 'serial' as const;
  private port: SerialPortLike | null = null;
  /** Settles when the last queued write has finished (successfully or not). */
  private writeChain: Promise<void> = Promise.resolve();
  /** close() was called while the port was still opening. */
  private closeRequested = false;
  private readonly logFn: TransportLog;

  constructor(
    readonly path: string,
    private readonly opts: SerialLinkOptions = {},
  ) {
    super(opts.log);
    this.logFn = opts.log ?? (() => undefined);
  }

  async open(): Promise<void> {
    if (this.isOpen) return;
    if (this.state === 'opening' || this.state === 'closing') {
      throw new LinkOpenError(`serial ${this.path}: open while ${this.state}`);
    }
    this.state = 'opening';
    this.closeRequested = false;
    const create = this.opts.createPort ?? ((o: SerialPortOptions) => new (serialport().SerialPort)(o));
    const port = create({
      path: this.path,
      baudRate: this.opts.baudRate ?? GATEWAY_BAUD_RATE,
      dataBits: 8,
      parity: 'none',
      stopBits: 1,
      rtscts: false,
      xon: false,
      xoff: false,
      lock: true,
      autoOpen: false,
    });
    try {
      await new Promise<void>((resolve, reject) => {
        port.open((err) => (err ? reject(err) : resolve()));
      });
    } catch (err) {
      this.state = 'idle';
      throw mapOpenError(this.path, err);
    }
    if (this.closeRequested) {
      this.state = 'idle';
      await new Promise<void>((resolve) => port.close(() => resolve()));
      throw new LinkOpenError(`serial ${this.path}: closed while opening`);
    }
    this.attach(port);
    if (this.opts.lowLatency !== false) {
      await setLowLatency(this.path, this.logFn, this.opts.sysRoot);
    }
  }

  write(bytes: Uint8Array): Promise<void> {
    if (!this.isOpen || !this.port) return Promise.reject(new LinkClosedError(this.path));
    const run = (): Promise<void> => this.writeNow(bytes);
    const done = this.writeChain.then(run, run);
    this.writeChain = done.catch(() => undefined);
    return done;
  }

  private writeNow(bytes: Uint8Array): Promise<void> {
    const port = this.port;
    // The link may have closed while this write waited for the ones before it.
    if (!this.isOpen || !port) return Promise.reject(new LinkClosedError(this.path));
    return new Promise<void>((resolve, reject) => {
      let failed = false;
      port.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), (err) => {
        if (err) {
          failed = true;
          reject(new LinkClosedError(this.path, `write failed: ${errText(err)}`));
        }
      });
      // drain() waits for queued writes and then tcdrain(): the bytes are on the wire.
      port.drain((err) => {
        if (failed) return;
        if (err) reject(new LinkClosedError(this.path, `write failed: ${errText(err)}`));
        else resolve();
      });
    });
  }

  close(): Promise<void> {
    if (this.state === 'opening') {
      this.closeRequested = true;
      return Promise.resolve();
    }
    const port = this.port;
    if (!port || this.state === 'closed' || this.state === 'idle') return Promise.resolve();
    this.state = 'closing';
    return new Promise<void>((resolve) => {
      port.close((err) => {
        if (err) this.logFn('serial close reported an error', { path: this.path, error: err.message });
        // The 'close' event normally did this already; a failed close still ends the session.
        this.markClosed(undefined);
        resolve();
      });
    });
  }

  override async flushInput(): Promise<void> {
    const port = this.port;
    if (port && this.isOpen) {
      await new Promise<void>((resolve) => {
        port.flush((err) => {
          if (err) this.logFn('serial flush failed', { path: this.path, error: err.message });
          resolve();
        });
      });
    }
    await super.flushInput();
  }

  private attach(port: SerialPortLike): void {
    this.port = port;
    this.markOpen();
    let failure: Error | undefined;
    port.on('data', (chunk: Buffer) => this.deliver(chunk));
    port.on('error', (err: Error) => {
      failure = err;
      this.logFn('serial port error', { path: this.path, error: err.message });
    });
    port.on('close', (err?: Error | null) => {
      if (this.port === port) this.port = null;
      if (this.state === 'closing') {
        this.markClosed(undefined);
        return;
      }
      const cause = err ?? failure;
      this.markClosed(
        new LinkClosedError(this.path, cause ? `port lost: ${cause.message}` : 'port closed unexpectedly'),
      );
    });
  }
}

function mapOpenError(portPath: string, err: unknown): Error {
  const msg = errText(err);
  if (looksLikePortBusy(msg)) return new PortBusyError(portPath, err);
  const code = /no such file or directory/i.test(msg)
    ? 'ENOENT'
    : /permission denied/i.test(msg)
      ? 'EACCES'
      : undefined;
  const hint =
    code === 'ENOENT'
      ? ' (no such device; is the gateway plugged in?)'
      : code === 'EACCES'
        ? ' (permission denied; is the user in the dialout group?)'
        : '';
  return new LinkOpenError(`cannot open serial port ${portPath}: ${msg}${hint}`, {
    cause: err,
    ...(code ? { code } : {}),
  });
}

/**
 * Best-effort low latency on Linux. serialport 13 cannot set ASYNC_LOW_LATENCY, but
 * USB-serial drivers that buffer (FTDI and friends) expose a `latency_timer` in sysfs;
 * 1 ms there has the same effect. CP210x and CDC-ACM have no such file and already
 * forward bytes promptly. Every failure is only logged.
 */
export async function setLowLatency(portPath: string, log: TransportLog, sysRoot = '/sys'): Promise<boolean> {
  if (process.platform !== 'linux') return false;
  try {
    const tty = path.basename(await fs.realpath(portPath));
    const file = path.join(sysRoot, 'bus/usb-serial/devices', tty, 'latency_timer');
    await fs.writeFile(file, '1');
    log('serial low-latency timer set to 1 ms', { path: portPath, file });
    return true;
  } catch (err) {
    log('serial low-latency mode not available', { path: portPath, error: errText(err) });
    return false;
  }
}

export { listCandidatePorts, type CandidatePort, type ListCandidateOptions } from './serial-ports.ts';
