/**
 * The fast read path: a plain `GET` of one of the cached answers (device and group lists,
 * scene editor schema, native-preset schema, specials) is answered straight from Node's
 * request handler, before Fastify builds its request and reply objects and runs seven
 * hooks (connection guard, security, durable ack, boot phase, compression, activity) that
 * do nothing for such a read. Those answers are the big and frequent ones: every browser
 * tab fetches them after each change event, and the editor schemas are 80 KiB each.
 *
 * Only the happy path is taken here: the exact path (no query string), the host ready,
 * the request admitted by the same checks the security hook makes (Host allow-list, the
 * session when a password is set). Everything else — a HEAD, a refusal, a Bearer token,
 * booting, closing — falls through to Fastify, so every error still has its one shape.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ReadAdmission } from './security.ts';

export interface RawAnswer {
  sendRaw(req: IncomingMessage, res: ServerResponse): void;
}

export class FastReads {
  private readonly routes = new Map<string, RawAnswer>();
  private admits: ReadAdmission = () => false;
  private open = false;
  private count = 0;

  /** Requests answered here so far (tests check that the path is taken). */
  get served(): number {
    return this.count;
  }

  /** Serve `answer` for GET `path` (the full URL path, prefix included). */
  add(path: string, answer: RawAnswer): void {
    this.routes.set(path, answer);
  }

  /** Starts answering, with the security hook's read check; before this everything falls through. */
  start(admits: ReadAdmission): void {
    this.admits = admits;
    this.open = true;
  }

  /** Stops answering (the server is closing: Fastify answers 503 from here on). */
  stop(): void {
    this.open = false;
  }

  /** True when the request was answered here; false leaves it to Fastify. */
  handle(req: IncomingMessage, res: ServerResponse, ready: boolean): boolean {
    if (!this.open || !ready || req.method !== 'GET' || req.url === undefined) return false;
    const answer = this.routes.get(req.url);
    if (!answer || !this.admits(req)) return false;
    answer.sendRaw(req, res);
    this.count++;
    return true;
  }
}
