/**
 * A lean HTTP/1.1 load generator for bench/http.ts: N keep-alive connections, one request
 * in flight on each, for a fixed time; it counts answers, statuses, body bytes and
 * latencies.
 *
 * Why not autocannon alone: autocannon appends every body chunk to a string
 * (`req.body += data`), so it UTF-8-decodes each answer. For an 80 KiB JSON answer with
 * non-ASCII labels, or any gzip body (invalid UTF-8 all through), that decode costs the
 * client more CPU than the server spends answering: on this 2-core machine the same
 * recorded 6.5 KiB gzip answer measured 7 400 req/s with its real bytes and 30 000 with as
 * many 'a' bytes, from the same bare server. This client frames answers by
 * Content-Length (or chunked sizes) and never looks at body bytes, so the figure is the
 * server's, not the client's decoder's.
 */
import net from 'node:net';

export interface LoadOptions {
  url: string;
  connections: number;
  durationS: number;
  headers?: Record<string, string>;
}

export interface LoadResult {
  /** Answers per second over the run. */
  rps: number;
  requests: number;
  /** Latency percentiles in ms. */
  p50: number;
  p99: number;
  /** Answers by status code. */
  status: Record<number, number>;
  /** Socket errors and answers that could not be framed. */
  errors: number;
  bytesPerResponse: number;
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

/** Runs the load; resolves when every connection has stopped after `durationS`. */
export function runLoad(opts: LoadOptions): Promise<LoadResult> {
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
    return {
      rps: latencies.length / elapsedS,
      requests: latencies.length,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      status,
      errors,
      bytesPerResponse: latencies.length ? bytes / latencies.length : 0,
    };
  });
}
