import { describe, expect, it } from 'vitest';
import type { TaskSnapshot } from '../../../src/tasks/task-manager.ts';
import { makeFirmware, makePresets } from '../../fixtures/ota/builders.ts';
import { withOtaRig } from '../../fixtures/ota/rig.ts';

const msg = (t: TaskSnapshot, addr: string): string =>
  (t.meta.deviceMessages as Record<string, string>)[addr] ?? '';

describe('how the host reads node replies', () => {
  it('transient-reset-is-retried-busy-and-old-build-failure-pages-are-not', async () => {
    await withOtaRig({ nodes: 1 }, async (rig) => {
      const [addr = ''] = rig.addrs;
      const node = rig.wled.node(rig.macOf[addr] ?? '');
      node.otaSameSubnet = false;
      const fwId = await rig.uploadFile('firmware', makeFirmware());

      node.knobs.resetUpdates = 1;
      const t1 = await rig.start('/api/fw/start', { macs: [addr], fwId, retries: 3 });
      expect(t1.result, JSON.stringify(t1.result)).toMatchObject({ ok: true });
      const attempts = rig
        .taskEvents(t1.id)
        .filter((e) => e.meta.stage === 'UPLOAD_FW')
        .map((e) => e.meta.attempt);
      expect([...new Set(attempts)]).toEqual([1, 2]);
      expect(node.flashed).toHaveLength(1);

      node.knobs.busy = true;
      const t2 = await rig.start('/api/fw/start', { macs: [addr], fwId, retries: 3 });
      expect(msg(t2, addr)).toBe('Firmware upload failed: HTTP 503 from /update');
      expect(
        rig
          .taskEvents(t2.id)
          .filter((e) => e.meta.stage === 'UPLOAD_FW')
          .every((e) => e.meta.attempt === 1),
      ).toBe(true);
      node.knobs.busy = false;

      node.knobs.oldBuildFailPage = true;
      const noMeta = await rig.uploadFile('firmware', makeFirmware({ withMetadata: false }));
      const t3 = await rig.start('/api/fw/start', { macs: [addr], fwId: noMeta, retries: 3 });
      expect(msg(t3, addr)).toMatch(
        /^Firmware upload failed: WLED reported flash failure on \/update \(HTTP 200 body: Update failed!/,
      );
      expect(node.flashed).toHaveLength(1);
      expect(rig.h.host.sim?.fleet.nodes.map((n) => n.apActive)).toEqual([false]);
      expect(rig.net.active?.profile).toBe('Venue WiFi');
    });
  });

  it('node-ap-with-an-unexpected-bssid-is-found-as-the-fresh-ap', async () => {
    // The rig's default connect budget (5 s of wall time): fake nmcli runs as child
    // processes, and on a loaded 2-core machine 2 s was not always enough to see the AP.
    await withOtaRig({ nodes: 1 }, async (rig) => {
      const [addr = ''] = rig.addrs;
      rig.apOverride.set(rig.macOf[addr] ?? '', { bssid: '02:11:22:33:44:55' });
      const presetsName = await rig.uploadPresets(makePresets(1));
      const t = await rig.start('/api/fw/start', {
        macs: [addr],
        doFirmware: false,
        doPresets: true,
        presetsName,
      });
      expect(t.result, JSON.stringify(t.result)).toMatchObject({ ok: true });
      expect(rig.net.lines().find((l) => l.includes('device wifi connect'))).toMatch(
        /bssid 02:11:22:33:44:55$/,
      );
    });
  });
});
