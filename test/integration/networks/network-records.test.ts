import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withHost, type Harness } from '../harness.ts';
import { runTask } from '../host/helpers.ts';

interface Row {
  id: number;
  name: string;
  state: string;
  region: string | null;
  channel_id: number | null;
  channel_name: string | null;
  migration: unknown;
  conflict: unknown;
  rf: { freqHz: number } | null;
  device_count: number;
}
interface Channel {
  id: number;
  freq_hz: number;
  occupied_by: { id: number; name: string } | null;
}

const list = async (h: Harness): Promise<Row[]> =>
  (await h.get<{ networks: Row[] }>('/api/networks')).body.networks;
const del = async (h: Harness, path: string): Promise<{ status: number; body: Record<string, unknown> }> => {
  const res = await fetch(h.url + path, { method: 'DELETE' });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('network records: the channel plan, create, rename, delete', () => {
  it('channels-show-who-occupies-them-a-too-close-network-is-refused-naming-both-and-records-survive-a-restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-nets-'));
    try {
      await withHost({ nodes: 2, dataDir }, async (h) => {
        const [one] = await list(h);
        // Network 1 learned the simulated gateway's settings: the firmware's default channel.
        expect(one).toMatchObject({
          id: 1,
          state: 'ready',
          region: 'EU868',
          channel_id: 1,
          channel_name: 'Default',
          migration: null,
          conflict: null,
        });
        const ch = await h.get<{ regions: Record<string, Channel[]>; rule: { min_separation_hz: number } }>(
          '/api/channels',
        );
        expect(ch.status).toBe(200);
        expect(Object.keys(ch.body.regions)).toEqual(['EU868', 'US915']);
        expect(ch.body.regions.EU868?.map((c) => c.id)).toEqual([1, 2, 3, 4, 5]);
        expect(ch.body.regions.EU868?.[0]?.occupied_by).toEqual({ id: 1, name: 'Network 1' });
        expect(ch.body.regions.EU868?.[1]?.occupied_by).toBeNull();
        expect(ch.body.rule.min_separation_hz).toBe(500_000);

        const sse = await h.sse('console=1');
        // Same channel as network 1: refused, naming both networks.
        const same = await h.post('/api/networks', { name: 'Track B', region: 'EU868', channel_id: 1 });
        expect(same.status).toBe(400);
        expect(same.body.error).toMatch(/Track B.*Network 1/);
        // 300 kHz away is still too close.
        const close = await h.post('/api/networks', {
          name: 'Track B',
          rf: { ...one!.rf, freqHz: 868_000_000 },
        });
        expect(close.status).toBe(400);
        expect(close.body.error).toMatch(/Track B.*Network 1.*300 kHz apart/);
        // Bad input names the field.
        for (const [body, field] of [
          [{ name: '' }, /name/],
          [{ name: 'x', colour: 1 }, /colour: unknown field/],
          [{ name: 'x', region: 'EU433' }, /region/],
          [{ name: 'x', region: 'EU868', channel_id: 9 }, /channel_id/],
          [{ name: 'x', rf: { ...one!.rf, sf: 13 } }, /rf\.sf/],
          [{ name: 'x', channel_id: 2 }, /region: is required/],
          [{ name: 'network 1' }, /name: .*Network 1/],
        ] as const) {
          const r = await h.post('/api/networks', body);
          expect(r.status, JSON.stringify(body)).toBe(400);
          expect(r.body).toMatchObject({ ok: false });
          expect(String(r.body.error)).toMatch(field);
        }
        const created = await h.post<{ network: Row }>('/api/networks', {
          name: 'Track B',
          region: 'EU868',
          channel_id: 2,
        });
        expect(created.status).toBe(200);
        expect(created.body.network).toMatchObject({
          id: 2,
          name: 'Track B',
          state: 'no_gateway',
          channel_id: 2,
          rf: { freqHz: 868_200_000 },
        });
        await sse.waitFor('refresh', (d) => (d as { what: string[] }).what.includes('networks'));
        await sse.waitFor('networks', (d) => (d as { networks: Row[] }).networks.length === 2);
        // Only the region: the first free channel (3: 2 is taken, 868.7 MHz).
        const auto = await h.post<{ network: Row }>('/api/networks', { name: 'Pit', region: 'EU868' });
        expect(auto.body.network).toMatchObject({ id: 3, channel_id: 3 });
        const taken = (await h.get<{ regions: Record<string, Channel[]> }>('/api/channels')).body.regions
          .EU868;
        expect(taken?.map((c) => c.occupied_by?.name ?? null)).toEqual([
          'Network 1',
          'Track B',
          'Pit',
          null,
          null,
        ]);

        const renamed = await h.patch<{ network: Row }>('/api/networks/2', { name: '  Track C ' });
        expect(renamed.body.network).toMatchObject({ id: 2, name: 'Track C' });
        expect((await h.patch('/api/networks/2', { name: 'PIT' })).status).toBe(400);
        expect((await h.patch('/api/networks/99', { name: 'x' })).status).toBe(404);
        expect((await h.patch('/api/networks/abc', { name: 'x' })).status).toBe(400);

        // Network 1 has devices and its gateway: 409 saying why.
        await runTask(h, '/api/discover', {});
        const busy = await del(h, '/api/networks/1');
        expect(busy.status).toBe(409);
        expect(busy.body).toMatchObject({ ok: false, code: 'network_in_use' });
        expect(String(busy.body.error)).toMatch(/Network 1 still has \d+ device/);
        expect((await del(h, '/api/networks/3')).status).toBe(200);
        expect((await del(h, '/api/networks/3')).status).toBe(404);
      });
      // Everything above was on disk before each 200.
      await withHost({ nodes: 2, dataDir }, async (h) => {
        const rows = await list(h);
        expect(rows.map((r) => [r.id, r.name, r.rf?.freqHz])).toEqual([
          [1, 'Network 1', 867_700_000],
          [2, 'Track C', 868_200_000],
        ]);
        // Ids are never reused.
        const again = await h.post<{ network: Row }>('/api/networks', { name: 'Again', region: 'US915' });
        expect(again.body.network.id).toBe(4);
        expect((await del(h, '/api/networks/4')).status).toBe(200);
        expect((await del(h, '/api/networks/2')).status).toBe(200);
      });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('the-last-network-cannot-be-deleted', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      // Released first, so only "last one" stands in the way.
      const mac = (await h.get<{ networks: { gateway_mac: string }[] }>('/api/networks')).body.networks[0]!
        .gateway_mac;
      expect((await h.post(`/api/gateways/${mac}/release`)).status).toBe(200);
      const last = await del(h, '/api/networks/1');
      expect(last.status).toBe(400);
      expect(String(last.body.error)).toMatch(/only network/);
    });
  });
});
