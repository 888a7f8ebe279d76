import { describe, expect, it } from 'vitest';
import type { TaskSnapshot } from '../../../src/tasks/task-manager.ts';
import { makeCfg, makeFirmware } from '../../fixtures/ota/builders.ts';
import { withOtaRig, type Rig } from '../../fixtures/ota/rig.ts';

const result = (t: TaskSnapshot): Record<string, unknown> => t.result as Record<string, unknown>;
const msg = (t: TaskSnapshot, addr: string): string =>
  (t.meta.deviceMessages as Record<string, string>)[addr] ?? '';
/** Method and path of every request the fake node saw, from the first /update on. */
const fromFirstUpdate = (rig: Rig): string[] => {
  const all = rig.wled.requests.map((r) => `${r.method} ${r.path}`);
  return all.slice(all.indexOf('POST /update'));
};
const apOpen = (rig: Rig): boolean[] => (rig.h.host.sim?.fleet.nodes ?? []).map((n) => n.apActive);

describe('firmware upload whose confirmation is lost (ota.md §3.8.1)', () => {
  it('node-flashes-drops-the-reply-and-re-announces-so-the-device-is-ok-but-unconfirmed', async () => {
    await withOtaRig({ nodes: 1 }, async (rig) => {
      const [addr = ''] = rig.addrs;
      const node = rig.wled.node(rig.macOf[addr] ?? '');
      node.otaSameSubnet = false;
      node.knobs.loseConfirmations = 1;
      const image = makeFirmware();
      const fwId = await rig.uploadFile('firmware', image);
      const t = await rig.start('/api/fw/start', { macs: [addr], fwId, retries: 3 });

      expect(t.state).toBe('done');
      expect(result(t), JSON.stringify(t.result)).toMatchObject({ ok: true, summary: '1/1 ok', errors: [] });
      expect(t.meta.deviceState).toEqual({ [addr]: 'ok' });
      expect(msg(t, addr)).toBe('upload unconfirmed; node re-announced after reboot — verify version');
      // One POST (never a second one into a flashing node), one probe that found nobody.
      expect(fromFirstUpdate(rig)).toEqual(['POST /update', 'GET /json/info']);
      expect(node.flashed).toHaveLength(1);
      expect(rig.stages(t.id)).toEqual([
        'INIT',
        'NODE_AP_ON',
        'CONNECT_WIFI',
        'WAIT_HTTP',
        'UPLOAD_FW',
        'REANNOUNCE_WAIT',
        'DEVICE_DONE',
        'AUTORESTORE_WAIT',
        'HOST_WIFI_RESTORE',
        'DONE',
      ]);
      const wait = rig.taskEvents(t.id).find((e) => e.meta.stage === 'REANNOUNCE_WAIT');
      expect(wait?.meta.message).toBe(
        `Firmware upload to ${addr} unconfirmed (node stopped answering); waiting for it to re-register on the radio after reboot`,
      );
      // While it waited, the device was not yet counted as done.
      expect(wait?.meta.deviceState).toEqual({ [addr]: 'running' });
      expect((result(t).devices as { autoRestoreOk?: unknown }[])[0]?.autoRestoreOk).toBe(true);
      expect(apOpen(rig)).toEqual([false]);
      expect(rig.net.active?.profile).toBe('Venue WiFi');
    });
  });

  it('node-drops-the-reply-and-never-re-announces-so-the-device-fails-with-the-reason', async () => {
    await withOtaRig({ nodes: 1, timings: { reannounceMs: 6000 } }, async (rig) => {
      const [addr = ''] = rig.addrs;
      const node = rig.wled.node(rig.macOf[addr] ?? '');
      node.otaSameSubnet = false;
      node.knobs.loseConfirmations = 1;
      node.knobs.neverAnnounce = true;
      const fwId = await rig.uploadFile('firmware', makeFirmware());
      const t = await rig.start('/api/fw/start', { macs: [addr], fwId, retries: 3 });

      expect(t.state).toBe('done');
      expect(t.meta.deviceState).toEqual({ [addr]: 'error' });
      expect(msg(t, addr)).toMatch(
        /^Firmware upload unconfirmed \(\/update: .+ \(whole body sent, no reply\)\) and the node did not re-register on the radio within 6s$/,
      );
      expect(result(t)).toMatchObject({ ok: false, summary: '0/1 ok, 1 error(s)' });
      expect(result(t).errors).toEqual([`${addr}: ${msg(t, addr)}`]);
      expect(fromFirstUpdate(rig)).toEqual(['POST /update', 'GET /json/info']);
      const stages = rig.stages(t.id);
      expect(stages).toEqual([
        'INIT',
        'NODE_AP_ON',
        'CONNECT_WIFI',
        'WAIT_HTTP',
        'UPLOAD_FW',
        'REANNOUNCE_WAIT',
        'DEVICE_ERROR',
        // The node may still be up with its AP open: it is told to close it (no ACK from a dead node).
        'AP_CLOSE',
        'HOST_WIFI_RESTORE',
        'DONE',
      ]);
      expect(rig.net.active?.profile).toBe('Venue WiFi');
    });
  });

  it('connection-reset-on-a-node-that-still-answers-is-retried-as-before', async () => {
    await withOtaRig({ nodes: 1 }, async (rig) => {
      const [addr = ''] = rig.addrs;
      const node = rig.wled.node(rig.macOf[addr] ?? '');
      node.otaSameSubnet = false;
      node.knobs.resetUpdates = 1;
      const fwId = await rig.uploadFile('firmware', makeFirmware({ size: 1_500_000 }));
      const t = await rig.start('/api/fw/start', { macs: [addr], fwId, retries: 3 });

      expect(result(t), JSON.stringify(t.result)).toMatchObject({ ok: true, summary: '1/1 ok' });
      expect(msg(t, addr)).toBe('');
      // Loopback buffers may swallow the whole body before the reset arrives; then the
      // probe finds the node still there and the attempt is simply retried.
      const probes = rig.wled.requests.filter((r) => r.path === '/json/info').slice(-1);
      expect(fromFirstUpdate(rig).filter((r) => r !== 'GET /json/info')).toEqual([
        'POST /update',
        'POST /update',
      ]);
      expect(probes.every((r) => r.status === 200)).toBe(true);
      const attempts = rig
        .taskEvents(t.id)
        .filter((e) => e.meta.stage === 'UPLOAD_FW')
        .map((e) => e.meta.attempt);
      expect([...new Set(attempts)]).toEqual([1, 2]);
      expect(node.flashed).toHaveLength(1);
    });
  });
  it('firmware-and-cfg-replies-both-lost-still-end-ok-once-each-reboot-was-seen', async () => {
    await withOtaRig({ nodes: 1 }, async (rig) => {
      const [addr = ''] = rig.addrs;
      const node = rig.wled.node(rig.macOf[addr] ?? '');
      node.otaSameSubnet = false;
      node.knobs.loseConfirmations = 2;
      const fwId = await rig.uploadFile('firmware', makeFirmware());
      const cfg = makeCfg({ name: 'lost' });
      const cfgId = await rig.uploadFile('cfg', cfg);
      const t = await rig.start('/api/fw/start', { macs: [addr], fwId, doCfg: true, cfgId });

      expect(result(t), JSON.stringify(t.result)).toMatchObject({ ok: true, summary: '1/1 ok' });
      expect(msg(t, addr)).toBe(
        'upload unconfirmed; node re-announced after reboot — verify version; ' +
          'cfg.json upload unconfirmed; node re-announced after reboot — verify its settings',
      );
      expect(node.flashed).toHaveLength(1);
      expect(node.files.get('/cfg.json')?.equals(cfg)).toBe(true);
      expect(rig.wled.requests.filter((r) => r.path === '/update' || r.path === '/upload')).toHaveLength(2);
      expect(rig.stages(t.id)).toEqual([
        'INIT',
        'NODE_AP_ON',
        'CONNECT_WIFI',
        'WAIT_HTTP',
        'UPLOAD_FW',
        'REANNOUNCE_WAIT',
        'NODE_AP_ON',
        'CONNECT_WIFI',
        'WAIT_HTTP',
        'UPLOAD_CFG',
        'REANNOUNCE_WAIT',
        'DEVICE_DONE',
        'AUTORESTORE_WAIT',
        'HOST_WIFI_RESTORE',
        'DONE',
      ]);
      const waits = rig.taskEvents(t.id).filter((e) => e.meta.stage === 'REANNOUNCE_WAIT');
      expect([...new Set(waits.map((e) => e.meta.message))]).toEqual([
        `Firmware upload to ${addr} unconfirmed (node stopped answering); waiting for it to re-register on the radio after reboot`,
        `cfg.json upload to ${addr} unconfirmed (node stopped answering); waiting for it to re-register on the radio after reboot`,
      ]);
      expect(apOpen(rig)).toEqual([false]);
      expect(rig.net.active?.profile).toBe('Venue WiFi');
    });
  });
});
