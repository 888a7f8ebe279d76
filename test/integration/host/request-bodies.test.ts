/**
 * Request bodies on every state-changing route (issue 35, item 7): a body that is not valid
 * JSON is a 400 naming `body`, a declared type other than JSON (text/plain, a form) is a 415
 * naming the type the route wants, and neither changes anything. What valid clients send —
 * JSON, no body at all, an empty JSON body, JSON without a content type — works as before.
 */
import { writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fleetState } from '../../../bench/fleet-state.ts';
import { serializeState } from '../../../src/state/migrations.ts';
import { testTempDir } from '../../temp-dir.ts';
import { withHost, type Harness } from '../harness.ts';
import { servedRoutes } from './served-routes.ts';

const SECRET = 'body-test-secret';
const UPLOADS = new Set(['/api/fw/upload', '/api/presets/upload', '/api/import/racelink']);
const STATE_CHANGING = ['POST', 'PUT', 'PATCH', 'DELETE'];
/**
 * FPVTrackside's push takes any body as text (the interface: answer 200 even to bodies it
 * cannot parse) and its only key is the token in its URL: without it, every body is a 401.
 */
const OWN_BODIES = new Set(['/api/timers/fpvtrackside']);

/** Every state-changing route the host serves, path parameters filled in. */
function stateChangingRoutes(h: Harness): { method: string; path: string }[] {
  return servedRoutes(h.host.app)
    .map((r) => r.split(' '))
    .filter(([method]) => STATE_CHANGING.includes(method ?? ''))
    .map(([method = '', path = '']) => ({
      method,
      path: path
        .replace(/:id\b/g, '1')
        .replace(/:mac\b/g, 'AABBCC')
        .replace(/:\w+/g, 'x'),
    }));
}

async function send(
  h: Harness,
  method: string,
  path: string,
  body: string,
  contentType: string | null,
): Promise<{ status: number; body: { ok?: boolean; error?: string } }> {
  const u = new URL(h.url + path);
  const headers: Record<string, string> = {
    'content-length': String(Buffer.byteLength(body)),
    'x-lightnet-integration': SECRET,
  };
  if (contentType !== null) headers['content-type'] = contentType;
  return new Promise((resolve, reject) => {
    const req = request(
      { host: u.hostname, port: u.port, method, path: u.pathname + u.search, headers, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as { ok?: boolean } });
          } catch {
            reject(new Error(`${method} ${path}: ${res.statusCode} answered ${text.slice(0, 200)}`));
          }
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function withoutRadioStats(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (k, v: unknown) => (k === 'stats' ? undefined : v)) as unknown;
}

/** What a refused request must not have changed. */
async function snapshot(h: Harness): Promise<unknown> {
  const lists = await Promise.all(
    ['/api/groups', '/api/scenes', '/api/native-presets', '/api/networks', '/api/console'].map(
      // The gateways' radio counters move on their own (the host's own polls of stored
      // devices go on the air while the test runs): they are traffic, not state.
      async (p) => withoutRadioStats((await h.get(p)).body),
    ),
  );
  const devices = (
    await h.get<{ devices: { addr: string; name: string; groupId: number }[] }>('/api/devices')
  ).body.devices;
  return {
    lists,
    devices: devices.map((d) => [d.addr, d.name, d.groupId]),
    task: h.host.services.tasks.current(),
  };
}

describe('request bodies', () => {
  it('every-state-changing-route-refuses-malformed-json-and-non-json-types-and-changes-nothing', async () => {
    // Stored devices and no simulated nodes: nothing on the air changes the snapshot by itself.
    const dataDir = await testTempDir('lightnet-bodies-');
    await writeFile(join(dataDir, 'state.json'), serializeState(fleetState(4, 2)));
    await withHost({ nodes: 0, dataDir, integrationSecret: SECRET }, async (h) => {
      await h.post('/api/groups/create', { name: 'Start' });
      await h.post('/api/scenes', { label: 'Go', actions: [] });
      const routes = stateChangingRoutes(h);
      // The enumeration found the routes (a broken parse would make this test vacuous).
      expect(routes.length).toBeGreaterThan(60);
      for (const r of [
        'POST /api/discover',
        'POST /api/groups/create',
        'PUT /api/integration/heat',
        'DELETE /api/scenes/x',
        'PATCH /api/networks/1',
        'POST /api/fw/upload',
      ])
        expect(routes.map((x) => `${x.method} ${x.path}`)).toContain(r);
      const before = await snapshot(h);

      for (const { method, path } of routes) {
        const wants = UPLOADS.has(path) ? 'multipart/form-data' : 'application/json';
        const where = `${method} ${path}`;
        if (OWN_BODIES.has(path)) {
          for (const [body, type] of [
            ['{"name":"x"}', 'text/plain'],
            ['name=x', 'application/x-www-form-urlencoded'],
            ['{"name":"x', 'application/json'],
          ] as const) {
            const r = await send(h, method, path, body, type);
            expect({ where, status: r.status, ok: r.body.ok }).toEqual({ where, status: 401, ok: false });
            expect(r.body.error, where).toMatch(/^token: wrong or missing/);
          }
          continue;
        }
        const plain = await send(h, method, path, '{"name":"x"}', 'text/plain');
        expect({ where, ...plain }).toEqual({
          where,
          status: 415,
          body: { ok: false, error: `content-type: expected ${wants}, got text/plain` },
        });
        const form = await send(h, method, path, 'name=x', 'application/x-www-form-urlencoded');
        expect({ where, status: form.status, error: form.body.error }).toEqual({
          where,
          status: 415,
          error: `content-type: expected ${wants}, got application/x-www-form-urlencoded`,
        });
        const broken = await send(h, method, path, '{"name":"x', 'application/json');
        if (UPLOADS.has(path)) {
          expect({ where, status: broken.status }).toEqual({ where, status: 415 });
        } else {
          expect({ where, status: broken.status, ok: broken.body.ok }).toEqual({
            where,
            status: 400,
            ok: false,
          });
          expect(broken.body.error, where).toMatch(/^body: not valid JSON \(.+\)$/);
        }
        // Without a content type the body is still JSON: malformed is malformed.
        if (!UPLOADS.has(path)) {
          const bare = await send(h, method, path, '{"name":', null);
          expect({ where, status: bare.status }).toEqual({ where, status: 400 });
          expect(bare.body.error, where).toMatch(/^body: not valid JSON/);
        }
      }
      expect(await snapshot(h)).toEqual(before);
    });
  });

  it('valid-bodies-are-read-as-before', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      // The example of the issue: a cut-off body names the body, not a missing field.
      const cut = await h.post('/api/groups/create', '{"name":"x');
      expect(cut.status).toBe(400);
      expect(cut.body.error).toMatch(/^body: not valid JSON \(/);
      expect((await h.get<{ groups: unknown[] }>('/api/groups')).body.groups).toHaveLength(1);

      // JSON with a charset, a structured +json type, no content type at all, a BOM.
      const a = await h.post('/api/groups/create', '{"name":"A"}', {
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      expect(a.body).toEqual({ ok: true, id: 1 });
      const b = await send(h, 'POST', '/api/groups/create', '{"name":"B"}', null);
      expect(b.body).toEqual({ ok: true, id: 2 });
      const c = await send(
        h,
        'POST',
        '/api/groups/rename',
        '\uFEFF{"id":2,"name":"C"}',
        'application/merge-patch+json',
      );
      expect(c.body).toEqual({ ok: true });
      // Valid JSON that is not an object stays "no fields" (convention 1), as before.
      const arr = await h.post('/api/groups/create', '[1]');
      expect(arr.body).toEqual({ ok: false, error: 'name: is required' });

      // Optional bodies: none at all, an empty JSON body, `{}` (the task must end in between).
      const none = await h.post<{ task: { id: number } }>('/api/discover');
      expect(none.status).toBe(200);
      await h.waitTask(none.body.task.id);
      const empty = await h.post<{ task: { id: number } }>('/api/discover', '');
      expect(empty.status).toBe(200);
      await h.waitTask(empty.body.task.id);
      const obj = await h.post<{ task: { id: number } }>('/api/discover', {});
      expect(obj.status).toBe(200);
      await h.waitTask(obj.body.task.id);
      // A body-less POST under a form's type is still a form: refused, nothing started.
      const emptyForm = await send(h, 'POST', '/api/discover', '', 'application/x-www-form-urlencoded');
      expect(emptyForm.status).toBe(415);

      // Upload routes want multipart, and say so when sent nothing or JSON.
      const noFile = await send(h, 'POST', '/api/fw/upload', '', null);
      expect(noFile.body).toEqual({
        ok: false,
        error: 'content-type: expected multipart/form-data, got none',
      });
      const json = await h.post('/api/presets/upload', { file: 'x' });
      expect(json.status).toBe(415);
      expect(json.body.error).toBe('content-type: expected multipart/form-data, got application/json');

      // An unknown path or method is still a 404 / 405, whatever the body.
      expect((await send(h, 'POST', '/api/nope', 'x', 'text/plain')).status).toBe(404);
      expect((await send(h, 'PUT', '/api/discover', 'x', 'text/plain')).status).toBe(405);
    });
  });

  it('login-reads-json-only-too', async () => {
    await withHost({ nodes: 0, password: 'pw' }, async (h) => {
      const form = await send(h, 'POST', '/api/login', 'password=pw', 'application/x-www-form-urlencoded');
      expect(form.body).toEqual({
        ok: false,
        error: 'content-type: expected application/json, got application/x-www-form-urlencoded',
      });
      const broken = await send(h, 'POST', '/api/login', '{"password":"pw', 'application/json');
      expect(broken.status).toBe(400);
      const ok = await send(h, 'POST', '/api/login', '{"password":"pw"}', 'application/json');
      expect(ok.status).toBe(200);
    });
  });
});
