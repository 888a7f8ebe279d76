import { describe, expect, it } from 'vitest';
import type { TaskSnapshot } from '../../../src/tasks/task-manager.ts';
import { makeFirmware, makePresets } from '../../fixtures/ota/builders.ts';
import { withOtaRig, type Rig } from '../../fixtures/ota/rig.ts';

const result = (t: TaskSnapshot): Record<string, unknown> => t.result as Record<string, unknown>;

/** Host WiFi is back on the venue network, our profile is gone, no unknown nmcli call was made. */
function expectRestored(rig: Rig): void {
  expect(rig.net.active?.profile).toBe('Venue WiFi');
  expect(rig.net.profiles.has('lightnet-ota')).toBe(false);
  expect(rig.net.unknown).toEqual([]);
  expect(rig.net.lines()).toContain(`--wait 15 connection up uuid ${rig.net.venue.uuid} ifname wlan0`);
}

const apOpen = (rig: Rig): boolean[] => (rig.h.host.sim?.fleet.nodes ?? []).map((n) => n.apActive);

describe('over-the-air failure paths', () => {
  it('release-mismatch-is-refused-before-flashing-and-skipValidation-flashes-anyway', async () => {
    await withOtaRig({ nodes: 1 }, async (rig) => {
      const [addr = ''] = rig.addrs;
      rig.wled.node(rig.macOf[addr] ?? '').release = 'Other_Release';
      const fwId = await rig.uploadFile('firmware', makeFirmware({ releaseName: 'Node_V4_TYPE_12' }));
      const t1 = await rig.start('/api/fw/start', { macs: [addr], fwId });
      expect(t1.state).toBe('done');
      expect(result(t1)).toMatchObject({ ok: false, summary: '0/1 ok, 1 error(s)' });
      expect(t1.meta.deviceState).toEqual({ [addr]: 'error' });
      expect((t1.meta.deviceMessages as Record<string, string>)[addr]).toBe(
        "Firmware release name mismatch: current='Other_Release', uploaded='Node_V4_TYPE_12'. Enable 'Ignore firmware validation' to proceed anyway.",
      );
      expect(rig.wled.requests.filter((r) => r.path === '/update')).toEqual([]);
      expect(rig.stages(t1.id)).toEqual([
        'INIT',
        'NODE_AP_ON',
        'CONNECT_WIFI',
        'WAIT_HTTP',
        'DEVICE_ERROR',
        'AP_CLOSE',
        'HOST_WIFI_RESTORE',
        'DONE',
      ]);
      expect(apOpen(rig)).toEqual([false]);
      expectRestored(rig);

      const t2 = await rig.start('/api/fw/start', { macs: [addr], fwId, skipValidation: true });
      expect(result(t2), JSON.stringify(t2.result)).toMatchObject({ ok: true, summary: '1/1 ok' });
      const flashes = rig.wled.requests.filter((r) => r.path === '/update' && r.status === 200);
      expect(flashes.map((r) => r.fields)).toEqual([['skipValidation', 'file']]);
      expect(rig.wled.node(rig.macOf[addr] ?? '').release).toBe('Node_V4_TYPE_12');
    });
  });

  it('image-without-metadata-is-refused-by-the-node-once-without-retries', async () => {
    await withOtaRig({ nodes: 1 }, async (rig) => {
      const [addr = ''] = rig.addrs;
      const fwId = await rig.uploadFile('firmware', makeFirmware({ withMetadata: false }));
      const t = await rig.start('/api/fw/start', { macs: [addr], fwId, retries: 5 });
      const msg = (t.meta.deviceMessages as Record<string, string>)[addr] ?? '';
      expect(msg).toMatch(
        /^Firmware upload failed: HTTP 500 from \/update: Update failed! This firmware file is missing compatibility metadata/,
      );
      // 401 → unlock → one re-POST that gets the 500: no further attempts.
      expect(rig.wled.requests.filter((r) => r.path === '/update').map((r) => r.status)).toEqual([401, 500]);
      expect(rig.stages(t.id).filter((s) => s === 'UPLOAD_FW')).toHaveLength(1);
      expectRestored(rig);
    });
  });

  it('a-401-that-survives-the-unlock-stops-that-device', async () => {
    await withOtaRig({ nodes: 1 }, async (rig) => {
      const [addr = ''] = rig.addrs;
      const node = rig.wled.node(rig.macOf[addr] ?? '');
      node.otaLock = true;
      node.otaPass = 'different';
      const fwId = await rig.uploadFile('firmware', makeFirmware());
      const t = await rig.start('/api/fw/start', { macs: [addr], fwId, retries: 3 });
      expect(result(t)).toMatchObject({ ok: false });
      expect((t.meta.deviceMessages as Record<string, string>)[addr]).toMatch(
        /^Firmware upload failed: HTTP 401 from \/update still 401 after auto-unlock/,
      );
      expect(rig.wled.requests.filter((r) => r.path === '/update').map((r) => r.status)).toEqual([401, 401]);
      expect(rig.wled.requests.filter((r) => r.path === '/settings/sec').map((r) => r.body)).toEqual([
        'OP=wledota',
      ]);
      expect(node.otaLock).toBe(true);
      expect(apOpen(rig)).toEqual([false]);
      expectRestored(rig);
    });
  });

  it('a-node-that-never-re-announces-ends-reannounce_timeout-and-still-counts', async () => {
    await withOtaRig({ nodes: 1, timings: { reannounceMs: 6000 } }, async (rig) => {
      const [addr = ''] = rig.addrs;
      rig.wled.node(rig.macOf[addr] ?? '').knobs.neverAnnounce = true;
      const fwId = await rig.uploadFile('firmware', makeFirmware());
      const t = await rig.start('/api/fw/start', { macs: [addr], fwId });
      expect(t.meta.deviceState).toEqual({ [addr]: 'reannounce_timeout' });
      expect(t.meta.deviceMessages).toEqual({ [addr]: 'did not re-register on the radio within 6s' });
      expect(result(t)).toMatchObject({ ok: true, summary: '1/1 ok' });
      expect(rig.stages(t.id)).toEqual([
        'INIT',
        'NODE_AP_ON',
        'CONNECT_WIFI',
        'WAIT_HTTP',
        'UPLOAD_FW',
        'DEVICE_DONE',
        'REANNOUNCE_WAIT',
        'REANNOUNCE_TIMEOUT',
        'HOST_WIFI_RESTORE',
        'DONE',
      ]);
      expectRestored(rig);
    });
  });

  it('wifi-connect-failure-with-stopOnError-leaves-the-rest-queued-and-without-continues', async () => {
    await withOtaRig({ nodes: 3 }, async (rig) => {
      expect(rig.addrs).toHaveLength(3);
      const presetsName = await rig.uploadPresets(makePresets(2));
      // The second node's AP has another password: nmcli reports rejected secrets.
      rig.apOverride.set(rig.macOf[rig.addrs[1] ?? ''] ?? '', { psk: 'not-the-default' });
      const body = { macs: rig.addrs, doFirmware: false, doPresets: true, presetsName };
      const t1 = await rig.start('/api/fw/start', { ...body, stopOnError: true });
      const [a, b, c] = rig.addrs as [string, string, string];
      expect(t1.meta.deviceState).toEqual({ [a]: 'ok', [b]: 'error', [c]: 'queued' });
      expect((t1.meta.deviceMessages as Record<string, string>)[b]).toMatch(
        /^AP 'WLED_RaceLink_AP': authentication failed \(Secrets rejected\)/,
      );
      expect(result(t1)).toMatchObject({ ok: false, summary: '1/3 ok, 1 error(s)' });
      // Presets only: no reboot, so each AP is closed explicitly; the failed one too.
      expect(rig.stages(t1.id)).toEqual([
        'INIT',
        'NODE_AP_ON',
        'CONNECT_WIFI',
        'WAIT_HTTP',
        'UPLOAD_PRESETS',
        'DEVICE_DONE',
        'AP_CLOSE',
        'NODE_AP_ON',
        'CONNECT_WIFI',
        'DEVICE_ERROR',
        'AP_CLOSE',
        'HOST_WIFI_RESTORE',
        'DONE',
      ]);
      expect(apOpen(rig)).toEqual([false, false, false]);
      expectRestored(rig);

      const t2 = await rig.start('/api/fw/start', { ...body, stopOnError: false });
      expect(t2.meta.deviceState).toEqual({ [a]: 'ok', [b]: 'error', [c]: 'ok' });
      expect(result(t2)).toMatchObject({ ok: false, summary: '2/3 ok, 1 error(s)' });
      expect((result(t2).errors as string[]).length).toBe(1);
      expect(apOpen(rig)).toEqual([false, false, false]);
      expectRestored(rig);
    });
  });

  it('cancel-mid-upload-closes-the-ap-and-restores-wifi', async () => {
    await withOtaRig({ nodes: 1 }, async (rig) => {
      const [addr = ''] = rig.addrs;
      const node = rig.wled.node(rig.macOf[addr] ?? '');
      node.otaSameSubnet = false;
      node.knobs.stallUpdate = true;
      const fwId = await rig.uploadFile('firmware', makeFirmware({ size: 1_500_000 }));
      const r = await rig.h.post<{ task: TaskSnapshot }>('/api/fw/start', {
        macs: [addr],
        fwId,
        baseUrl: rig.wled.url,
      });
      const id = r.body.task.id;
      await rig.sse.waitFor('task', (d) => {
        const t = d as TaskSnapshot | null;
        const p = (t?.meta.deviceProgress as Record<string, { bytes: number }> | undefined)?.[addr];
        return t?.id === id && t.meta.stage === 'UPLOAD_FW' && (p?.bytes ?? 0) > 0;
      });
      // While it runs: every task-starting or upload route answers 409; lists still work.
      const busy = await rig.h.post('/api/presets/select', { name: 'x.json' });
      expect(busy.status).toBe(409);
      expect(busy.body).toMatchObject({ ok: false, busy: true });
      expect((await rig.upload('/api/fw/upload', [{ name: 'kind', value: 'cfg' }])).status).toBe(409);
      const presetsUp = await rig.upload('/api/presets/upload', [
        { name: 'file', filename: 'presets.json', data: makePresets(1) },
      ]);
      expect(presetsUp).toMatchObject({ status: 409, body: { ok: false, busy: true } });
      expect((await rig.h.get('/api/presets/list')).status).toBe(200);
      expect((await rig.h.post('/api/fw/start', { macs: [addr], fwId })).status).toBe(409);
      expect((await rig.h.post('/api/presets/download', { mac: addr })).status).toBe(409);
      expect((await rig.h.get('/api/fw/uploads')).status).toBe(200);
      expect((await rig.h.post('/api/task/cancel')).body).toMatchObject({ cancelled: true });
      const t = await rig.h.waitTask(id);
      await rig.sse.waitFor(
        'task',
        (d) => (d as TaskSnapshot | null)?.id === id && (d as TaskSnapshot).state !== 'running',
      );
      expect(t).toMatchObject({ state: 'error', last_error: 'cancelled' });
      expect(t.meta).toMatchObject({ stage: 'DONE', message: 'cancelled after 1/1 device(s), 1 error(s)' });
      expect(t.meta.deviceState).toEqual({ [addr]: 'error' });
      const stages = rig.stages(id);
      expect(stages.slice(-4)).toEqual(['DEVICE_ERROR', 'AP_CLOSE', 'HOST_WIFI_RESTORE', 'DONE']);
      expect(apOpen(rig)).toEqual([false]);
      expect(node.flashed).toEqual([]);
      expectRestored(rig);
    });
  });
});
