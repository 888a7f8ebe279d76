import { describe, expect, it } from 'vitest';
import { BROADCAST } from '../../../src/protocol/types.ts';
import { snrFloorDb } from '../../../src/sim/air.ts';
import { withHost } from '../harness.ts';
import { devices, discoverAll, runTask, simAddrs } from './helpers.ts';

describe('devices against the simulated fleet', () => {
  it('discovery-assigns-new-nodes-to-target-group', async () => {
    await withHost({ nodes: 8 }, async (h) => {
      const sse = await h.sse();
      // Nodes still booting when the discovery starts may be found through their own boot
      // announcement (a broadcast IDENTIFY) rather than a reply to the task's query.
      const announced = new Set<string>();
      const off = h.host.services.driver.on('packet', (p) => {
        if (p.reply?.kind === 'IDENTIFY_REPLY' && p.packet.receiver === BROADCAST)
          announced.add(p.packet.sender);
      });
      const g = await h.post('/api/groups/create', { name: 'Pit Wall' });
      expect(g.body).toEqual({ ok: true, id: 1 });
      const start = await h.post<{ task: { id: number; name: string; state: string } }>('/api/discover', {
        targetGroupId: 1,
      });
      expect(start.body.task).toMatchObject({ name: 'discover', state: 'running' });
      const done = await h.waitTask(start.body.task.id);
      expect(done.state).toBe('done');
      expect(done.result).toMatchObject({ found: 8, createdGroupId: null, targetGroupId: 1 });
      off();
      expect(done.rx_replies).toBeGreaterThanOrEqual(8 - announced.size);
      expect(done.rx_replies).toBeGreaterThan(0);
      const rows = await devices(h);
      expect(rows.map((r) => r.addr).sort()).toEqual(simAddrs(h).sort());
      expect(rows.every((r) => r.groupId === 1 && r.online)).toBe(true);
      // The nodes really are in group 1 now.
      for (const n of h.host.sim?.fleet.nodes ?? []) expect(n.snapshot().groupId).toBe(1);
      const groups = (await h.get<{ groups: { id: number; device_count: number }[] }>('/api/groups')).body
        .groups;
      expect(groups.find((x) => x.id === 1)?.device_count).toBe(8);
      await sse.waitFor('task', (t) => (t as { state?: string } | null)?.state === 'done');
      await sse.waitFor('refresh', (d) => (d as { what: string[] }).what.includes('devices'));
    });
  });

  it('discovery-with-new-group-name-creates-and-targets-it', async () => {
    await withHost({ nodes: 3 }, async (h) => {
      const t = await runTask(h, '/api/discover', { newGroupName: 'Start Area' });
      expect(t.result).toMatchObject({ found: 3, createdGroupId: 1, targetGroupId: 1 });
      const groups = (await h.get<{ groups: { id: number; name: string }[] }>('/api/groups')).body.groups;
      expect(groups.map((g) => g.name)).toEqual(['Unconfigured', 'Start Area']);
    });
  });

  it('task-starting-routes-answer-409-while-a-task-runs', async () => {
    await withHost({ nodes: 4 }, async (h) => {
      const first = await h.post<{ task: { id: number } }>('/api/discover', {});
      const second = await h.post('/api/status', {});
      expect(second.status).toBe(409);
      expect(second.body).toMatchObject({
        ok: false,
        busy: true,
        task: { id: first.body.task.id, state: 'running' },
      });
      for (const path of ['/api/discover', '/api/groups/force', '/api/reload']) {
        expect((await h.post(path, {})).status).toBe(409);
      }
      await h.waitTask(first.body.task.id);
    });
  });

  it('status-marks-silent-nodes-offline', async () => {
    await withHost({ nodes: 5 }, async (h) => {
      await discoverAll(h, { newGroupName: 'All' });
      const [silent] = simAddrs(h);
      h.host.sim?.fleet.faults.silence(silent ?? '');
      const t = await runTask(h, '/api/status', {});
      expect(t.state).toBe('done');
      expect(t.result).toMatchObject({ updated: 4, groupId: 255, selectionCount: 0 });
      const rows = await devices(h);
      expect(rows.find((r) => r.addr === silent)?.online).toBe(false);
      expect(rows.filter((r) => r.online)).toHaveLength(4);
      // A unicast poll by selection, with the 12-hex form of an address.
      h.host.sim?.fleet.faults.unsilence(silent ?? '');
      const one = await runTask(h, '/api/status', { macs: [`246F28${silent}`] });
      expect(one.result).toMatchObject({ updated: 1, groupId: null, selectionCount: 1 });
      expect((await devices(h)).find((r) => r.addr === silent)?.online).toBe(true);
    });
  });

  it('status-validates-its-body', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      const both = await h.post('/api/status', { selection: ['AABBCC'], groupId: 1 });
      expect(both.status).toBe(400);
      expect(both.body.error).toMatch(/exclusive/);
      const badMac = await h.post('/api/status', { macs: ['xyz'] });
      expect(badMac.status).toBe(400);
      expect(badMac.body.error).toMatch(/^macs\[0\]/);
      const badGroup = await h.post('/api/status', { groupId: 'two' });
      expect(badGroup.status).toBe(400);
      expect(badGroup.body.error).toMatch(/^groupId/);
      const missingGroup = await h.post('/api/status', { groupId: 9 });
      expect(missingGroup.status).toBe(404);
    });
  });

  it('control-sends-presets-by-group-and-by-device', async () => {
    await withHost({ nodes: 4 }, async (h) => {
      await discoverAll(h, { newGroupName: 'Gates' });
      const byGroup = await h.post('/api/devices/control', {
        groupId: 1,
        flags: 0x05,
        presetId: 7,
        brightness: 200,
      });
      expect(byGroup.body).toEqual({ ok: true, changed: 1 });
      const addrs = simAddrs(h);
      const byMac = await h.post('/api/devices/control', {
        macs: [addrs[0], addrs[1], 'ABCDEF'],
        flags: 0x05,
        presetId: 3,
        brightness: 0,
      });
      expect(byMac.body).toEqual({ ok: true, changed: 2, errors: { ABCDEF: 'unknown device (skipped)' } });
      const rows = await devices(h);
      // The power bit follows the brightness, as on the node (not the flags sent).
      expect(rows.find((r) => r.addr === addrs[0])).toMatchObject({
        presetId: 3,
        brightness: 0,
        flags: 0x04,
      });
      expect(rows.find((r) => r.addr === addrs[2])).toMatchObject({
        presetId: 7,
        brightness: 200,
        flags: 0x05,
      });
      const on = await h.post('/api/devices/control', {
        macs: [addrs[3]],
        flags: 0,
        presetId: 2,
        brightness: 90,
      });
      expect(on.body).toMatchObject({ ok: true, changed: 1 });
      expect((await devices(h)).find((r) => r.addr === addrs[3])).toMatchObject({
        brightness: 90,
        flags: 0x01,
      });
    });
  });

  it('control-rejects-bad-bodies-with-the-field-named', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      const cases: [unknown, RegExp][] = [
        [{ flags: 1, presetId: 1, brightness: 1 }, /macs or groupId/],
        [{ macs: ['AABBCC'], groupId: 1, flags: 1, presetId: 1, brightness: 1 }, /macs or groupId/],
        [{ groupId: 1, presetId: 1, brightness: 1 }, /^flags: is required/],
        [{ groupId: 1, flags: 1, presetId: 1, brightness: 256 }, /^brightness: must be <= 255/],
        [{ groupId: 1, flags: 1.5, presetId: 1, brightness: 1 }, /^flags/],
        [{ macs: 'AABBCC', flags: 1, presetId: 1, brightness: 1 }, /^macs/],
        [{ macs: ['FFFFFF'], flags: 1, presetId: 1, brightness: 1 }, /^macs\[0\]: broadcast/],
        [{ macs: [], flags: 1, presetId: 1, brightness: 1 }, /^macs: must not be empty/],
        [{ macs: ['zz'], flags: 1, presetId: 1, brightness: 1 }, /^macs\[0\]: must be 6 or 12 hex/],
      ];
      for (const [body, msg] of cases) {
        const r = await h.post('/api/devices/control', body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.body.ok).toBe(false);
        expect(String(r.body.error)).toMatch(msg);
      }
    });
  });

  it('indicate-counts-known-devices-and-clamps-duration', async () => {
    await withHost({ nodes: 2 }, async (h) => {
      await discoverAll(h, { newGroupName: 'G' });
      const [a] = simAddrs(h);
      const r = await h.post('/api/devices/indicate', { macs: [a, '123456'], duration_sec: 999 });
      expect(r.body).toEqual({ ok: true, count: 1, errors: { '123456': 'unknown device (skipped)' } });
      const snap = h.host.sim?.fleet.nodes[0]?.snapshot();
      expect(snap?.indicator).toMatchObject({ type: 4 });
      expect((await h.post('/api/devices/indicate', { macs: [] })).status).toBe(400);
      expect((await h.post('/api/devices/indicate', {})).status).toBe(400);
      expect((await h.post('/api/devices/indicate', { macs: [a], indicator_type: 'x' })).status).toBe(400);
    });
  });

  it('raw-config-sends-one-frame-and-validates', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      await discoverAll(h, { newGroupName: 'G' });
      const [a] = simAddrs(h);
      const r = await h.post('/api/config', { mac: a, option: 0x04, data0: 1 });
      expect(r.body).toEqual({
        ok: true,
        sent: 1,
        recv3: a,
        option: 4,
        data0: 1,
        data1: 0,
        data2: 0,
        data3: 0,
      });
      expect((await h.post('/api/config', { mac: a, option: 0x05 })).status).toBe(400);
      expect((await h.post('/api/config', { mac: 'FFFFFF', option: 1 })).status).toBe(400);
      expect((await h.post('/api/config', { macs: [a, a], option: 1 })).status).toBe(400);
      expect((await h.post('/api/config', { mac: a, option: 1, data0: 300 })).status).toBe(400);
    });
  });

  it('update-meta-renames-synchronously-and-moves-groups-as-a-task', async () => {
    await withHost({ nodes: 3 }, async (h) => {
      await discoverAll(h);
      const [a, b] = simAddrs(h);
      const rename = await h.post('/api/devices/update-meta', { macs: [a], name: '  Gate 1 ' });
      expect(rename.body).toEqual({ ok: true, changed: 1, skipped_offline: 0, timed_out: 0, total: 1 });
      expect((await devices(h)).find((r) => r.addr === a)?.name).toBe('Gate 1');
      expect((await h.post('/api/devices/update-meta', { macs: ['0A0B0C'], name: 'x' })).status).toBe(404);
      expect((await h.post('/api/devices/update-meta', { macs: [a, b], name: 'x' })).status).toBe(400);
      expect((await h.post('/api/devices/update-meta', { macs: [a] })).status).toBe(400);
      expect((await h.post('/api/devices/update-meta', { macs: [a], groupId: 3 })).status).toBe(404);

      await h.post('/api/groups/create', { name: 'Finish' });
      const t = await runTask(h, '/api/devices/update-meta', { macs: [a, b], groupId: 1 });
      expect(t.name).toBe('bulk_set_group');
      expect(t.result).toMatchObject({ changed: 2, skipped_offline: 0, timed_out: 0, total: 2 });
      expect(t.meta).toMatchObject({ stage: 'MOVING', index: 2, total: 2, groupId: 1 });
      const rows = await devices(h);
      expect(
        rows
          .filter((r) => r.groupId === 1)
          .map((r) => r.addr)
          .sort(),
      ).toEqual([a, b].sort());
    });
  });
});

describe('a large fleet', () => {
  it('discovery-into-a-group-finds-every-reachable-node-of-200-despite-collisions', async () => {
    await withHost({ nodes: 200, seed: 7 }, async (h) => {
      const t = await runTask(h, '/api/discover', { newGroupName: 'Everyone' });
      expect(t.state).toBe('done');
      const rows = await devices(h);
      const known = new Set(rows.map((r) => r.addr));
      const fleet = h.host.sim?.fleet;
      // A node whose signal sits below the SF7 demodulation floor cannot be heard by any gateway.
      const reachable = (fleet?.nodes ?? []).filter(
        (n) => (fleet?.air.qualityOf(n.addr)?.snr ?? -99) >= snrFloorDb(7) + 1,
      );
      expect(reachable.length).toBeGreaterThan(180);
      expect(reachable.filter((n) => !known.has(n.addr)).map((n) => n.addr)).toEqual([]);
      const r = t.result as { found: number; assigned: number; assign_failed: number };
      expect(r.found).toBe(known.size);
      // Nodes whose SET_GROUP was never acknowledged are reported, not hidden.
      expect(r.assigned + r.assign_failed).toBe(r.found);
      expect(rows.filter((x) => x.groupId === 1)).toHaveLength(r.found);
    });
  });
});

describe('a large fleet left unconfigured', () => {
  it('plain-discovery-of-200-nodes-parks-responders-and-finds-every-reachable-node', async () => {
    await withHost({ nodes: 200, seed: 7 }, async (h) => {
      const t = await runTask(h, '/api/discover', {});
      expect(t.state).toBe('done');
      const rows = await devices(h);
      const known = new Set(rows.map((r) => r.addr));
      const fleet = h.host.sim?.fleet;
      const reachable = (fleet?.nodes ?? []).filter(
        (n) => (fleet?.air.qualityOf(n.addr)?.snr ?? -99) >= snrFloorDb(7) + 1,
      );
      expect(reachable.filter((n) => !known.has(n.addr)).map((n) => n.addr)).toEqual([]);
      // Parking is temporary: every device is stored in group 0, and every node that
      // acknowledged is back in group 0 (and bound, so it answers a status poll).
      expect(rows.every((r) => r.groupId === 0)).toBe(true);
      const r = t.result as { found: number; assigned: number };
      const inGroup0 = (fleet?.nodes ?? []).filter(
        (n) => known.has(n.addr) && n.snapshot().groupId === 0,
      ).length;
      expect(inGroup0).toBeGreaterThanOrEqual(r.assigned);
    });
  });
});

describe('validation messages', () => {
  it('name-the-field-and-the-rule-for-every-shape-of-bad-input', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      const cases: [string, unknown, string][] = [
        ['/api/discover', { targetGroupId: 'abc' }, 'targetGroupId: must be an integer'],
        ['/api/discover', { targetGroupId: 1.5 }, 'targetGroupId: must be an integer'],
        ['/api/discover', { targetGroupId: [1] }, 'targetGroupId: must be an integer'],
        ['/api/discover', { targetGroupId: 300 }, 'targetGroupId: must be <= 254'],
        ['/api/discover', { discoveryGroup: 'everything' }, 'discoveryGroup: must be 0..255 or "all"'],
        ['/api/groups/create', { name: 123 }, 'name: must be a string'],
        ['/api/groups/force', { skipOffline: 'maybe' }, 'skipOffline: must be a boolean'],
        ['/api/status', { selection: 'F1728B' }, 'selection: must be a list of addresses'],
        [
          '/api/status',
          { selection: ['F1728B', 7] },
          'selection[1]: must be a string of 6 or 12 hex characters',
        ],
        [
          '/api/devices/indicate',
          { macs: ['AABBCC'], duration_sec: 2.5 },
          'duration_sec: must be an integer',
        ],
      ];
      for (const [path, body, error] of cases) {
        const r = await h.post(path, body);
        expect(r.status, `${path} ${JSON.stringify(body)}`).toBe(400);
        expect(r.body).toEqual({ ok: false, error });
      }
      const huge = await h.post('/api/devices/indicate', { macs: ['AABBCC'], duration_sec: 2_000_000 });
      expect(huge.body).toMatchObject({ ok: true, count: 0 });
      const head = await fetch(h.url + '/sse', { method: 'HEAD' });
      expect(head.status).toBe(405);
    });
  });
});
