/**
 * The machine's ceiling for an answer: a bare `node:http` server in its own process that
 * replays recorded responses (status, headers, bytes) with no routing, checks or
 * serialisation at all. bench/http.ts measures it next to Lightnet with the same bytes,
 * so a table shows how much of the machine the host uses, not only a req/s figure that
 * moves with the load on it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { once } from 'node:events';

export interface Recorded {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** GETs `url` once and keeps the raw answer (compressed bytes stay compressed). */
export function record(url: string, headers: Record<string, string> = {}): Promise<Recorded> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const kept: Record<string, string> = {};
          for (const k of ['content-type', 'content-encoding', 'etag', 'vary', 'cache-control']) {
            const v = res.headers[k];
            if (typeof v === 'string') kept[k] = v;
          }
          resolve({ status: res.statusCode ?? 0, headers: kept, body: Buffer.concat(chunks) });
        });
      })
      .on('error', reject);
  });
}

// Runs in the child: answers GET /<n> with recorded answer n (from stdin, JSON).
const CHILD = `
const http = require('node:http');
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => {
  const answers = JSON.parse(input).map((a) => ({ ...a, body: Buffer.from(a.body, 'base64') }));
  const server = http.createServer((req, res) => {
    const a = answers[Number(req.url.slice(1))];
    if (!a) { res.writeHead(404); res.end(); return; }
    if (a.status !== 304) a.headers['content-length'] = a.body.length;
    res.writeHead(a.status, a.headers);
    res.end(a.status === 304 ? undefined : a.body);
  });
  server.keepAliveTimeout = 72000;
  server.listen(0, '127.0.0.1', () => console.log(String(server.address().port)));
});
`;

export interface BareServer {
  /** URL of recorded answer `n`. */
  url(n: number): string;
  stop(): Promise<void>;
}

export async function startBareServer(answers: readonly Recorded[]): Promise<BareServer> {
  const child: ChildProcess = spawn(process.execPath, ['-e', CHILD], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin?.end(JSON.stringify(answers.map((a) => ({ ...a, body: a.body.toString('base64') }))));
  const [chunk] = (await once(child.stdout ?? child, 'data')) as [Buffer];
  const port = Number(chunk.toString('utf8').trim());
  return {
    url: (n) => `http://127.0.0.1:${port}/${n}`,
    stop: async () => {
      child.kill();
      await once(child, 'exit');
    },
  };
}
