/**
 * Security for a host on a shared event WiFi: the Host header must name this machine
 * (DNS rebinding), state-changing requests from another origin are refused (CSRF), and
 * with a password every route but health and login needs the session cookie (HttpOnly,
 * SameSite=Strict, idle and absolute lifetime, ended by logout) or `Authorization: Bearer`.
 * Wrong passwords are throttled per client (429 + Retry-After). Bodies are JSON only
 * (json-body.ts): the types a foreign page can send without a CORS preflight (text/plain,
 * forms) answer 415, so even a client that sent no Origin could not forge a JSON request.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HostAllowList } from './host-check.ts';
import { LoginThrottle, type ThrottleOptions } from './login-throttle.ts';
import { SessionStore, type SessionOptions } from './sessions.ts';

export interface SecurityOptions {
  password: string | null;
  /** The web UI's page for `<prefix>/login` (the UI's own login view); else a minimal form. */
  loginHtml?: string | null;
  /** `--allowed-hosts`: extra Host names (exact, `*.domain`, or `*`). */
  allowedHosts?: readonly string[];
  /** Wall clock for the throttle and sessions (tests inject one). */
  now?: () => number;
  throttle?: Partial<ThrottleOptions>;
  sessions?: Partial<SessionOptions>;
  /**
   * Paths under these prefixes authenticate themselves (the integration routes' shared
   * secret, a timer's URL token).
   */
  ownAuthPrefixes?: readonly string[];
}

const COOKIE = 'lightnet_session';
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
const sameSecret = (a: string, b: string): boolean => timingSafeEqual(digest(a), digest(b));

/** The raw cookie value: session tokens are hex, so nothing is decoded (and nothing can throw). */
function cookieValue(req: { headers: IncomingHttpHeaders }, name: string): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/**
 * Who is guessing: the peer address, or, when the peer is a local reverse proxy (the
 * timing application's plugin), the address it appended to X-Forwarded-For.
 */
function clientOf(req: FastifyRequest): string {
  const peer = req.socket.remoteAddress ?? '';
  const fwd = req.headers['x-forwarded-for'];
  if (LOOPBACK.has(peer) && typeof fwd === 'string' && fwd.trim()) {
    return fwd.split(',').pop()?.trim() || peer;
  }
  return peer;
}

function tooMany(reply: FastifyReply, ms: number): FastifyReply {
  const s = Math.max(1, Math.ceil(ms / 1000));
  return reply
    .code(429)
    .header('retry-after', String(s))
    .send({ ok: false, error: `too many wrong passwords: retry in ${s} s` });
}

/**
 * For the fast read path (fast-reads.ts): true when the hook below would let this GET of
 * an API read pass untouched — a Host this machine answers to, and no password or a live
 * session cookie. Anything else (a Bearer token, which counts towards the throttle, a
 * refusal, a redirect) returns false and takes the normal route through the hooks.
 */
export type ReadAdmission = (req: { headers: IncomingHttpHeaders }) => boolean;

export function installSecurity(app: FastifyInstance, prefix: string, opts: SecurityOptions): ReadAdmission {
  const hosts = new HostAllowList(opts.allowedHosts ?? []);
  const now = opts.now ?? Date.now;
  const throttle = new LoginThrottle({ now, ...opts.throttle });
  const sessions = new SessionStore({ now, ...opts.sessions });
  const open = new Set([
    `${prefix}/api/health`,
    `${prefix}/api/login`,
    `${prefix}/api/logout`,
    `${prefix}/login`,
  ]);

  app.addHook('onRequest', async (req, reply) => {
    if (!hosts.allows(req.headers.host)) {
      return reply.code(403).send({
        ok: false,
        error: 'host: this server does not answer to that name (see --allowed-hosts)',
      });
    }
    if (STATE_CHANGING.has(req.method)) {
      const origin = req.headers.origin;
      if (origin !== undefined && origin !== `${req.protocol}://${req.headers.host ?? ''}`) {
        return reply.code(403).send({ ok: false, error: 'cross-origin request refused' });
      }
    }
    if (!opts.password) return;
    const path = req.url.split('?')[0] ?? '';
    // The UI's static bundle carries no data; the login page needs it before a session exists.
    if (open.has(path) || path.startsWith(`${prefix}/assets/`)) return;
    if (opts.ownAuthPrefixes?.some((p) => path.startsWith(p))) return;
    const auth = req.headers.authorization;
    if (auth?.startsWith('Bearer ')) {
      const client = clientOf(req);
      const wait = throttle.retryAfterMs(client);
      if (wait > 0) return tooMany(reply, wait);
      if (sameSecret(auth.slice(7), opts.password)) {
        throttle.succeed(client);
        return;
      }
      throttle.fail(client);
      return reply.code(401).send({ ok: false, error: 'authentication required' });
    }
    const token = cookieValue(req, COOKIE);
    if (token && sessions.touch(token)) return;
    if (req.method === 'GET' && !path.startsWith(`${prefix}/api/`) && path !== `${prefix}/sse`) {
      return reply.redirect(`${prefix}/login`);
    }
    return reply.code(401).send({ ok: false, error: 'authentication required' });
  });

  const admitsRead: ReadAdmission = (req) => {
    if (!hosts.allows(req.headers.host)) return false;
    if (!opts.password) return true;
    const token = cookieValue(req, COOKIE);
    return token !== null && sessions.touch(token);
  };

  if (!opts.password) return admitsRead;
  const password = opts.password;
  const cookiePath = prefix || '/';

  const loginHtml = opts.loginHtml;
  app.get(`${prefix}/login`, (_req, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(
        loginHtml ??
          `<!doctype html><meta charset="utf-8"><title>Lightnet login</title>` +
            `<form method="post" action="${prefix}/api/login"><label>Password <input type="password" name="password" autofocus></label>` +
            `<button>Log in</button></form><script>document.querySelector('form').addEventListener('submit',async e=>{e.preventDefault();` +
            `const r=await fetch(e.target.action,{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify({password:e.target.password.value})});` +
            `if(r.ok)location.href='${prefix}/';else alert('wrong password')})</script>`,
      ),
  );

  app.post(`${prefix}/api/login`, async (req, reply) => {
    const client = clientOf(req);
    const wait = throttle.retryAfterMs(client);
    if (wait > 0) return tooMany(reply, wait);
    const body = req.body as { password?: unknown } | undefined;
    const given = typeof body?.password === 'string' ? body.password : '';
    if (!sameSecret(given, password)) {
      throttle.fail(client);
      return reply.code(401).send({ ok: false, error: 'password: wrong password' });
    }
    throttle.succeed(client);
    const token = sessions.create();
    return reply
      .header(
        'Set-Cookie',
        `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=${cookiePath}; Max-Age=${sessions.maxAgeS}`,
      )
      .send({ ok: true });
  });

  app.post(`${prefix}/api/logout`, async (req, reply) => {
    const token = cookieValue(req, COOKIE);
    const ended = token ? sessions.end(token) : false;
    return reply
      .header('Set-Cookie', `${COOKIE}=; HttpOnly; SameSite=Strict; Path=${cookiePath}; Max-Age=0`)
      .send({ ok: true, ended });
  });
  return admitsRead;
}
