import type { Clock } from '../clock.ts';
import { LinkClosedError, PortBusyError } from './errors.ts';
import { IDENTIFY_REQUEST, IdentifyScanner } from './identify-scan.ts';
import type { Link, TransportLog } from './link.ts';
import { SerialLink } from './serial-link.ts';
import { listCandidatePorts } from './serial-ports.ts';
import { errText } from '../util/err-text.ts';

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
 * `--gateway auto` with one gateway: the first candidate (in list order) that answers the
 * identify ping. Every port is probed at once ({@link detectGateways}); ports held by
 * another process are reported as `busy` (drives `PORT_BUSY`). Never leaves a port open
 * unless `keepOpen` asks for the winner.
 */
export async function detectGateway(opts: DetectOptions): Promise<DetectResult> {
  const res = await detectGateways(opts);
  const [first, ...others] = res.found;
  // Only the winner may stay open: the others are closed again.
  for (const o of others) if (o.link) await closeQuietly(o.link, opts.log ?? (() => undefined));
  return { found: first ?? null, tried: res.tried };
}

export interface DetectAllResult {
  /** Every port that answered, in candidate order. */
  found: { path: string; mac: string; link?: Link }[];
  /** Every port that was probed, in candidate order, with what happened. */
  tried: ProbeAttempt[];
}

/**
 * Probes every candidate port IN PARALLEL (open, settle, identify): with several boards
 * the whole scan takes one probe's time (≈ 1.4 s), not one per port. `exclude` names ports
 * a driver owns: opening a CP2102 port resets the board, so a live gateway's port is never
 * touched. Every port is closed again unless `keepOpen`.
 */
export async function detectGateways(
  opts: DetectOptions & { exclude?: readonly string[] },
): Promise<DetectAllResult> {
  const log = opts.log ?? (() => undefined);
  const all = await (opts.candidates ?? (() => listCandidatePorts({ log })))();
  const excluded = new Set(opts.exclude ?? []);
  const candidates = all.filter((c) => !excluded.has(c.path));
  const makeLink = opts.open ?? ((p: string) => new SerialLink(p, { log }));
  const results = await Promise.all(candidates.map((c) => probe(c.path, makeLink, opts)));
  const tried: ProbeAttempt[] = [];
  const found: DetectAllResult['found'] = [];
  for (const [i, r] of results.entries()) {
    const candidate = candidates[i];
    if (!candidate) continue;
    tried.push(r.attempt);
    log('gateway probe', { ...r.attempt, ...(candidate.info ? { info: candidate.info } : {}) });
    if (r.mac === null || !r.link) continue;
    if (opts.keepOpen) found.push({ path: candidate.path, mac: r.mac, link: r.link });
    else {
      await closeQuietly(r.link, log);
      found.push({ path: candidate.path, mac: r.mac });
    }
  }
  if (found.length === 0) log('no gateway answered the identify ping', { tried: tried.length });
  return { found, tried };
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
    return { attempt: { path: portPath, result, detail: errText(err) }, mac: null, link: null };
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
    return { attempt: { path: portPath, result: 'error', detail: errText(err) }, mac: null, link: null };
  }
}

/**
 * The link factory of a driver for a port a probe just identified: its first link is the
 * probe's, still open — so the driver's connect neither reopens the port (each open resets a
 * CP2102 board: it would boot a second time) nor waits for a reset to settle — and every
 * later one (a reconnect) is a fresh link from `next`. A probe link that closed meanwhile
 * (unplugged again) is not handed over.
 */
export function handOver(link: Link, next: () => Link): () => Link {
  let first: Link | null = link;
  return () => {
    const l = first;
    first = null;
    return l?.isOpen ? l : next();
  };
}

async function closeQuietly(link: Link, log: TransportLog): Promise<void> {
  try {
    await link.close();
  } catch (err) {
    log('closing probed port failed', { path: link.path, error: errText(err) });
  }
}
