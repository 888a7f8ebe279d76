/**
 * Details a strict contract client checks: the WiFi root aliases of fw/start and the
 * empty SSID list, native-preset flag bits, the scene run's per-action `error`, and
 * which names are accepted.
 */
import { describe, expect, it } from 'vitest';
import { withHost, type Harness } from '../harness.ts';
import { makeFirmware, multipartBody } from '../../fixtures/ota/builders.ts';
import { discoverAll } from './helpers.ts';

async function uploadFirmware(h: Harness): Promise<string> {
  const { body, contentType } = multipartBody([
    { name: 'kind', value: 'firmware' },
    { name: 'file', filename: 'fw.bin', data: makeFirmware() },
  ]);
  const res = await fetch(h.url + '/api/fw/upload', {
    method: 'POST',
    headers: { 'content-type': contentType },
    body,
  });
  const json = (await res.json()) as { file: { id: string } };
  expect(res.status).toBe(200);
  return json.file.id;
}

describe('contract details', () => {
  it('fw-start-refuses-an-empty-ssid-list-however-it-is-given', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      const [dev] = await discoverAll(h);
      const fwId = await uploadFirmware(h);
      const base = { macs: [dev!.addr], fwId };
      for (const wifi of [
        { wifiSsids: [] },
        { wifiSsids: '' },
        { wifiSsid: ' , ' },
        { wifi: { ssids: [] } },
        { wifi: { ssid: '' } },
      ]) {
        const r = await h.post('/api/fw/start', { ...base, ...wifi });
        expect(r.status, JSON.stringify(wifi)).toBe(400);
        expect(r.body.error, JSON.stringify(wifi)).toMatch(/^wifi\.ssids: at least one SSID/);
      }
      const bad = await h.post('/api/fw/start', { ...base, wifiHostWifiEnable: 'yes' });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatch(/^wifiHostWifiEnable: /);
      // Nothing started: the latest task is still the discovery.
      expect((await h.get<{ task: { name: string } }>('/api/task')).body.task.name).toBe('discover');
    });
  });

  it('native-preset-flags-ignore-bits-outside-the-user-flags', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      const a = await h.post<{ preset: { key: string; flags: number } }>('/api/native-presets', {
        label: 'From file',
        flags: 0x27,
      });
      expect(a.status).toBe(200);
      expect(a.body.preset.flags).toBe(0x22);
      const b = await h.post<{ preset: { flags: number } }>('/api/native-presets', {
        label: 'Power',
        flags: 1,
      });
      expect(b.status).toBe(200);
      expect(b.body.preset.flags).toBe(0);
      const put = await fetch(`${h.url}/api/native-presets/${a.body.preset.key}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ flags: 5 }),
      });
      expect(put.status).toBe(200);
      expect(((await put.json()) as { preset: { flags: number } }).preset.flags).toBe(0);
    });
  });

  it('scene-run-result-carries-error-null-for-actions-that-succeeded', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      const r = await h.post<{ result: { ok: boolean; error: unknown; actions: Record<string, unknown>[] } }>(
        '/api/scenes/draft/run',
        { actions: [{ kind: 'delay', duration_ms: 5 }] },
      );
      expect(r.status).toBe(200);
      expect(r.body.result.ok).toBe(true);
      expect(r.body.result.error).toBeNull();
      expect(r.body.result.actions[0]).toMatchObject({ ok: true, error: null });
      expect('error' in (r.body.result.actions[0] ?? {})).toBe(true);
    });
  });

  it('names-refuse-control-and-direction-characters-and-count-code-points', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      const refused: [string, RegExp][] = [
        ['a\u0000b', /control characters/],
        ['bell\u0007', /control characters/],
        ['line\nbreak', /control characters/],
        ['\u0085next', /control characters/],
        ['gate\u202Enib.exe', /text-direction/],
        ['iso\u2067late', /text-direction/],
        ['half \ud83d', /lone surrogate/],
        ['\udc00 tail', /lone surrogate/],
        ['🏁'.repeat(65), /at most 64 characters/],
      ];
      for (const [name, why] of refused) {
        const r = await h.post('/api/groups/create', { name });
        expect(r.status, JSON.stringify(name)).toBe(400);
        expect(r.body.error, JSON.stringify(name)).toMatch(/^name: /);
        expect(r.body.error, JSON.stringify(name)).toMatch(why);
      }
      const flags = await h.post<{ id: number }>('/api/groups/create', { name: '🏁'.repeat(64) });
      expect(flags.status).toBe(200);
      const accents = await h.post('/api/groups/create', { name: 'Zieleinlauf – Süd 🚦' });
      expect(accents.status).toBe(200);
      const label = await h.post('/api/scenes', { label: 'Start\u202E', actions: [] });
      expect(label.status).toBe(400);
      expect(label.body.error).toMatch(/^label: must not contain text-direction/);
      const preset = await h.post('/api/native-presets', { label: 'x\u0000' });
      expect(preset.status).toBe(400);
      expect(preset.body.error).toMatch(/^label: must not contain control/);
    });
  });
});
