/**
 * Security for a host on a shared event WiFi: state-changing requests from another
 * origin are refused (CSRF), and with a password every route but health and login
 * needs the session cookie (HttpOnly, SameSite=Strict) or `Authorization: Bearer`.
 */
import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';

export interface SecurityOptions {
  password: string | null;
  /** The web UI's page for `<prefix>/login` (the UI's own login view); else a minimal form. */
  loginHtml?: string | null;
  /** Paths under this prefix authenticate themselves (the integration routes' shared secret). */
  ownAuthPrefix?: string;
}

const COOKIE = 'lightnet_session';
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
const sameSecret = (a: string, b: string): boolean => timingSafeEqual(digest(a), digest(b));

function cookieValue(req: FastifyRequest, name: string): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return null;
}

export function installSecurity(app: FastifyInstance, prefix: string, opts: SecurityOptions): void {
  const sessions = new Set<string>();
  const open = new Set([`${prefix}/api/health`, `${prefix}/api/login`, `${prefix}/login`]);

  app.addHook('onRequest', async (req, reply) => {
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
    if (opts.ownAuthPrefix && path.startsWith(opts.ownAuthPrefix)) return;
    const auth = req.headers.authorization;
    if (auth?.startsWith('Bearer ') && sameSecret(auth.slice(7), opts.password)) return;
    const token = cookieValue(req, COOKIE);
    if (token && sessions.has(token)) return;
    if (req.method === 'GET' && !path.startsWith(`${prefix}/api/`) && path !== `${prefix}/sse`) {
      return reply.redirect(`${prefix}/login`);
    }
    return reply.code(401).send({ ok: false, error: 'authentication required' });
  });

  if (!opts.password) return;
  const password = opts.password;

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
    const body = req.body as { password?: unknown } | undefined;
    const given = typeof body?.password === 'string' ? body.password : '';
    if (!sameSecret(given, password))
      return reply.code(401).send({ ok: false, error: 'password: wrong password' });
    const token = randomBytes(24).toString('hex');
    sessions.add(token);
    return reply
      .header('Set-Cookie', `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=${prefix || '/'}`)
      .send({ ok: true });
  });
}
