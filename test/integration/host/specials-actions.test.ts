import { describe, expect, it } from 'vitest';
import { withHost, type Harness } from '../harness.ts';
import { devices, discoverAll, runTask } from './helpers.ts';
import { makePresets, multipartBody } from '../../fixtures/ota/builders.ts';
import type { SimNode } from '../../../src/sim/node/node.ts';

const STARTBLOCK = [50, 51];

const fleetNodes = (h: Harness): SimNode[] => h.host.sim?.fleet.nodes ?? [];

function ledNode(h: Harness): SimNode {
  const n = fleetNodes(h).find((x) => !STARTBLOCK.includes(x.devType));
  if (!n) throw new Error('no LED-only node in the simulated fleet');
  return n;
}

function startblockNode(h: Harness): SimNode {
  const n = fleetNodes(h).find((x) => STARTBLOCK.includes(x.devType));
  if (!n) throw new Error('no startblock node in the simulated fleet');
  return n;
}

async function row(h: Harness, addr: string) {
  const r = (await devices(h)).find((d) => d.addr === addr);
  if (!r) throw new Error(`no row for ${addr}`);
  return r as typeof r & { specials: Record<string, number>; configByte: number };
}

interface ActionBody {
  ok: boolean;
  result?: unknown;
  function?: string;
  params?: Record<string, unknown>;
  error?: string;
}

// Seed 2 (3 nodes): three LED_Rev1 nodes; seed 3 (3 nodes): a startblock first.
describe('device functions (specials actions)', () => {
  it('led-preset-applies-on-the-node-and-keeps-brightness-when-omitted', async () => {
    await withHost({ nodes: 3, seed: 2 }, async (h) => {
      await discoverAll(h);
      const node = ledNode(h);
      const r = await h.post<ActionBody>('/api/specials/action', {
        mac: node.addr,
        function: 'led_preset',
        params: { presetId: '3', brightness: 90, ignored: 'x' },
      });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        ok: true,
        result: true,
        function: 'led_preset',
        params: { presetId: 3, brightness: 90 },
      });
      expect(node.led.presetId).toBe(3);
      expect(node.led.bri).toBe(90);
      expect(await row(h, node.addr)).toMatchObject({ presetId: 3, brightness: 90 });

      // No brightness: the node keeps its brightness (decisions §12), `fn` alias accepted.
      const k = await h.post<ActionBody>('/api/specials/action', {
        mac: node.addr,
        fn: 'led_preset',
        params: { presetId: 5 },
      });
      expect(k.body).toMatchObject({ ok: true, function: 'led_preset', params: { presetId: 5 } });
      expect(node.led.presetId).toBe(5);
      expect(node.led.bri).toBe(90);
    });
  });

  it('led-preset-picker-is-filled-from-the-active-preset-file', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      const { body, contentType } = multipartBody([
        { name: 'file', filename: 'p.json', data: makePresets(2) },
      ]);
      const up = await fetch(h.url + '/api/presets/upload', {
        method: 'POST',
        headers: { 'content-type': contentType },
        body,
      });
      expect(up.status).toBe(200);
      const s = await h.get<{
        specials: { LED: { functions: { key: string; ui: { presetId?: { options: unknown } } }[] } };
      }>('/api/specials');
      const fn = s.body.specials.LED.functions.find((f) => f.key === 'led_preset');
      expect(fn?.ui.presetId?.options).toEqual([
        { value: '1', label: 'Preset 1' },
        { value: '2', label: 'Preset 2' },
      ]);
    });
  });

  it('native-preset-sends-its-fields-in-one-control-frame', async () => {
    await withHost({ nodes: 3, seed: 2 }, async (h) => {
      await discoverAll(h);
      const node = ledNode(h);
      const created = await h.post<{ preset: { id: number } }>('/api/native-presets', {
        label: 'Red sweep',
        params: { mode: 7, speed: 200, color1: [255, 0, 0], brightness: 60 },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const id = created.body.preset.id;
      const r = await h.post<ActionBody>('/api/specials/action', {
        mac: node.addr,
        function: 'native_preset',
        params: { presetId: id },
      });
      expect(r.body).toMatchObject({ ok: true, result: true, params: { presetId: id } });
      expect(node.led.seg.mode).toBe(7);
      expect(node.led.seg.speed).toBe(200);
      expect(node.led.seg.colors[0]).toEqual([255, 0, 0]);
      expect(node.led.bri).toBe(60);
      // A brightness given overrides the preset's.
      await h.post('/api/specials/action', {
        mac: node.addr,
        function: 'native_preset',
        params: { presetId: id, brightness: 10 },
      });
      expect(node.led.bri).toBe(10);

      const missing = await h.post<ActionBody>('/api/specials/action', {
        mac: node.addr,
        function: 'native_preset',
        params: { presetId: id + 50 },
      });
      expect(missing.status).toBe(400);
      expect(missing.body.error).toBe(`params.presetId: no native preset with id ${id + 50} (known: ${id})`);
      const none = await h.post<ActionBody>('/api/specials/action', {
        mac: node.addr,
        function: 'native_preset',
      });
      expect(none.status).toBe(400);
      expect(none.body.error).toBe('params.presetId: is required');
    });
  });

  it('reset-overrides-resets-node-and-stored-led-options', async () => {
    await withHost({ nodes: 3, seed: 2 }, async (h) => {
      await discoverAll(h);
      const node = ledNode(h);
      const t = await runTask(h, '/api/specials/config', { mac: node.addr, key: 'led_fps', value: 30 });
      expect(t.state, t.last_error ?? '').toBe('done');
      expect(node.overrides.fps).toBe(30);
      const r = await h.post<ActionBody>('/api/specials/action', {
        mac: node.addr,
        function: 'led_reset_overrides',
      });
      expect(r.body).toEqual({ ok: true, result: true, function: 'led_reset_overrides', params: {} });
      expect(node.overrides.fps).toBe(75);
      expect((await row(h, node.addr)).specials.led_fps).toBe(75);

      // Not acknowledged → 500 action failed, stored values untouched.
      await runTask(h, '/api/specials/config', { mac: node.addr, key: 'led_fps', value: 40 });
      h.host.sim?.fleet.faults.nodeAcksLost(node.addr, true);
      const f = await h.post<ActionBody>('/api/specials/action', {
        mac: node.addr,
        function: 'led_reset_overrides',
      });
      expect(f.status).toBe(500);
      expect(f.body.error).toMatch(
        /^action failed: led_reset_overrides on [0-9A-F]{6}: no ACK from .* within 6 s/,
      );
      expect((await row(h, node.addr)).specials.led_fps).toBe(40);
    });
  });

  it('startblock-control-sends-one-record-per-slot-of-the-node', async () => {
    await withHost({ nodes: 3, seed: 3 }, async (h) => {
      await discoverAll(h);
      const sb = startblockNode(h);
      const cfg = await runTask(h, '/api/specials/config', {
        mac: sb.addr,
        key: 'startblock_slots',
        value: 3,
      });
      expect(cfg.state, cfg.last_error ?? '').toBe('done');
      const first = await runTask(h, '/api/specials/config', {
        mac: sb.addr,
        key: 'startblock_first_slot',
        value: 2,
      });
      expect(first.state, first.last_error ?? '').toBe('done');
      expect(sb.startblock).toEqual({ slots: 3, firstSlot: 2 });
      const r = await h.post<ActionBody>('/api/specials/action', {
        mac: sb.addr,
        function: 'startblock_control',
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.result).toEqual({
        mode: 'unicast',
        devices: [{ device: sb.addr, first: 2, last: 4 }],
        sent: [2, 3, 4].map((slot) => ({ slot, device: sb.addr, result: { expected: 1, acked: 1 } })),
      });
      expect([...sb.startblockDisplay.keys()].sort()).toEqual([2, 3, 4]);
      expect(sb.startblockDisplay.get(3)).toEqual({ slot: 3, channel: '--', name: '' });

      const led = ledNode(h);
      const no = await h.post<ActionBody>('/api/specials/action', {
        mac: led.addr,
        function: 'startblock_control',
      });
      expect(no.status).toBe(400);
      expect(no.body.error).toMatch(
        /^function: startblock_control not supported for device [0-9A-F]{6} \(LED_Rev\d, capabilities: LED\)$/,
      );
    });
  });

  it('methods-toggle-the-access-point-and-reboot-confirmed-by-boot-announcement', async () => {
    await withHost({ nodes: 3, seed: 2 }, async (h) => {
      await discoverAll(h);
      const node = ledNode(h);
      const ap = await runTask(h, '/api/specials/config', { mac: node.addr, key: 'wifi_ap', value: true });
      expect(ap.state, ap.last_error ?? '').toBe('done');
      expect(ap.result).toMatchObject({ key: 'wifi_ap', value: 1, confirmed: 'ack' });
      expect(node.apActive).toBe(true);
      expect((await row(h, node.addr)).configByte & 0x04).toBe(0x04);
      const off = await runTask(h, '/api/specials/config', { mac: node.addr, key: 'wifi_ap', value: 'off' });
      expect(off.state).toBe('done');
      expect(node.apActive).toBe(false);
      expect((await row(h, node.addr)).configByte & 0x04).toBe(0);

      const reboot = await runTask(h, '/api/specials/config', { mac: node.addr, key: 'reboot' });
      expect(reboot.state, reboot.last_error ?? '').toBe('done');
      expect(reboot.result).toMatchObject({ key: 'reboot', value: null, confirmed: 'boot announcement' });
      expect(node.rebootCount).toBe(1);

      // A reboot is sent once (a repeat would restart the node again); no boot → error after 6 s.
      h.host.sim?.fleet.faults.silence(node.addr);
      const lost = await runTask(h, '/api/specials/config', { mac: node.addr, key: 'reboot' });
      expect(lost.state).toBe('error');
      expect(lost.last_error).toMatch(
        /no ACK from [0-9A-F]{6} for reboot \(option 0x81\) within 6 s \(1 attempt;/,
      );
      expect(lost.elapsed_s).toBeGreaterThanOrEqual(6);
      h.host.sim?.fleet.faults.unsilence(node.addr);

      const bad = await h.post('/api/specials/config', { mac: node.addr, key: 'mac_filter', value: 7 });
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({ ok: false, error: 'value: must be 0/1 or true/false for mac_filter' });
    });
  });
  it('gateway-unplugged-reads-writes-and-actions-fail-clearly-and-store-nothing', async () => {
    await withHost({ nodes: 3, seed: 2 }, async (h) => {
      await discoverAll(h);
      const node = ledNode(h);
      const sse = await h.sse();
      h.host.sim?.fleet.faults.dropLink();
      await sse.waitFor('gateway', (g) => (g as { ready: boolean }).ready === false);

      const r = await h.post('/api/specials/get', { mac: node.addr, key: 'led_fps' });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ ok: false, mac: node.addr, key: 'led_fps', error: 'link_down' });
      expect(r.body.detail).toEqual(expect.any(String));

      const t = await runTask(h, '/api/specials/config', { mac: node.addr, key: 'led_fps', value: 33 });
      expect(t.state).toBe('error');
      expect(t.last_error).toMatch(/led_fps \(option 0x05\): /);
      expect(t.elapsed_s).toBeLessThan(6);

      const a = await h.post<ActionBody>('/api/specials/action', {
        mac: node.addr,
        function: 'led_preset',
        params: { presetId: 2 },
      });
      expect(a.status).toBe(500);
      expect(a.body.error).toMatch(new RegExp(`^action failed: led_preset on ${node.addr}: `));
      const after = await row(h, node.addr);
      expect(after.specials.led_fps).toBe(75);
      expect(after.presetId).toBe(1);
    });
  });
});
