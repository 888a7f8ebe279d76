import type { Clock } from '../clock.ts';
import { LinkClosedError, PortBusyError, errorMessage } from './errors.ts';
import { IDENTIFY_REQUEST, IdentifyScanner } from './identify-scan.ts';
import type { Link, TransportLog } from './link.ts';
import { SerialLink } from './serial-link.ts';
import { listCandidatePorts } from './serial-ports.ts';

export interface IdentifyOptions {
  /** Wait after open before probing: CP2102 boards reset on open (default 500 ms). */
  settleMs?: number;
  /** How long to collect the answer after each identify write (default 300 ms). */
  answerMs?: number;
  /** Extra attempts after the first (default 1). */
  retries?: number;
  /** Pause between an unanswered attempt and the next write (default 1000 ms). */
  retryDelayMs?: number;
  /** Aborts the handshake; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Runs the identify handshake on an open link (wire-protocol §3.1): wait for the board to
 * settle, flush input, write `00 01 01`, scan everything that comes back for
 * `RaceLink_Gateway_v4XX:XX:XX:XX:XX:XX`, retry after a pause. The scanner keeps
 * listening through the pause, so a late answer to the first probe still counts.
 *
 * Resolves `{ mac }` (upper case) or `null` when nothing answered; rejects when the link
 * closes or a write fails (the caller records that as an error, not as "no answer").
 * Leaves the link open.
 */
export async function identifyGateway(
  link: Link,
  clock: Clock,
  opts: IdentifyOptions = {},
): Promise<{ mac: string } | null> {
  const settleMs = opts.settleMs ?? 500;
  const answerMs = opts.answerMs ?? 300;
  const retries = Math.max(0, opts.retries ?? 1);
  const retryDelayMs = opts.retryDelayMs ?? 1000;
  if (!link.isOpen) throw new LinkClosedError(link.path, 'identify needs an open link');

  // Aborted as soon as there is an outcome (answer, close, caller abort): ends any wait early.
  const done = new AbortController();
  const external = opts.signal;
  let mac: string | null = null;
  let failure: Error | null = null;

  const onExternalAbort = (): void => {
    failure = external?.reason instanceof Error ? external.reason : new Error('identify aborted');
    done.abort();
  };
  if (external?.aborted) onExternalAbort();
  external?.addEventListener('abort', onExternalAbort, { once: true });
  const offClose = link.onClose((err) => {
    failure = err ?? new LinkClosedError(link.path, 'closed during identify');
    done.abort();
  });
  let offData: () => void = () => undefined;

  const check = (): { mac: string } | null => {
    if (failure) throw failure;
    return mac === null ? null : { mac };
  };

  try {
    await waitOrAbort(clock, settleMs, done.signal);
    check();
    // Whatever the reset produced (ROM garbage, boot events) is of no interest.
    await link.flushInput?.();
    const scanner = new IdentifyScanner();
    offData = link.onData((chunk) => {
      if (mac !== null) return;
      const hit = scanner.push(chunk);
      if (hit !== null) {
        mac = hit;
        done.abort();
      }
    });
    for (let attempt = 0; attempt <= retries; attempt += 1) {
      if (attempt > 0) await waitOrAbort(clock, retryDelayMs, done.signal);
      if (check()) break;
      await link.write(IDENTIFY_REQUEST);
      await waitOrAbort(clock, answerMs, done.signal);
      if (check()) break;
    }
    return check();
  } finally {
    offData();
    offClose();
    external?.removeEventListener('abort', onExternalAbort);
  }
}

/** Sleeps on the clock; an abort just ends the wait early (the caller checks why). */
async function waitOrAbort(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  try {
    await clock.sleep(ms, signal);
  } catch (err) {
    if (!signal.aborted) throw err;
  }
}

export type ProbeResult = 'identified' | 'no_answer' | 'busy' | 'error';

export interface ProbeAttempt {
  path: string;
  result: ProbeResult;
  detail?: string;
}

export interface DetectOptions {
  clock: Clock;
  log?: TransportLog;
  /** Ports to try, in order (default: {@link listCandidatePorts}). */
  candidates?: () => Promise<{ path: string; info?: string }[]>;
  /** Makes an unopened link for a port (default: a {@link SerialLink}). */
  open?: (path: string) => Link;
  identify?: IdentifyOptions;
  /**
   * Return the identified link still open in `found.link` (default false: every port is
   * closed again and the driver reopens the winner through its factory).
   */
  keepOpen?: boolean;
}

export interface DetectResult {
  found: { path: string; mac: string; link?: Link } | null;
  /** Every port that was probed, in order, with what happened. */
  tried: ProbeAttempt[];
}

/**
 * `--gateway auto`: probes each candidate serial port in turn and stops at the first one
 * that answers the identify ping. Ports held by another process are reported as `busy`
 * (drives `PORT_BUSY`). Never leaves a port open unless `keepOpen` asks for the winner.
 */
export async function detectGateway(opts: DetectOptions): Promise<DetectResult> {
  const log = opts.log ?? (() => undefined);
  const candidates = await (opts.candidates ?? (() => listCandidatePorts({ log })))();
  const makeLink = opts.open ?? ((p: string) => new SerialLink(p, { log }));
  const tried: ProbeAttempt[] = [];

  for (const candidate of candidates) {
    const { attempt, mac, link } = await probe(candidate.path, makeLink, opts);
    tried.push(attempt);
    log('gateway probe', { ...attempt, ...(candidate.info ? { info: candidate.info } : {}) });
    if (mac !== null && link) {
      if (opts.keepOpen) return { found: { path: candidate.path, mac, link }, tried };
      await closeQuietly(link, log);
      return { found: { path: candidate.path, mac }, tried };
    }
  }
  log('no gateway answered the identify ping', { tried: tried.length });
  return { found: null, tried };
}

async function probe(
  portPath: string,
  makeLink: (p: string) => Link,
  opts: DetectOptions,
): Promise<{ attempt: ProbeAttempt; mac: string | null; link: Link | null }> {
  const log = opts.log ?? (() => undefined);
  let link: Link;
  try {
    link = makeLink(portPath);
    await link.open();
  } catch (err) {
    const result: ProbeResult = err instanceof PortBusyError ? 'busy' : 'error';
    return { attempt: { path: portPath, result, detail: errorMessage(err) }, mac: null, link: null };
  }
  try {
    const answer = await identifyGateway(link, opts.clock, opts.identify);
    if (answer) {
      return { attempt: { path: portPath, result: 'identified', detail: answer.mac }, mac: answer.mac, link };
    }
    await closeQuietly(link, log);
    return { attempt: { path: portPath, result: 'no_answer' }, mac: null, link: null };
  } catch (err) {
    await closeQuietly(link, log);
    return { attempt: { path: portPath, result: 'error', detail: errorMessage(err) }, mac: null, link: null };
  }
}

async function closeQuietly(link: Link, log: TransportLog): Promise<void> {
  try {
    await link.close();
  } catch (err) {
    log('closing probed port failed', { path: link.path, error: errorMessage(err) });
  }
}
