/**
 * The fast read path (http/fast-reads.ts) answers plain GETs of the cached answers before
 * Fastify. It must give exactly what the Fastify route gives (status, bytes, ETag, encoding,
 * caching headers), and it must never let through what the security hook refuses: an
 * unknown Host, a missing or ended session.
 */
import { describe, expect, it } from 'vitest';
import { rawGet, type RawBytes } from './raw-http.ts';
import { withHost, type Harness } from '../harness.ts';

const ROUTES = [
  '/api/devices',
  '/api/groups',
  '/api/scenes/editor-schema',
  '/api/native-presets/schema',
  '/api/specials',
];
const COMPARED = ['content-type', 'content-encoding', 'etag', 'vary', 'cache-control'] as const;

/** One GET through the fast path (exact path) and one through Fastify (a query string). */
async function both(
  h: Harness,
  route: string,
  headers: Record<string, string>,
): Promise<[RawBytes, RawBytes]> {
  const before = h.host.fastReads.served;
  const fast = await rawGet(h.url + route, headers);
  expect(h.host.fastReads.served, `${route} took the fast path`).toBe(before + 1);
  const slow = await rawGet(`${h.url}${route}?via=fastify`, headers);
  expect(h.host.fastReads.served, `${route}?… took Fastify`).toBe(before + 1);
  return [fast, slow];
}

describe('fast read path', () => {
  it('answers-exactly-what-the-fastify-route-answers', async () => {
    await withHost({ nodes: 3 }, async (h) => {
      await h.post('/api/groups', { name: 'Track' });
      for (const route of ROUTES) {
        const etag = String((await rawGet(h.url + route)).headers.etag);
        const variants: Record<string, string>[] = [
          {},
          { 'accept-encoding': 'gzip' },
          { 'accept-encoding': 'br, gzip' },
          { 'if-none-match': etag },
        ];
        for (const headers of variants) {
          const [fast, slow] = await both(h, route, headers);
          const what = `${route} ${JSON.stringify(headers)}`;
          expect(fast.status, what).toBe(slow.status);
          expect(fast.body.equals(slow.body), what).toBe(true);
          for (const k of COMPARED) expect(fast.headers[k], `${what} ${k}`).toBe(slow.headers[k]);
          if (fast.status === 200) expect(Number(fast.headers['content-length'])).toBe(fast.body.length);
        }
      }
    });
  });

  it('refuses-what-the-security-hook-refuses', async () => {
    await withHost({ nodes: 1, password: 's3cret' }, async (h) => {
      const served = (): number => h.host.fastReads.served;
      const denied = await rawGet(h.url + '/api/specials');
      expect(denied.status).toBe(401);
      expect(JSON.parse(denied.body.toString('utf8'))).toEqual({
        ok: false,
        error: 'authentication required',
      });
      const login = await h.post('/api/login', { password: 's3cret' });
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      expect((await rawGet(h.url + '/api/specials', { cookie })).status).toBe(200);
      expect(served()).toBe(1);
      const rebound = await rawGet(h.url + '/api/specials', { cookie, host: 'evil.example' });
      expect(rebound.status).toBe(403);
      // A Bearer token goes through the hook (it counts towards the login throttle).
      const bearer = await rawGet(h.url + '/api/specials', { authorization: 'Bearer s3cret' });
      expect(bearer.status).toBe(200);
      expect(served()).toBe(1);
      await h.post('/api/logout', {}, { headers: { cookie } });
      expect((await rawGet(h.url + '/api/specials', { cookie })).status).toBe(401);
      expect(served()).toBe(1);
    });
  });
});
