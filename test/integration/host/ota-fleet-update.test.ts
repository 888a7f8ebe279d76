import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TaskSnapshot } from '../../../src/tasks/task-manager.ts';
import { makeCfg, makeFirmware, makePresets } from '../../fixtures/ota/builders.ts';
import { withOtaRig } from '../../fixtures/ota/rig.ts';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

describe('fleet update over the air', () => {
  it('firmware-presets-and-cfg-reach-every-node-with-live-states-and-wifi-restored', async () => {
    await withOtaRig({ nodes: 2 }, async (rig) => {
      const image = makeFirmware({ size: 200 * 1024, releaseName: 'Node_V4_TYPE_12' });
      const fwId = await rig.uploadFile('firmware', image, 'wled_new.bin');
      const cfg = makeCfg({ name: 'fleet' });
      const cfgId = await rig.uploadFile('cfg', cfg);
      const presets = makePresets(4);
      const presetsName = await rig.uploadPresets(presets);
      expect(rig.addrs).toHaveLength(2);
      const end = await rig.start('/api/fw/start', {
        macs: rig.addrs,
        doFirmware: true,
        doPresets: true,
        doCfg: true,
        fwId,
        presetsName,
        cfgId,
      });
      expect(end.state, end.last_error ?? '').toBe('done');
      const result = end.result as Record<string, unknown>;
      expect(result, JSON.stringify(result)).toMatchObject({ ok: true, summary: '2/2 ok', errors: [] });
      expect(end.meta.deviceState).toEqual(Object.fromEntries(rig.addrs.map((a) => [a, 'ok'])));

      // Every node received exactly the uploaded bytes, once, and the files.
      for (const a of rig.addrs) {
        const n = rig.wled.node(rig.macOf[a] ?? '');
        expect(n.flashed).toEqual([sha(image)]);
        expect(sha(n.files.get('/presets.json') ?? Buffer.alloc(0))).toBe(sha(presets));
        expect(sha(n.files.get('/cfg.json') ?? Buffer.alloc(0))).toBe(sha(cfg));
        // The automatic unlock cleared the default same-subnet gate with exactly OP=wledota.
        expect(n.otaSameSubnet).toBe(false);
      }
      const unlocks = rig.wled.requests.filter((r) => r.path === '/settings/sec');
      expect(unlocks.map((r) => r.body)).toEqual(['OP=wledota', 'OP=wledota']);
      // skipValidation is not sent unless asked; the file part is the only field.
      expect(
        rig.wled.requests.filter((r) => r.path === '/update' && r.status === 200).map((r) => r.fields),
      ).toEqual([['file'], ['file']]);

      const stages = rig.stages(end.id);
      const perDevice = [
        'NODE_AP_ON',
        'CONNECT_WIFI',
        'WAIT_HTTP',
        'UPLOAD_PRESETS',
        'UPLOAD_FW',
        'REANNOUNCE_WAIT',
        'NODE_AP_ON',
        'CONNECT_WIFI',
        'WAIT_HTTP',
        'UPLOAD_CFG',
        'DEVICE_DONE',
        'REANNOUNCE_WAIT',
        'AUTORESTORE_WAIT',
      ];
      expect(stages).toEqual(['INIT', ...perDevice, ...perDevice, 'HOST_WIFI_RESTORE', 'DONE']);

      // Never two devices running at once; earlier snapshots are not mutated afterwards.
      const events = rig.taskEvents(end.id);
      for (const e of events) {
        const states = Object.values(e.meta.deviceState as Record<string, string>);
        expect(states.filter((s) => s === 'running').length).toBeLessThanOrEqual(1);
      }
      const firstRunning = events.find((e) => e.meta.stage === 'NODE_AP_ON') as TaskSnapshot;
      expect(firstRunning.meta.deviceState).toEqual({
        [rig.addrs[0] ?? '']: 'running',
        [rig.addrs[1] ?? '']: 'queued',
      });
      // Upload progress per device reaches 100 %.
      const progress = events.map((e) => e.meta.deviceProgress as Record<string, { percent: number }>);
      expect(progress.some((p) => p[rig.addrs[0] ?? '']?.percent === 100)).toBe(true);
      expect(
        progress.some(
          (p) => (p[rig.addrs[0] ?? '']?.percent ?? 0) > 0 && (p[rig.addrs[0] ?? '']?.percent ?? 0) < 100,
        ),
      ).toBe(true);
      for (const e of events) expect(typeof e.elapsed_s).toBe('number');

      // WiFi: pinned connects through our own profile, the venue connection back at the end.
      const lines = rig.net.lines();
      const connects = lines.filter((l) => l.includes('device wifi connect'));
      expect(connects).toHaveLength(4);
      for (const c of connects)
        expect(c).toMatch(/name lightnet-ota password wled1234 bssid ([0-9A-F]{2}:){5}[0-9A-F]{2}$/);
      expect(lines).toContain('connection delete id lightnet-ota');
      expect(lines.slice(-2)).toEqual([
        `--wait 15 connection up uuid ${rig.net.venue.uuid} ifname wlan0`,
        '-t -f WIFI radio',
      ]);
      expect(result.hostWifi).toEqual({ wasEnabled: true, enabled: true, backend: 'nmcli', restored: true });
      expect(rig.net.unknown).toEqual([]);
      expect(rig.net.log.every((c) => c.lcAll === 'C')).toBe(true);
      expect(rig.net.active?.profile).toBe('Venue WiFi');
      expect(rig.net.profiles.has('lightnet-ota')).toBe(false);
      // Nodes are back in their groups and their APs closed (they rebooted).
      for (const n of rig.h.host.sim?.fleet.nodes ?? []) expect(n.apActive).toBe(false);
      await rig.sse.waitFor('refresh', (d) => (d as { what: string[] }).what.includes('devices'));
    });
  });
});
