import { describe, expect, it } from 'vitest';
import type { TaskSnapshot } from '../../../src/tasks/task-manager.ts';
import { makeFirmware, makePresets } from '../../fixtures/ota/builders.ts';
import { withOtaRig } from '../../fixtures/ota/rig.ts';

describe('host WiFi around over-the-air runs', () => {
  it('without-nmcli-every-device-fails-fast-and-interfaces-are-empty', async () => {
    await withOtaRig({ nodes: 1, nmcliMissing: true }, async (rig) => {
      const [addr = ''] = rig.addrs;
      expect((await rig.h.get('/api/wifi/interfaces')).body).toEqual({
        ok: true,
        ifaces: [],
        backend: 'nmcli',
        canSwitch: false,
        problem: 'nmcli not available on host (cannot switch WiFi automatically)',
      });
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

  // A host without NetworkManager (the backend fell back to none because nmcli is missing):
  // the dialog is told up front, and a run that could only reach the node inside its
  // access point fails at once with the reason instead of after a 90 s wait per device.
  it('nmcli-missing-fallback-says-so-up-front-and-the-run-fails-at-once', async () => {
    const missing = 'NetworkManager (nmcli) is not installed on this host';
    await withOtaRig({ nodes: 1, wifi: 'none', wifiMissing: missing }, async (rig) => {
      const [addr = ''] = rig.addrs;
      const w = await rig.h.get<{ backend: string; canSwitch: boolean; problem: string }>(
        '/api/wifi/interfaces',
      );
      expect(w.body).toMatchObject({ ok: true, ifaces: [], backend: 'none', canSwitch: false });
      expect(w.body.problem).toMatch(
        /^NetworkManager \(nmcli\) is not installed on this host: the host cannot join/,
      );
      const fwId = await rig.uploadFile('firmware', makeFirmware());
      const t = await rig.start('/api/fw/start', { macs: [addr], fwId, baseUrl: 'http://4.3.2.1' });
      expect(t.meta.deviceState).toEqual({ [addr]: 'error' });
      expect(String((t.meta.deviceMessages as Record<string, string>)[addr])).toMatch(
        /^NetworkManager \(nmcli\) is not installed on this host: the host cannot join the node's WiFi access point, so http:\/\/4\.3\.2\.1 cannot be reached/,
      );
      // Before any radio traffic, and well inside one node wait (the rig's is 3 s).
      expect(rig.stages(t.id)).toEqual(['INIT', 'DONE']);
      expect((t.ended_ts ?? 0) - t.started_ts).toBeLessThan(3);
      expect(rig.h.host.sim?.fleet.nodes.map((n) => n.apActive)).toEqual([false]);
      // A node that answers from this network (its own address as base URL) still updates.
      const lan = await rig.start('/api/fw/start', { macs: [addr], fwId });
      expect(lan.meta.deviceState).toEqual({ [addr]: 'ok' });
    });
  });

  it('nmcli-without-a-wifi-interface-says-so-and-the-run-fails-at-once', async () => {
    await withOtaRig({ nodes: 1 }, async (rig) => {
      const [addr = ''] = rig.addrs;
      rig.net.knobs.noWifiIface = true;
      const w = await rig.h.get('/api/wifi/interfaces');
      expect(w.body).toEqual({
        ok: true,
        ifaces: [],
        backend: 'nmcli',
        canSwitch: false,
        problem:
          "This host has no WiFi interface (NetworkManager lists none): it cannot join a node's access point.",
      });
      const presetsName = await rig.uploadPresets(makePresets(1));
      const t = await rig.start('/api/fw/start', {
        macs: [addr],
        doFirmware: false,
        doPresets: true,
        presetsName,
      });
      expect((t.meta.deviceMessages as Record<string, string>)[addr]).toBe(
        "this host has no WiFi interface (NetworkManager lists none): the host cannot join a node's access point",
      );
      expect(rig.stages(t.id)).toEqual(['INIT', 'DONE']);
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
