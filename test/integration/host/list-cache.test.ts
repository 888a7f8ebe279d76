/**
 * The device and group lists are served from serialised caches. After every kind of
 * change (discovery, rename, group moves, status replies, offline marks, control ACKs,
 * group rename/delete, reload, a reboot announcement) the served bytes must equal a
 * freshly built answer, and ETag / compression must describe those same bytes.
 */
import http from 'node:http';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { withHost, type Harness } from '../harness.ts';
import { devices, discoverAll, runTask, simAddrs } from './helpers.ts';

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A GET that leaves the bytes alone (fetch would decompress them). */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      })
      .on('error', reject);
  });
}

function fresh(h: Harness): { devices: string; groups: string } {
  const s = h.host.services;
  return {
    devices: JSON.stringify({ ok: true, devices: s.registry.rows() }),
    groups: JSON.stringify({ ok: true, groups: s.groups.rows() }),
  };
}

/**
 * Compares served and freshly built bytes. The simulated radio keeps running, so a
 * comparison during which the store changed is repeated rather than judged.
 */
async function expectCacheFresh(h: Harness, label: string): Promise<void> {
  let changes = 0;
  const off = h.host.services.store.onChange(() => changes++);
  try {
    for (let attempt = 0; attempt < 50; attempt++) {
      const before = changes;
      const d = await rawGet(`${h.url}/api/devices`);
      const g = await rawGet(`${h.url}/api/groups`);
      const want = fresh(h);
      if (changes !== before) continue;
      expect(d.body.toString('utf8'), `${label}: devices`).toBe(want.devices);
      expect(g.body.toString('utf8'), `${label}: groups`).toBe(want.groups);
      expect(d.headers['content-type']).toBe('application/json; charset=utf-8');
      return;
    }
    throw new Error(`${label}: the state never held still for a comparison`);
  } finally {
    off();
  }
}

describe('serialised list cache', () => {
  it('cached-lists-equal-fresh-ones-after-every-kind-of-change', async () => {
    await withHost({ nodes: 8 }, async (h) => {
      await expectCacheFresh(h, 'empty');
      await discoverAll(h);
      await expectCacheFresh(h, 'discovered');
      const [a, b, c, d] = simAddrs(h) as [string, string, string, string];

      expect((await h.post('/api/devices/update-meta', { macs: [a], name: 'Gate A' })).status).toBe(200);
      await expectCacheFresh(h, 'rename');
      // Rows are written into the body by their UTF-8 length: names beyond ASCII.
      expect((await h.post('/api/devices/update-meta', { macs: [d], name: 'Tor Ü – 🏁' })).status).toBe(200);
      await expectCacheFresh(h, 'rename beyond ascii');

      await h.post('/api/groups/create', { name: 'Start' });
      await h.post('/api/groups/create', { name: 'Finish' });
      await runTask(h, '/api/devices/update-meta', { macs: [a, b], groupId: 1 });
      await runTask(h, '/api/devices/update-meta', { macs: [c], groupId: 2 });
      await expectCacheFresh(h, 'group moves');

      await runTask(h, '/api/status', {});
      await expectCacheFresh(h, 'status replies');

      h.host.sim?.fleet.node(d)?.powerOff();
      await runTask(h, '/api/status', { macs: [d] });
      expect((await devices(h)).find((x) => x.addr === d)?.online).toBe(false);
      await expectCacheFresh(h, 'offline mark');

      expect(
        (await h.post('/api/devices/control', { groupId: 1, flags: 1, presetId: 3, brightness: 9 })).status,
      ).toBe(200);
      await expectCacheFresh(h, 'control acks');

      await h.post('/api/groups/rename', { id: 2, name: 'Goal' });
      await expectCacheFresh(h, 'group rename');
      const del = await h.post<{ task: { id: number } | null }>('/api/groups/delete', { id: 1 });
      if (del.body.task) await h.waitTask(del.body.task.id);
      await expectCacheFresh(h, 'group delete');

      // The host owns state.json while it runs: an idle compaction that fires between our
      // edit and the reload rewrites it (on a loaded machine that window is real). Such a
      // rewrite is seen by its new text; then the edit is made again.
      const file = join(h.dataDir, 'state.json');
      for (let attempt = 0; ; attempt++) {
        await h.post('/api/save');
        const state = JSON.parse(await readFile(file, 'utf8')) as {
          devices: { addr: string; name: string }[];
        };
        for (const dev of state.devices) if (dev.addr === b) dev.name = 'Edited on disk';
        const edited = JSON.stringify(state);
        await writeFile(file, edited);
        await h.post('/api/reload');
        const name = (await devices(h)).find((x) => x.addr === b)?.name;
        if (name === 'Edited on disk' || attempt === 2) {
          expect(name).toBe('Edited on disk');
          break;
        }
        // Not picked up: only acceptable when the file was rewritten under us.
        expect(await readFile(file, 'utf8')).not.toBe(edited);
      }
      await expectCacheFresh(h, 'reload');

      // A boot announcement: the device is heard again and gets its group pushed.
      h.host.sim?.fleet.node(d)?.powerOn(0);
      for (let i = 0; i < 200 && !(await devices(h)).find((x) => x.addr === d)?.online; i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      await expectCacheFresh(h, 'announcement');
    });
  });

  it('etag-answers-304-and-changes-with-the-content', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      for (const path of ['/api/devices', '/api/groups']) {
        const first = await rawGet(h.url + path);
        const etag = String(first.headers.etag);
        expect(etag).toMatch(/^W\/".+"$/);
        expect(first.headers['cache-control']).toBe('no-cache');
        const again = await rawGet(h.url + path, { 'if-none-match': etag });
        expect(again.status).toBe(304);
        expect(again.body.length).toBe(0);
        expect(again.headers.etag).toBe(etag);
        const listed = await rawGet(h.url + path, { 'if-none-match': `"other", ${etag}` });
        expect(listed.status).toBe(304);
        expect((await rawGet(h.url + path, { 'if-none-match': '"other"' })).status).toBe(200);
      }
      const before = String((await rawGet(`${h.url}/api/groups`)).headers.etag);
      await h.post('/api/groups/create', { name: 'New' });
      const after = await rawGet(`${h.url}/api/groups`, { 'if-none-match': before });
      expect(after.status).toBe(200);
      expect(after.headers.etag).not.toBe(before);
      expect(JSON.parse(after.body.toString('utf8')).groups).toHaveLength(2);
    });
  });

  it('large-lists-are-compressed-when-the-client-asks-small-ones-are-not', async () => {
    await withHost({ nodes: 12 }, async (h) => {
      await discoverAll(h);
      const plain = await rawGet(`${h.url}/api/devices`);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers.vary).toMatch(/accept-encoding/i);
      const gz = await rawGet(`${h.url}/api/devices`, { 'accept-encoding': 'gzip, deflate' });
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
      expect(gz.body.length).toBeLessThan(plain.body.length / 3);
      const br = await rawGet(`${h.url}/api/devices`, { 'accept-encoding': 'gzip;q=0.5, br' });
      expect(br.headers['content-encoding']).toBe('br');
      expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
      // Requests that arrive while a variant is being compressed (off the event loop) share it.
      expect(
        (await h.post('/api/devices/update-meta', { macs: simAddrs(h).slice(0, 1), name: 'Changed' })).status,
      ).toBe(200);
      const fresh = await rawGet(`${h.url}/api/devices`);
      const together = await Promise.all(
        [1, 2, 3].map(() => rawGet(`${h.url}/api/devices`, { 'accept-encoding': 'br' })),
      );
      for (const t of together) {
        expect(t.headers['content-encoding']).toBe('br');
        expect(t.headers.etag).toBe(fresh.headers.etag);
        expect(brotliDecompressSync(t.body).equals(fresh.body)).toBe(true);
      }
      const refused = await rawGet(`${h.url}/api/devices`, { 'accept-encoding': 'br;q=0, gzip;q=0' });
      expect(refused.headers['content-encoding']).toBeUndefined();
      expect(refused.body.equals(fresh.body)).toBe(true);
      // The group list of a small fleet is under the threshold: sent as it is.
      const groups = await rawGet(`${h.url}/api/groups`, { 'accept-encoding': 'gzip' });
      expect(groups.body.length).toBeLessThan(1024);
      expect(groups.headers['content-encoding']).toBeUndefined();
    });
  });
});
