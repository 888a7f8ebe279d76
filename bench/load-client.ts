/**
 * The load generator for bench/http.ts: N keep-alive connections, one request in flight
 * on each, for a fixed time; it reports answers per second, latency percentiles, answers
 * that were not what the case expects, and bytes per answer.
 *
 * Two clients, because on a 2-core machine the client shares the CPU with the server and
 * its own cost bounds the figures:
 *  - `wrk` (C; Debian package `wrk`) when it is installed: one thread, so it takes one
 *    core and leaves the other to the server. It is the one that measures the server.
 *  - otherwise a lean JavaScript client (below), which frames answers by Content-Length
 *    (or chunked sizes) and never looks at body bytes. It tops out near 35 000 answers/s
 *    here, with the server partly idle, so its figures are a lower bound.
 * Not autocannon: it appends every body chunk to a string (`req.body += data`), so it
 * UTF-8-decodes each answer. For an 80 KiB JSON answer with non-ASCII labels, or any gzip
 * body (invalid UTF-8 all through), that decode costs the client more CPU than the server
 * spends answering: the same recorded 6.5 KiB gzip answer measured 7 400 req/s with its
 * real bytes and 30 000 with as many 'a' bytes, from the same bare server.
 */
import { spawn, spawnSync } from 'node:child_process';
import net from 'node:net';

export interface LoadOptions {
  url: string;
  connections: number;
  durationS: number;
  headers?: Record<string, string>;
  /** The status every answer should have (default 200). */
  expect?: number;
}

export type LoadClient = 'wrk' | 'js';

export interface LoadResult {
  /** Answers per second over the run. */
  rps: number;
  requests: number;
  /** Latency percentiles in ms. */
  p50: number;
  p99: number;
  /**
   * Answers with another status than expected (wrk: answers outside 2xx/3xx, since it
   * does not count statuses; the bytes per answer tell a 304 from a 200 there).
   */
  unexpected: number;
  /** Socket errors (and timeouts). */
  errors: number;
  /** Bytes read per answer, headers included. */
  bytesPerResponse: number;
  client: LoadClient;
}

/** wrk when it is on PATH (BENCH_CLIENT=js forces the JavaScript client). */
export function loadClient(): LoadClient {
  if (process.env.BENCH_CLIENT === 'js') return 'js';
  return spawnSync('wrk', ['--version']).error ? 'js' : 'wrk';
}

export function runLoad(opts: LoadOptions): Promise<LoadResult> {
  return loadClient() === 'wrk' ? runWrk(opts) : runJs(opts);
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };
const UNIT_BYTES: Record<string, number> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 };

function wrkLatency(out: string, pct: number): number {
  const m = new RegExp(`^\\s+${pct}%\\s+([\\d.]+)(us|ms|s|m)$`, 'm').exec(out);
  return m ? Number(m[1]) * (UNIT_MS[m[2] ?? 'ms'] ?? 1) : NaN;
}

function runWrk(opts: LoadOptions): Promise<LoadResult> {
  const args = ['-t1', `-c${opts.connections}`, `-d${opts.durationS}s`, '--latency'];
  for (const [k, v] of Object.entries(opts.headers ?? {})) args.push('-H', `${k}: ${v}`);
  args.push(opts.url);
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      const total = /(\d+) requests in ([\d.]+)(us|ms|s|m), ([\d.]+)(B|KB|MB|GB|TB) read/.exec(out);
      if (code !== 0 || !total) return reject(new Error(`wrk failed (${code}): ${out}`));
      const requests = Number(total[1]);
      const bytes = Number(total[4]) * (UNIT_BYTES[total[5] ?? 'B'] ?? 1);
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
      const bad = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
      const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
      const errors = sock ? sock.slice(1).reduce((n, x) => n + Number(x), 0) : 0;
      resolve({
        rps,
        requests,
        p50: wrkLatency(out, 50),
        p99: wrkLatency(out, 99),
        unexpected:
          opts.expect !== undefined && (opts.expect < 200 || opts.expect >= 400) ? requests - bad : bad,
        errors,
        bytesPerResponse: requests ? bytes / requests : 0,
        client: 'wrk',
      });
    });
  });
}

const HEADER_END = Buffer.from('\r\n\r\n');

/** Reads one connection's answers; calls `done(status, bytes)` per complete answer. */
class AnswerFramer {
  private head: Buffer | null = null;
  private status = 0;
  private bodyLeft = 0;
  private chunked = false;
  /** Chunked: bytes of the current chunk's data plus its CRLF still to skip. */
  private chunkLeft = 0;
  private chunkLine: Buffer | null = null;
  private lastChunk = false;
  private bytes = 0;

  constructor(private readonly done: (status: number, bytes: number) => void) {}

  push(data: Buffer): void {
    let at = 0;
    while (at < data.length) {
      if (this.head !== null || this.status === 0) at = this.readHead(data, at);
      else if (this.chunked) at = this.readChunked(data, at);
      else {
        const take = Math.min(this.bodyLeft, data.length - at);
        this.bodyLeft -= take;
        this.bytes += take;
        at += take;
        if (this.bodyLeft === 0) this.finish();
      }
    }
  }

  private readHead(data: Buffer, at: number): number {
    const buf = this.head ? Buffer.concat([this.head, data.subarray(at)]) : data.subarray(at);
    const end = buf.indexOf(HEADER_END);
    if (end < 0) {
      this.head = Buffer.from(buf);
      this.status = -1; // reading a head
      return data.length;
    }
    const consumedFromData = end + 4 - (this.head ? this.head.length : 0);
    const text = buf.subarray(0, end).toString('latin1');
    this.head = null;
    this.status = Number(text.slice(9, 12));
    this.bytes = end + 4;
    const lower = text.toLowerCase();
    const cl = /\r\ncontent-length:\s*(\d+)/.exec(lower);
    this.chunked = !cl && /\r\ntransfer-encoding:\s*chunked/.test(lower);
    this.bodyLeft = cl ? Number(cl[1]) : 0;
    this.chunkLeft = 0;
    this.chunkLine = null;
    if (this.status === 304 || this.status === 204 || (!this.chunked && this.bodyLeft === 0)) this.finish();
    return at + consumedFromData;
  }

  private readChunked(data: Buffer, at: number): number {
    if (this.chunkLeft > 0) {
      const take = Math.min(this.chunkLeft, data.length - at);
      this.chunkLeft -= take;
      this.bytes += take;
      if (this.chunkLeft === 0 && this.lastChunk) this.finish();
      return at + take;
    }
    const line = this.chunkLine ? Buffer.concat([this.chunkLine, data.subarray(at)]) : data.subarray(at);
    const eol = line.indexOf('\r\n');
    if (eol < 0) {
      this.chunkLine = Buffer.from(line);
      return data.length;
    }
    const consumed = eol + 2 - (this.chunkLine ? this.chunkLine.length : 0);
    const size = parseInt(line.subarray(0, eol).toString('latin1'), 16);
    this.chunkLine = null;
    this.bytes += eol + 2;
    // The last chunk (size 0) is followed by an empty trailer section: one more CRLF.
    this.lastChunk = size === 0;
    this.chunkLeft = size + 2;
    return at + consumed;
  }

  private finish(): void {
    const status = this.status;
    const bytes = this.bytes;
    this.status = 0;
    this.bodyLeft = 0;
    this.chunked = false;
    this.lastChunk = false;
    this.bytes = 0;
    this.done(status, bytes);
  }
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** The JavaScript client; resolves when every connection has stopped after `durationS`. */
function runJs(opts: LoadOptions): Promise<LoadResult> {
  const url = new URL(opts.url);
  const lines = [`GET ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`];
  for (const [k, v] of Object.entries(opts.headers ?? {})) lines.push(`${k}: ${v}`);
  const request = Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1');
  const latencies: number[] = [];
  const status: Record<number, number> = {};
  let errors = 0;
  let bytes = 0;
  const startedAt = performance.now();
  const endAt = startedAt + opts.durationS * 1000;

  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const socket = net.connect({ host: url.hostname, port: Number(url.port || 80), noDelay: true });
      let sentAt = 0;
      const send = (): void => {
        sentAt = performance.now();
        socket.write(request);
      };
      const framer = new AnswerFramer((code, n) => {
        const now = performance.now();
        latencies.push(now - sentAt);
        status[code] = (status[code] ?? 0) + 1;
        bytes += n;
        if (now < endAt) send();
        else socket.end();
      });
      socket.on('connect', send);
      socket.on('data', (d: Buffer) => framer.push(d));
      socket.on('error', () => {
        errors++;
        socket.destroy();
      });
      socket.on('close', () => resolve());
    });

  return Promise.all(Array.from({ length: opts.connections }, one)).then(() => {
    const elapsedS = (performance.now() - startedAt) / 1000;
    const sorted = Float64Array.from(latencies).sort();
    const expect = opts.expect ?? 200;
    return {
      rps: latencies.length / elapsedS,
      requests: latencies.length,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      unexpected: latencies.length - (status[expect] ?? 0),
      errors,
      bytesPerResponse: latencies.length ? bytes / latencies.length : 0,
      client: 'js',
    };
  });
}
