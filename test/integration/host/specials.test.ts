import { describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withHost, type Harness } from '../harness.ts';
import { devices, discoverAll, runTask } from './helpers.ts';
import type { SimNode } from '../../../src/sim/node/node.ts';

const STARTBLOCK = [50, 51];

function ledNode(h: Harness, nth = 0): SimNode {
  const n = (h.host.sim?.fleet.nodes ?? []).filter((x) => !STARTBLOCK.includes(x.devType))[nth];
  if (!n) throw new Error('no LED-only node in the simulated fleet');
  return n;
}

async function row(h: Harness, addr: string) {
  const r = (await devices(h)).find((d) => d.addr === addr);
  if (!r) throw new Error(`no row for ${addr}`);
  return r as typeof r & { specials: Record<string, number> };
}

interface ReadBody {
  ok: boolean;
  value?: unknown;
  stored?: unknown;
  in_sync?: boolean;
  error?: string;
}

describe('device options (specials)', () => {
  it('schema-covers-every-option-method-and-function-with-pickers', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      const r = await h.get<{ ok: boolean; specials: Record<string, Record<string, unknown[]>> }>(
        '/api/specials',
      );
      expect(r.status).toBe(200);
      const s = r.body.specials;
      const keys = (cap: string, part: string) => (s[cap]?.[part] as { key: string }[]).map((o) => o.key);
      expect(keys('LED', 'options')).toEqual([
        'led_fps',
        'led_abl_max_ma',
        'led_briS',
        'led_transition_ms',
        'led_seg0',
        'led_seg1',
      ]);
      expect(keys('STARTBLOCK', 'options')).toEqual(['startblock_slots', 'startblock_first_slot']);
      expect(keys('NODE', 'methods')).toEqual([
        'mac_filter',
        'master_persist',
        'wifi_ap',
        'clear_master',
        'reboot',
      ]);
      expect(keys('LED', 'methods')).toEqual(['reset_overrides']);
      expect(keys('LED', 'functions')).toEqual(['led_preset', 'native_preset', 'led_reset_overrides']);
      expect(keys('STARTBLOCK', 'functions')).toEqual(['startblock_control']);
      const fps = (s.LED?.options as Record<string, unknown>[])[0];
      expect(fps).toMatchObject({
        option: 5,
        type: 'integer',
        min: 0,
        max: 250,
        default: 75,
        unit: 'fps',
        readable: true,
      });
      const seg = (s.LED?.options as Record<string, unknown>[]).find((o) => o.key === 'led_seg0');
      expect(seg).toMatchObject({
        option: 6,
        shape: 'uint16-pair',
        default: { start: 0, stop: 0 },
        stored_keys: ['led_seg0_start', 'led_seg0_stop'],
      });
      const reboot = (s.NODE?.methods as Record<string, unknown>[]).find((m) => m.key === 'reboot');
      expect(reboot).toMatchObject({
        option: 0x81,
        readable: false,
        destructive: { message: expect.any(String) },
      });
      const fns = s.LED?.functions as {
        key: string;
        ui: Record<string, { widget: string; options?: unknown[] }>;
      }[];
      expect(fns[0]?.ui.presetId).toEqual({ widget: 'select', label: 'Preset', options: [] });
      expect(fns[1]?.ui.presetId?.options).toEqual([{ value: '0', label: '— no native presets —' }]);
      expect(fns[0]?.ui.brightness).toMatchObject({ widget: 'slider', min: 0, max: 255 });

      // The native preset picker is filled from the stored native presets, live.
      const created = await h.post<{ preset: { id: number } }>('/api/native-presets', {
        label: 'Sweep',
        params: { mode: 2 },
      });
      expect(created.status).toBe(200);
      const again = await h.get<{ specials: Record<string, { functions: typeof fns }> }>('/api/specials');
      expect(again.body.specials.LED?.functions[1]?.ui.presetId?.options).toEqual([
        { value: String(created.body.preset.id), label: 'Sweep' },
      ]);
    });
  });

  it('config-write-acks-persists-and-reads-back-equal', async () => {
    await withHost({ nodes: 3, seed: 2 }, async (h) => {
      await discoverAll(h);
      const node = ledNode(h);
      const before = await row(h, node.addr);
      // Rows carry every option of the device's capabilities, defaults materialised.
      expect(before.specials).toEqual({
        led_fps: 75,
        led_abl_max_ma: 0,
        led_briS: 128,
        led_transition_ms: 700,
        led_seg0_start: 0,
        led_seg0_stop: 0,
        led_seg1_start: 0,
        led_seg1_stop: 0,
      });
      expect(before.led_fps).toBe(75);

      const sse = await h.sse();
      const t = await runTask(h, '/api/specials/config', { mac: node.addr, key: 'led_fps', value: 60 });
      expect(t.state, t.last_error ?? '').toBe('done');
      expect(t.name).toBe('special_config');
      expect(t.result).toMatchObject({ mac: node.addr, key: 'led_fps', value: 60, confirmed: 'ack' });
      expect(t.meta).toMatchObject({ mac: node.addr, key: 'led_fps' });
      expect(node.overrides.fps).toBe(60);
      const after = await row(h, node.addr);
      expect(after.specials.led_fps).toBe(60);
      expect(after.led_fps).toBe(60);
      await sse.waitFor('refresh', (d) => (d as { what: string[] }).what.includes('devices'));

      const seg = await runTask(h, '/api/specials/config', {
        mac: node.addr.toLowerCase(),
        key: 'led_seg0',
        value: { start: 5, stop: 120 },
      });
      expect(seg.state, seg.last_error ?? '').toBe('done');
      expect(node.overrides.seg0).toEqual({ start: 5, stop: 120 });
      expect((await row(h, node.addr)).specials).toMatchObject({ led_seg0_start: 5, led_seg0_stop: 120 });

      const abl = await runTask(h, '/api/specials/config', {
        mac: node.addr,
        key: 'led_abl_max_ma',
        value: 1800,
      });
      expect(abl.state, abl.last_error ?? '').toBe('done');

      for (const [key, value] of [
        ['led_fps', 60],
        ['led_seg0', { start: 5, stop: 120 }],
        ['led_abl_max_ma', 1800],
        ['led_transition_ms', 700],
      ] as const) {
        const r = await h.post<ReadBody>('/api/specials/get', { mac: node.addr, key });
        expect(r.status).toBe(200);
        expect(r.body).toEqual({ ok: true, mac: node.addr, key, value, stored: value, in_sync: true });
      }
    });
  });

  it('node-side-change-shows-as-divergence-and-import-resolves-it', async () => {
    await withHost({ nodes: 3, seed: 2 }, async (h) => {
      await discoverAll(h);
      const node = ledNode(h);
      const fleet = h.host.sim?.fleet;
      fleet?.faults.editNodeOption(node.addr, 0x09, [200, 0, 0, 0]);
      fleet?.faults.editNodeOption(node.addr, 0x07, [10, 0, 44, 1]);

      const bri = await h.post<ReadBody>('/api/specials/get', { mac: node.addr, key: 'led_briS' });
      expect(bri.body).toMatchObject({ ok: true, value: 200, stored: 128, in_sync: false });
      const seg = await h.post<ReadBody>('/api/specials/get', { mac: node.addr, key: 'led_seg1' });
      expect(seg.body).toMatchObject({ ok: true, value: { start: 10, stop: 300 }, in_sync: false });
      // A read never changes the stored intent.
      expect((await row(h, node.addr)).specials.led_briS).toBe(128);

      const sse = await h.sse();
      const imp = await h.post('/api/specials/config/import', {
        mac: node.addr,
        key: 'led_briS',
        value: 200,
      });
      expect(imp.status).toBe(200);
      expect(imp.body).toEqual({
        ok: true,
        mac: node.addr,
        key: 'led_briS',
        value: 200,
        written: ['led_briS'],
      });
      await sse.waitFor('refresh', (d) => (d as { what: string[] }).what.includes('devices'));
      const imp2 = await h.post('/api/specials/config/import', {
        mac: node.addr,
        key: 'led_seg1',
        value: seg.body.value,
      });
      expect(imp2.body).toMatchObject({ ok: true, written: ['led_seg1_start', 'led_seg1_stop'] });

      const specials = (await row(h, node.addr)).specials;
      expect(specials).toMatchObject({ led_briS: 200, led_seg1_start: 10, led_seg1_stop: 300 });
      for (const key of ['led_briS', 'led_seg1']) {
        const r = await h.post<ReadBody>('/api/specials/get', { mac: node.addr, key });
        expect(r.body, key).toMatchObject({ ok: true, in_sync: true });
      }
    });
  });

  it('written-value-survives-a-restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-specials-'));
    try {
      let addr = '';
      await withHost({ nodes: 2, seed: 2, dataDir }, async (h) => {
        await discoverAll(h);
        addr = ledNode(h).addr;
        const t = await runTask(h, '/api/specials/config', {
          mac: addr,
          key: 'led_transition_ms',
          value: 1234,
        });
        expect(t.state, t.last_error ?? '').toBe('done');
      });
      await withHost({ nodes: 2, seed: 2, dataDir }, async (h) => {
        const r = await row(h, addr);
        expect(r.online).toBe(false);
        expect(r.specials).toMatchObject({ led_transition_ms: 1234, led_fps: 75 });
        expect(r.led_transition_ms).toBe(1234);
      });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('node-that-never-acks-ends-the-task-in-error-after-6-s', async () => {
    await withHost({ nodes: 2, seed: 2 }, async (h) => {
      await discoverAll(h);
      const node = ledNode(h);
      h.host.sim?.fleet.faults.nodeAcksLost(node.addr, true);
      const t = await runTask(h, '/api/specials/config', { mac: node.addr, key: 'led_fps', value: 42 });
      expect(t.state).toBe('error');
      expect(t.last_error).toMatch(
        new RegExp(`no ACK from ${node.addr} for led_fps \\(option 0x05\\) within 6 s`),
      );
      // 6 s in total (not per attempt), in simulated time.
      expect(t.elapsed_s).toBeGreaterThanOrEqual(6);
      expect(t.elapsed_s).toBeLessThan(6.5);
      // Not acknowledged → not stored; the node did apply it, which a live read shows.
      expect((await row(h, node.addr)).specials.led_fps).toBe(75);
      const r = await h.post<ReadBody>('/api/specials/get', { mac: node.addr, key: 'led_fps' });
      expect(r.body).toMatchObject({ ok: true, value: 42, stored: 75, in_sync: false });
    });
  });

  it('reads-are-not-gated-run-back-to-back-and-do-not-block-control', async () => {
    // The blocking write must outlast everything below however slow the machine is: its
    // ACK budget is a minute (the default 6 s ran out first on a loaded CI machine), and
    // the test cancels it at the end.
    await withHost({ nodes: 3, seed: 2, overrides: { specialsAckBudgetMs: 60_000 } }, async (h) => {
      await discoverAll(h);
      const silent = ledNode(h, 0);
      const other = ledNode(h, 1);
      h.host.sim?.fleet.faults.nodeAcksLost(silent.addr, true);
      const started = await h.post<{ task: { id: number; state: string } }>('/api/specials/config', {
        mac: silent.addr,
        key: 'led_fps',
        value: 50,
      });
      expect(started.body.task.state).toBe('running');
      // A second task is refused while the write runs, reads are not.
      const busy = await h.post('/api/specials/config', { mac: other.addr, key: 'led_fps', value: 50 });
      expect(busy.status).toBe(409);

      const keys = ['led_fps', 'led_briS', 'led_transition_ms', 'led_seg0', 'led_abl_max_ma'];
      const reads = Promise.all(
        keys.map((key) => h.post<ReadBody>('/api/specials/get', { mac: other.addr, key })),
      );
      const control = h.post<{ changed: number }>('/api/devices/control', {
        macs: [other.addr],
        flags: 1,
        presetId: 2,
        brightness: 90,
      });
      const [got, ctl] = await Promise.all([reads, control]);
      expect(got.map((r) => r.body.ok)).toEqual([true, true, true, true, true]);
      expect(got.map((r) => r.body.value)).toEqual([75, 128, 700, { start: 0, stop: 200 }, 0]);
      expect(ctl.body.changed).toBe(1);
      for (const key of keys) {
        const r = await h.post<ReadBody>('/api/specials/get', { mac: other.addr, key });
        expect(r.body.ok).toBe(true);
      }
      // Functions are interactive traffic too: not refused while the task runs.
      const act = await h.post('/api/specials/action', {
        mac: other.addr,
        function: 'led_preset',
        params: { presetId: 4 },
      });
      expect(act.status, JSON.stringify(act.body)).toBe(200);
      expect(other.led.presetId).toBe(4);
      expect(h.host.services.tasks.current()?.state).toBe('running');
      // A method option never answers: HTTP 200 with the timeout.
      const m = await h.post<ReadBody>('/api/specials/get', { mac: other.addr, key: 'reboot' });
      expect(m.status).toBe(200);
      expect(m.body).toEqual({ ok: false, mac: other.addr, key: 'reboot', error: 'timeout' });
      expect((await h.post('/api/task/cancel')).status).toBe(200);
      const t = await h.waitTask(started.body.task.id);
      expect(t.last_error).toBe('cancelled');
    });
  });
});
