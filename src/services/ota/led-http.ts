/**
 * HTTP to a WLED node over its access point (ota.md §6.7): one request at a time,
 * `Connection: close`, a timeout and an abort signal on every request, at most 4 KiB of
 * any reply kept (more only for a file download), redirects never followed (a 302 is the
 * captive portal), multipart bodies built in memory with a fixed Content-Length and
 * written in chunks so upload progress can be reported.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { realClock, type Clock } from '../../clock.ts';

export interface LedReply {
  status: number;
  body: Buffer;
  /** The reply was longer than the read cap. */
  truncated: boolean;
}

export type FormPart =
  { name: string; value: string } | { name: string; filename: string; data: Buffer; contentType: string };

export interface LedInfo {
  mac: string;
  ver: string;
  arch: string;
  name: string;
  release: string;
}

export class LedHttpError extends Error {
  override readonly name = 'LedHttpError';
  /**
   * The whole request body was handed to the connection, then it dropped or timed out
   * before any reply: the node may have received everything and be flashing right now.
   */
  readonly unansweredAfterBody: boolean;

  constructor(message: string, unansweredAfterBody = false) {
    super(message);
    this.unansweredAfterBody = unansweredAfterBody;
  }
}

const CHUNK = 16 * 1024;

export class LedHttp {
  private readonly base: URL;

  /** `clock` runs every request timeout (time only through the Clock). */
  constructor(
    baseUrl: string,
    private readonly clock: Clock = realClock(),
  ) {
    this.base = new URL(baseUrl);
  }

  async info(timeoutMs: number, signal?: AbortSignal): Promise<LedInfo> {
    const r = await this.request('GET', '/json/info', { timeoutMs, signal, maxBytes: 16 * 1024 });
    if (r.status >= 300 && r.status < 400)
      throw new LedHttpError(
        `HTTP ${r.status} redirect from /json/info, not followed (the node's captive portal? use its IP address, e.g. http://4.3.2.1, as baseUrl)`,
      );
    if (r.status !== 200) throw new LedHttpError(`HTTP ${r.status} from /json/info`);
    const j = JSON.parse(r.body.toString('utf8')) as Record<string, unknown>;
    const s = (k: string): string => (typeof j[k] === 'string' ? (j[k] as string) : '');
    return { mac: s('mac'), ver: s('ver'), arch: s('arch'), name: s('name'), release: s('release') };
  }

  get(path: string, timeoutMs: number, maxBytes: number, signal?: AbortSignal): Promise<LedReply> {
    return this.request('GET', path, { timeoutMs, signal, maxBytes });
  }

  postForm(
    path: string,
    form: Record<string, string>,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<LedReply> {
    const body = Buffer.from(new URLSearchParams(form).toString());
    return this.request('POST', path, {
      timeoutMs,
      signal,
      body,
      contentType: 'application/x-www-form-urlencoded',
    });
  }

  postMultipart(
    path: string,
    parts: readonly FormPart[],
    timeoutMs: number,
    signal?: AbortSignal,
    onProgress?: (sent: number, total: number) => void,
  ): Promise<LedReply> {
    const boundary = `----lightnet${randomBytes(12).toString('hex')}`;
    const chunks: Buffer[] = [];
    for (const p of parts) {
      if ('value' in p) {
        chunks.push(
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}\r\n`,
          ),
        );
      } else {
        const fname = p.filename.replace(/[^\x20-\x7e]|"/g, '_');
        chunks.push(
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${fname}"\r\n` +
              `Content-Type: ${p.contentType}\r\n\r\n`,
          ),
          p.data,
          Buffer.from('\r\n'),
        );
      }
    }
    chunks.push(Buffer.from(`--${boundary}--\r\n`));
    return this.request('POST', path, {
      timeoutMs,
      signal,
      body: Buffer.concat(chunks),
      contentType: `multipart/form-data; boundary=${boundary}`,
      onProgress,
    });
  }

  private request(
    method: string,
    path: string,
    o: {
      timeoutMs: number;
      signal?: AbortSignal;
      body?: Buffer;
      contentType?: string;
      maxBytes?: number;
      onProgress?: (sent: number, total: number) => void;
    },
  ): Promise<LedReply> {
    const maxBytes = o.maxBytes ?? 4096;
    const timeout = new AbortController();
    const timer = this.clock.setTimeout(() => timeout.abort(), o.timeoutMs);
    const signal = AbortSignal.any([timeout.signal, ...(o.signal ? [o.signal] : [])]);
    return new Promise<LedReply>((resolve, reject) => {
      let settled = false;
      let bodyFlushed = false;
      let replied = false;
      const fail = (err: Error): void => {
        if (settled) return;
        settled = true;
        timer.cancel();
        signal.removeEventListener('abort', onAbort);
        req.destroy();
        const unanswered = o.body !== undefined && bodyFlushed && !replied;
        if (o.signal?.aborted) reject(o.signal.reason as Error);
        else if (timeout.signal.aborted)
          reject(
            new LedHttpError(
              `timeout after ${Math.round(o.timeoutMs / 1000)} s on ${path}${unanswered ? ' (whole body sent, no reply)' : ''}`,
              unanswered,
            ),
          );
        else
          reject(
            new LedHttpError(
              `${path}: ${err.message}${unanswered ? ' (whole body sent, no reply)' : ''}`,
              unanswered,
            ),
          );
      };
      const req = http.request(
        {
          protocol: this.base.protocol,
          hostname: this.base.hostname,
          port: this.base.port || 80,
          method,
          path,
          agent: false,
          headers: {
            Connection: 'close',
            ...(o.body
              ? {
                  'Content-Type': o.contentType ?? 'application/octet-stream',
                  'Content-Length': o.body.length,
                }
              : {}),
          },
        },
        (res) => {
          replied = true;
          const chunks: Buffer[] = [];
          let size = 0;
          let truncated = false;
          res.on('data', (c: Buffer) => {
            if (size + c.length > maxBytes) {
              truncated = true;
              chunks.push(c.subarray(0, Math.max(0, maxBytes - size)));
              size = maxBytes;
              res.destroy();
              finish();
            } else {
              chunks.push(c);
              size += c.length;
            }
          });
          const finish = (): void => {
            if (settled) return;
            settled = true;
            timer.cancel();
            signal.removeEventListener('abort', onAbort);
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), truncated });
          };
          res.on('end', finish);
          res.on('error', (e) => (truncated ? finish() : fail(e)));
          res.on('close', () =>
            res.complete || truncated ? finish() : fail(new Error('connection closed mid-reply')),
          );
        },
      );
      const onAbort = (): void => fail(new Error('aborted'));
      signal.addEventListener('abort', onAbort, { once: true });
      req.on('error', fail);
      // 'finish': every body byte was handed to the socket (the node may have all of it).
      req.on('finish', () => (bodyFlushed = true));
      if (!o.body) {
        req.end();
        return;
      }
      const body = o.body;
      let sent = 0;
      const pump = (): void => {
        while (sent < body.length && !settled) {
          const part = body.subarray(sent, sent + CHUNK);
          sent += part.length;
          const upto = sent;
          const more = req.write(part, () => o.onProgress?.(upto, body.length));
          if (!more) {
            req.once('drain', pump);
            return;
          }
        }
        if (!settled) req.end();
      };
      pump();
    });
  }
}

/** Body with tags stripped and whitespace collapsed, first 200 characters (for messages). */
export function snippet(body: Buffer): string {
  return body
    .toString('utf8')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
}
