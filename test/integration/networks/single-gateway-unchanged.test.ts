import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withHost } from '../harness.ts';
import { runTask } from '../host/helpers.ts';

/**
 * The field sets of the contract's gateway, master, device and group answers, captured
 * from the build before networks existed (same scenario). With one gateway they must stay
 * exactly these; a device row only gains `network_id`.
 */
const golden = JSON.parse(
  readFileSync(new URL('../../fixtures/networks/single-gateway-fields.json', import.meta.url), 'utf8'),
) as Record<string, Record<string, string[]>>;

const keys = (o: unknown): string[] => Object.keys(o as object).sort();
type Body = Record<string, unknown> & {
  gateway: Record<string, unknown> & { stats: object };
  master: object;
  devices: object[];
  groups: object[];
};

describe('one gateway: the contract answers are what they were', () => {
  it('gateway-master-devices-groups-have-exactly-todays-fields', async () => {
    await withHost({ nodes: 4 }, async (h) => {
      await runTask(h, '/api/discover', { newGroupName: 'A' });
      const gw = (await h.get<Body>('/api/gateway')).body;
      const m = (await h.get<Body>('/api/master')).body;
      const d = (await h.get<Body>('/api/devices')).body;
      const g = (await h.get<Body>('/api/groups')).body;
      expect({ top: keys(gw), gateway: keys(gw.gateway), stats: keys(gw.gateway.stats) }).toEqual(
        golden.gateway,
      );
      expect({ top: keys(m), master: keys(m.master), gateway: keys(m.gateway) }).toEqual(golden.master);
      const rowKeys = [...new Set(d.devices.flatMap((r) => keys(r)))].sort();
      expect({ top: keys(d), row: rowKeys.filter((k) => k !== 'network_id') }).toEqual(golden.devices);
      expect(rowKeys).toContain('network_id');
      expect(d.devices.every((r) => (r as { network_id: number }).network_id === 1)).toBe(true);
      expect({ top: keys(g), row: [...new Set(g.groups.flatMap((r) => keys(r)))].sort() }).toEqual(
        golden.groups,
      );
    });
  });

  it('network-1-binds-itself-to-the-gateway-and-lists-it', async () => {
    await withHost({ nodes: 3 }, async (h) => {
      await runTask(h, '/api/discover', {});
      const mac = (await h.get<Body>('/api/gateway')).body.gateway.gateway_mac as string;
      const n = await h.get<{ networks: Record<string, unknown>[]; unassigned: unknown[] }>('/api/networks');
      expect(n.status).toBe(200);
      expect(n.body.unassigned).toEqual([]);
      expect(n.body.networks).toHaveLength(1);
      expect(n.body.networks[0]).toMatchObject({
        id: 1,
        name: 'Network 1',
        gateway_mac: mac.replace(/:/g, ''),
        state: 'ready',
        device_count: 3,
        online_count: 3,
        rf: h.host.services.driver.radioSettings().rf,
        gateway: { ready: true, gateway_mac: mac },
      });
    });
  });
});
