import { describe, expect, it } from 'vitest';
import type { TaskSnapshot } from '../../../src/tasks/task-manager.ts';
import { makeFirmware } from '../../fixtures/ota/builders.ts';
import { withOtaRig } from '../../fixtures/ota/rig.ts';

describe('preset download and request validation', () => {
  it('presets-download-stores-the-node-file-and-failures-clean-up', async () => {
    await withOtaRig({ nodes: 1 }, async (rig) => {
      const [addr = ''] = rig.addrs;
      const before = rig.sse.events.length;
      const t = await rig.start('/api/presets/download', { mac: addr });
      expect(t.state).toBe('done');
      const r = t.result as { ok: boolean; file: { name: string; size: number }; errors: string[] };
      expect(r, JSON.stringify(r)).toMatchObject({ ok: true, errors: [] });
      expect(r.file.name).toMatch(/^presets_\d{8}_\d{6}(_\d+)?\.json$/);
      const list = await rig.h.get<{ files: { name: string }[]; current: string }>('/api/presets/list');
      expect(list.body.files.map((f) => f.name)).toContain(r.file.name);
      // Downloaded, not made active... except that the first file ever becomes current in the list.
      expect(rig.h.host.services.ledPresets.current()).toBeNull();
      // LED_PRESETS refresh came before the task's terminal event.
      const after = rig.sse.events.slice(before);
      const refreshAt = after.findIndex(
        (e) => e.event === 'refresh' && (e.data as { what: string[] }).what.includes('led_presets'),
      );
      const doneAt = after.findIndex(
        (e) =>
          e.event === 'task' &&
          (e.data as TaskSnapshot).id === t.id &&
          (e.data as TaskSnapshot).state === 'done',
      );
      expect(refreshAt).toBeGreaterThanOrEqual(0);
      expect(refreshAt).toBeLessThan(doneAt);
      expect(rig.stages(t.id)).toEqual([
        'INIT',
        'NODE_AP_ON',
        'CONNECT_WIFI',
        'WAIT_HTTP',
        'DOWNLOAD_PRESETS',
        'AP_CLOSE',
        'HOST_WIFI_RESTORE',
        'DONE',
      ]);
      for (const t2 of rig.taskEvents(t.id)) expect(t2.meta).toMatchObject({ addr, baseUrl: rig.wled.url });

      const node = rig.wled.node(rig.macOf[addr] ?? '');
      for (const [knob, text] of [
        ['missing', 'HTTP 404 from /presets.json'],
        ['empty', 'Empty presets.json response'],
        ['invalid', /^Invalid presets.json payload: presets.json is not valid JSON/],
      ] as const) {
        node.knobs.presets = knob;
        const f = await rig.start('/api/presets/download', { mac: addr });
        const fr = f.result as { ok: boolean; errors: string[]; file: unknown };
        expect(fr.ok).toBe(false);
        expect(fr.file).toBeNull();
        expect(fr.errors[0]).toMatch(text);
        expect(rig.stages(f.id).slice(-3)).toEqual(['AP_CLOSE', 'HOST_WIFI_RESTORE', 'DONE']);
      }
      expect((await rig.h.get<{ files: unknown[] }>('/api/presets/list')).body.files).toHaveLength(1);
      expect(rig.h.host.sim?.fleet.nodes.map((n) => n.apActive)).toEqual([false]);
      expect(rig.net.active?.profile).toBe('Venue WiFi');
      expect(rig.net.unknown).toEqual([]);
    });
  });

  it('fw-start-and-download-requests-are-validated-with-the-field-named', async () => {
    await withOtaRig({ nodes: 1 }, async (rig) => {
      const [addr = ''] = rig.addrs;
      const fwId = await rig.uploadFile('firmware', makeFirmware());
      const cfgId = await rig.uploadFile('cfg', Buffer.from('{"rev":[1,0]}'));
      const bad: [Record<string, unknown>, string | RegExp][] = [
        [{}, 'macs: is required'],
        [{ macs: [] }, 'macs: missing macs'],
        [{ macs: ['zz'], fwId }, /^macs\[0\]: must be 6 or 12 hex/],
        [{ macs: ['FFFFFF'], fwId }, 'macs[0]: broadcast address not allowed'],
        [{ macs: ['123456'], fwId }, 'macs[0]: unknown device 123456'],
        [{ macs: [addr], doFirmware: false }, /no operations selected/],
        [{ macs: [addr], doFirmware: 'false', fwId }, 'doFirmware: must be a boolean (true or false)'],
        [{ macs: [addr] }, 'fwId: required when doFirmware is true (an id from GET /api/fw/uploads)'],
        [{ macs: [addr], fwId: cfgId }, `fwId: firmware file not uploaded (${cfgId} is a cfg upload)`],
        [{ macs: [addr], fwId: 'abcdefabcdef' }, 'fwId: firmware file not uploaded'],
        [{ macs: [addr], fwId, wifi: 'open' }, 'wifi: must be an object'],
        [
          { macs: [addr], doFirmware: false, doCfg: true },
          'cfgId: required when doCfg is true (an id from GET /api/fw/uploads)',
        ],
        [{ macs: [addr], fwId: '../../etc/passwd' }, 'fwId: firmware file not uploaded'],
        [
          { macs: [addr], doFirmware: false, doCfg: true, cfgId: fwId },
          `cfgId: cfg file not uploaded (${fwId} is a firmware upload)`,
        ],
        [
          { macs: [addr], doFirmware: false, doPresets: true, presetsName: '../state.json' },
          'presetsName: presets file not found',
        ],
        [{ macs: [addr], fwId, retries: 1.5 }, 'retries: must be an integer'],
        [
          { macs: [addr], fwId, wifi: { ssids: [] } },
          'wifi.ssids: at least one SSID required (default: WLED_RaceLink_AP, WLED-AP)',
        ],
        [{ macs: [addr], fwId, wifi: { ssid: ' , ' } }, /^wifi.ssids: at least one SSID required/],
        [{ macs: [addr], fwId, wifiSsid: 'x'.repeat(33) }, /^wifi.ssids: invalid SSID/],
        [{ macs: [addr], fwId, wifi: { iface: '-o' } }, 'wifi.iface: invalid interface name'],
        [{ macs: [addr], fwId, wifi: { iface: 'wlan0;reboot' } }, 'wifi.iface: invalid interface name'],
        [{ macs: [addr], fwId, wifiBssid: 'aa:bb' }, 'wifi.bssid: must look like AA:BB:CC:DD:EE:FF'],
        [
          { macs: [addr], fwId, wifi: { password: 'short' } },
          'wifi.password: must be 8..63 printable ASCII characters',
        ],
        [{ macs: [addr], fwId, wifi: { timeoutS: 1 } }, 'wifi.timeoutS: must be between 5 and 120'],
        [
          { macs: [addr], fwId, wifi: { hostWifiEnable: 'yes' } },
          'wifi.hostWifiEnable: must be a boolean (true or false)',
        ],
        [{ macs: [addr], fwId, baseUrl: 'https://4.3.2.1' }, /^baseUrl: invalid baseUrl/],
        [{ macs: [addr], fwId, baseUrl: 'http://8.8.8.8' }, /^baseUrl: invalid baseUrl/],
        [{ macs: [addr], fwId, baseUrl: 'http://4.3.2.1/update' }, /^baseUrl: invalid baseUrl/],
        [{ macs: [addr], fwId, baseUrl: 'http://user:pw@10.0.0.2' }, /^baseUrl: invalid baseUrl/],
        [{ macs: [addr], fwId, baseUrl: 'http://example.com' }, /^baseUrl: invalid baseUrl/],
      ];
      for (const [body, err] of bad) {
        const r = await rig.h.post<{ ok: boolean; error: string }>('/api/fw/start', body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.body.ok).toBe(false);
        if (typeof err === 'string') expect(r.body.error, JSON.stringify(body)).toBe(err);
        else expect(r.body.error, JSON.stringify(body)).toMatch(err);
      }
      for (const [body, err] of [
        [{}, 'mac: is required'],
        [{ mac: 'FFFFFF' }, 'mac: broadcast address not allowed'],
        [{ mac: addr, wifi: { ssids: [] } }, /^wifi.ssids: at least one SSID required/],
      ] as const) {
        const r = await rig.h.post<{ error: string }>('/api/presets/download', body);
        expect(r.status).toBe(400);
        expect(r.body.error).toMatch(err);
      }
      expect(rig.h.host.services.tasks.current()?.name).toBe('discover');
      // Accepted spellings: 12-hex MAC with separators, root aliases, retries clamped, .local and private base URLs.
      const ok = await rig.h.post<{ task: TaskSnapshot }>('/api/fw/start', {
        macs: [rig.macOf[addr]?.replace(/(..)(?!$)/g, '$1:')],
        fwId,
        retries: 0,
        wifiSsid: 'WLED_RaceLink_AP, WLED-AP',
        connName: 'ignored',
        baseUrl: rig.wled.url + '/',
      });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ok.body.task.meta).toMatchObject({
        stage: 'INIT',
        retries: 1,
        macs: [addr],
        baseUrl: rig.wled.url,
      });
      await rig.h.waitTask(ok.body.task.id, 120_000);
    });
  });
});
