import { describe, expect, it } from 'vitest';
import type { TaskSnapshot } from '../../../src/tasks/task-manager.ts';
import { makeFirmware, makePresets } from '../../fixtures/ota/builders.ts';
import { withOtaRig } from '../../fixtures/ota/rig.ts';

describe('host WiFi around over-the-air runs', () => {
  it('without-nmcli-every-device-fails-fast-and-interfaces-are-empty', async () => {
    await withOtaRig({ nodes: 1, nmcliMissing: true }, async (rig) => {
      const [addr = ''] = rig.addrs;
      expect((await rig.h.get('/api/wifi/interfaces')).body).toEqual({ ok: true, ifaces: [] });
      const fwId = await rig.uploadFile('firmware', makeFirmware());
      const t = await rig.start('/api/fw/start', { macs: [addr], fwId });
      expect(t.state).toBe('done');
      const text = 'nmcli not available on host (cannot switch WiFi automatically)';
      expect(t.meta.deviceState).toEqual({ [addr]: 'error' });
      expect(t.meta.deviceMessages).toEqual({ [addr]: text });
      expect(t.result).toMatchObject({
        ok: false,
        errors: [`${addr}: ${text}`],
        summary: '0/1 ok, 1 error(s)',
      });
      // No radio traffic to open an AP that nobody could join.
      expect(rig.stages(t.id)).toEqual(['INIT', 'DONE']);
      expect(rig.h.host.sim?.fleet.nodes.map((n) => n.apActive)).toEqual([false]);
    });
  });

  it('radio-off-at-start-is-switched-on-for-the-run-and-off-again', async () => {
    await withOtaRig({ nodes: 1 }, async (rig) => {
      const [addr = ''] = rig.addrs;
      rig.net.radioOn = false;
      rig.net.active = null;
      const presetsName = await rig.uploadPresets(makePresets(1));
      const t = await rig.start('/api/fw/start', {
        macs: [addr],
        doFirmware: false,
        doPresets: true,
        presetsName,
      });
      expect(t.result, JSON.stringify(t.result)).toMatchObject({
        ok: true,
        hostWifi: { wasEnabled: false, enabled: false, restored: true },
      });
      expect(rig.stages(t.id).slice(0, 3)).toEqual(['INIT', 'HOST_WIFI_ON', 'NODE_AP_ON']);
      const lines = rig.net.lines();
      expect(lines).toContain('radio wifi on');
      expect(lines.slice(-2)).toEqual(['radio wifi off', '-t -f WIFI radio']);
      expect(rig.net.radioOn).toBe(false);
      expect(rig.net.unknown).toEqual([]);
    });
  });

  it('shutdown-during-an-upload-closes-the-ap-and-restores-wifi', async () => {
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
      await rig.sse.waitFor(
        'task',
        (d) =>
          (d as TaskSnapshot | null)?.id === r.body.task.id && (d as TaskSnapshot).meta.stage === 'UPLOAD_FW',
      );
      await rig.h.host.close();
      expect(rig.net.active?.profile).toBe('Venue WiFi');
      expect(rig.net.profiles.has('lightnet-ota')).toBe(false);
      expect(rig.h.host.sim?.fleet.nodes.map((n) => n.apActive)).toEqual([false]);
      expect(rig.net.unknown).toEqual([]);
    });
  });
});
