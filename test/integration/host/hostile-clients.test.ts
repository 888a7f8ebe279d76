/**
 * Hostile clients through real HTTP: DNS rebinding, password guessing, malformed
 * cookies, session lifetime, slow bodies, connection floods and what Node's parser
 * refuses before a route runs. Every refusal is JSON `{ok:false, error}`.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withHost, type Harness } from '../harness.ts';
import { openSocket, parseRaw, rawRequest, readUntilClose } from './raw-http.ts';
import { testTempDir } from '../../temp-dir.ts';

const api = (h: Harness, path: string): string => new URL(h.url).pathname + path;
const port = (h: Harness): string => new URL(h.url).port;

describe('hostile clients', () => {
  it('dns-rebinding-host-names-are-refused-and-own-names-served', async () => {
    await withHost({ nodes: 1, allowedHosts: ['timer.example.org', '*.track.lan'] }, async (h) => {
      const p = port(h);
      const evil = { host: `evil.example:${p}`, origin: `http://evil.example:${p}` };
      const post = await rawRequest(h.url, {
        method: 'POST',
        path: api(h, '/api/groups/create'),
        headers: evil,
        body: '{"name":"pwned"}',
      });
      expect(post.status).toBe(403);
      expect(post.json).toMatchObject({ ok: false, error: expect.stringMatching(/^host: /) });
      const get = await rawRequest(h.url, { path: api(h, '/api/devices'), headers: { host: evil.host } });
      expect(get.status).toBe(403);
      expect(get.json?.ok).toBe(false);
      expect((await h.get<{ groups: unknown[] }>('/api/groups')).body.groups).toHaveLength(1);

      for (const host of [
        `localhost:${p}`,
        `127.0.0.1:${p}`,
        `[::1]:${p}`,
        `192.0.2.77:${p}`,
        `timer.example.org:${p}`,
        `Pit.Track.Lan:5000`,
      ]) {
        const ok = await rawRequest(h.url, { path: api(h, '/api/groups'), headers: { host } });
        expect(ok.status, host).toBe(200);
      }
      for (const host of ['track.lan', 'timer.example.org.evil.example', 'a b']) {
        const bad = await rawRequest(h.url, { path: api(h, '/api/groups'), headers: { host } });
        expect(bad.status, host).toBe(403);
      }
      // A proxy that keeps the browser's Host and Origin (the timing application's plugin).
      const proxied = await rawRequest(h.url, {
        method: 'POST',
        path: api(h, '/api/groups/create'),
        headers: { host: 'timer.example.org:5000', origin: 'http://timer.example.org:5000' },
        body: '{"name":"via proxy"}',
      });
      expect(proxied.status).toBe(200);
    });
  });

  it('password-guessing-is-throttled-with-backoff-and-retry-after', async () => {
    let now = 1_000_000;
    const http = { now: () => now };
    await withHost({ nodes: 0, password: 's3cret', overrides: { http } }, async (h) => {
      for (let i = 1; i <= 5; i++) {
        const r = await h.post('/api/login', { password: `guess${i}` });
        expect(r.status, `attempt ${i}`).toBe(401);
      }
      const locked = await h.post('/api/login', { password: 's3cret' });
      expect(locked.status).toBe(429);
      expect(locked.headers.get('retry-after')).toBe('1');
      expect(locked.body).toMatchObject({ ok: false, error: expect.stringMatching(/retry in 1 s/) });
      // Bearer guesses share the budget.
      const bearer = await h.get('/api/devices', { headers: { authorization: 'Bearer s3cret' } });
      expect(bearer.status).toBe(429);

      now += 1000;
      expect((await h.post('/api/login', { password: 'wrong again' })).status).toBe(401);
      const doubled = await h.post('/api/login', { password: 's3cret' });
      expect(doubled.status).toBe(429);
      expect(doubled.headers.get('retry-after')).toBe('2');

      now += 2000;
      const ok = await h.post('/api/login', { password: 's3cret' });
      expect(ok.status).toBe(200);
      // A success clears the record: the next typo is free again.
      expect((await h.post('/api/login', { password: 'typo' })).status).toBe(401);
      expect((await h.post('/api/login', { password: 's3cret' })).status).toBe(200);
    });
  });

  it('malformed-session-cookie-is-a-401-not-a-500', async () => {
    await withHost({ nodes: 0, password: 's3cret' }, async (h) => {
      for (const cookie of ['lightnet_session=%E0%A4%A', 'lightnet_session=', 'lightnet_session', '=;;=%']) {
        const r = await h.get('/api/devices', { headers: { cookie } });
        expect(r.status, cookie).toBe(401);
        expect(r.body).toEqual({ ok: false, error: 'authentication required' });
      }
    });
    await withHost({ nodes: 0 }, async (h) => {
      const r = await h.get('/api/devices', { headers: { cookie: 'lightnet_session=%E0%A4%A' } });
      expect(r.status).toBe(200);
    });
  });

  it('sessions-expire-when-idle-and-logout-ends-them', async () => {
    let now = 5_000_000;
    const http = { now: () => now, sessions: { idleMs: 60_000, lifetimeMs: 300_000 } };
    await withHost({ nodes: 0, password: 's3cret', overrides: { http } }, async (h) => {
      const login = async (): Promise<string> => {
        const r = await h.post('/api/login', { password: 's3cret' });
        expect(r.status).toBe(200);
        const set = r.headers.get('set-cookie') ?? '';
        expect(set).toMatch(/Max-Age=300/);
        return set.split(';')[0] ?? '';
      };
      const use = async (cookie: string): Promise<number> =>
        (await h.get('/api/devices', { headers: { cookie } })).status;

      const a = await login();
      now += 59_000;
      expect(await use(a)).toBe(200);
      now += 59_000; // used a minute ago: still alive
      expect(await use(a)).toBe(200);
      now += 60_000; // idle for a minute: gone
      expect(await use(a)).toBe(401);

      const b = await login();
      for (let i = 0; i < 5; i++) {
        now += 50_000;
        expect(await use(b)).toBe(200);
      }
      now += 50_000; // 300 s after login, used 50 s ago: the absolute lifetime ends it
      expect(await use(b)).toBe(401);

      const c = await login();
      expect(await use(c)).toBe(200);
      const out = await h.post('/api/logout', undefined, { headers: { cookie: c } });
      expect(out.status).toBe(200);
      expect(out.body).toEqual({ ok: true, ended: true });
      expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/);
      expect(await use(c)).toBe(401);
    });
  });

  it('a-body-that-never-finishes-is-answered-408-and-closed', async () => {
    const http = { limits: { bodyTimeoutMs: 300 } };
    await withHost({ nodes: 0, overrides: { http } }, async (h) => {
      const s = await openSocket(h.url);
      const closed = readUntilClose(s);
      s.write(
        `POST ${api(h, '/api/groups/create')} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
          'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":',
      );
      const answer = parseRaw(await closed);
      expect(answer.status).toBe(408);
      expect(answer.json).toEqual({ ok: false, error: 'body: not received within 1 s' });
      expect((await h.get<{ groups: unknown[] }>('/api/groups')).body.groups).toHaveLength(1);
    });
  });

  it('connections-per-client-are-capped', async () => {
    const http = { limits: { maxConnectionsPerClient: 3, exemptLoopback: false } };
    await withHost({ nodes: 0, overrides: { http } }, async (h) => {
      const held = [await openSocket(h.url), await openSocket(h.url), await openSocket(h.url)];
      const extra = await openSocket(h.url);
      const refused = parseRaw(await readUntilClose(extra));
      expect(refused.status).toBe(429);
      expect(refused.json).toEqual({ ok: false, error: 'connections: at most 3 at once per client' });
      // The held connections still work.
      const first = held[0]!;
      const answer = readUntilClose(first);
      first.write(`GET ${api(h, '/api/health')} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
      expect(parseRaw(await answer).status).toBe(200);
      for (const s of held) s.destroy();
    });
  });

  it('router-and-parser-errors-are-json', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      const long = 'k'.repeat(2000);
      for (const method of ['PUT', 'DELETE', 'POST']) {
        const path = api(h, method === 'POST' ? `/api/scenes/${long}/duplicate` : `/api/scenes/${long}`);
        const r = await rawRequest(h.url, { method, path, body: '{}' });
        expect(r.status, `${method} ${r.body}`).toBe(404);
        expect(r.json?.ok, method).toBe(false);
      }
      const tooLong = await rawRequest(h.url, {
        method: 'DELETE',
        path: api(h, `/api/scenes/${'k'.repeat(3000)}`),
      });
      expect(tooLong.status).toBe(414);
      expect(tooLong.json).toMatchObject({ ok: false, error: expect.stringMatching(/^url: /) });
      const badUrl = await rawRequest(h.url, { path: api(h, '/api/scenes/%E0%A4%A') });
      expect(badUrl.status).toBe(400);
      expect(badUrl.json).toMatchObject({ ok: false, error: expect.stringMatching(/^url: /) });
      const bigHeader = await rawRequest(h.url, {
        path: api(h, '/api/health'),
        headers: { 'x-big': 'b'.repeat(20_000) },
      });
      expect(bigHeader.status).toBe(431);
      expect(bigHeader.json).toMatchObject({ ok: false });
      const hugeUrl = await rawRequest(h.url, { path: api(h, `/api/scenes/${'u'.repeat(70_000)}`) });
      expect(hugeUrl.status).toBe(414);
      expect(hugeUrl.json).toEqual({ ok: false, error: 'url: too long' });
      const s = await openSocket(h.url);
      const garbage = readUntilClose(s);
      s.write('NOT HTTP AT ALL\r\n\r\n');
      const g = parseRaw(await garbage);
      expect(g.status).toBe(400);
      expect(g.json).toMatchObject({ ok: false });
    });
  });

  it('health-keeps-the-state-file-warning-without-its-content', async () => {
    const dataDir = await testTempDir('lightnet-health-');
    await withHost({ nodes: 0, dataDir }, async (h) => {
      await h.post('/api/groups/create', { name: 'First' });
      await h.post('/api/save');
      await h.post('/api/groups/create', { name: 'Second' });
      await h.post('/api/save');
    });
    await writeFile(join(dataDir, 'state.json'), '{"schema_version":2,"secret":"hunter2-wifi-password" x');
    await withHost({ nodes: 0, dataDir }, async (h) => {
      const health = await h.get<{ warnings: string[] }>('/api/health');
      const text = health.body.warnings.join(' ');
      expect(text).toMatch(/state\.json is corrupt.*restored from the backup/);
      expect(text).not.toMatch(/hunter2|schema_version|JSON/);
    });
  });
});
