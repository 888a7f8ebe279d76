import { describe, expect, it } from 'vitest';
import { withHost } from '../harness.ts';

describe('security', () => {
  it('cross-origin-state-changing-requests-are-refused', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      const evil = await h.post(
        '/api/groups/create',
        { name: 'x' },
        { headers: { origin: 'http://evil.example' } },
      );
      expect(evil.status).toBe(403);
      expect(evil.body).toEqual({ ok: false, error: 'cross-origin request refused' });
      expect((await h.get('/api/groups')).body.groups).toHaveLength(1);
      const own = new URL(h.url).origin;
      const ok = await h.post('/api/groups/create', { name: 'x' }, { headers: { origin: own } });
      expect(ok.status).toBe(200);
    });
  });

  it('password-protects-everything-but-health', async () => {
    await withHost({ nodes: 1, password: 's3cret' }, async (h) => {
      expect((await h.get('/api/health')).status).toBe(200);
      const denied = await h.get('/api/devices');
      expect(denied.status).toBe(401);
      expect(denied.body).toEqual({ ok: false, error: 'authentication required' });
      const bearer = await h.get('/api/devices', { headers: { authorization: 'Bearer s3cret' } });
      expect(bearer.status).toBe(200);
      const wrong = await h.post('/api/login', { password: 'nope' });
      expect(wrong.status).toBe(401);
      const login = await h.post('/api/login', { password: 's3cret' });
      expect(login.status).toBe(200);
      const cookie = login.headers.get('set-cookie') ?? '';
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Strict/);
      const withCookie = await h.get('/api/devices', { headers: { cookie: cookie.split(';')[0] ?? '' } });
      expect(withCookie.status).toBe(200);
      const sse = await fetch(h.url + '/sse');
      expect(sse.status).toBe(401);
    });
  });
});
