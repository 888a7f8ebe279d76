/**
 * Rows of the ota.md §7.7 end-to-end table not covered elsewhere: radio, WiFi and node
 * conditions a fleet update meets in the field, each ending with host WiFi restored.
 */
import { describe, expect, it, vi } from 'vitest';
import type { TaskSnapshot } from '../../../src/tasks/task-manager.ts';
import { colonBssid, predictApBssid } from '../../../src/services/wifi/backend.ts';
import { makeCfg, makeFirmware, makePresets } from '../../fixtures/ota/builders.ts';
import type { ApSource } from '../../fixtures/ota/fake-nmcli.ts';
import { withOtaRig, type Rig } from '../../fixtures/ota/rig.ts';

const result = (t: TaskSnapshot): Record<string, unknown> => t.result as Record<string, unknown>;
const msg = (t: TaskSnapshot, addr: string): string =>
  (t.meta.deviceMessages as Record<string, string>)[addr] ?? '';
const connects = (rig: Rig): string[] => rig.net.lines().filter((l) => l.includes('device wifi connect'));
const apOpen = (rig: Rig): boolean[] => (rig.h.host.sim?.fleet.nodes ?? []).map((n) => n.apActive);

/** The node hears none of the next `n` packets addressed to it (requests or their ACKs lost). */
function missPackets(rig: Rig, addr: string, n: number): () => number {
  const fleet = rig.h.host.sim?.fleet;
  const node = fleet?.node(addr);
  if (!fleet || !node) throw new Error('no simulated node');
  fleet.faults.silence(addr);
  let sent = 0;
  fleet.air.events.on('tx', (e) => {
    const to = Buffer.from(e.bytes.subarray(3, 6)).toString('hex').toUpperCase();
    if (e.sender === addr || to !== addr) return;
    sent++;
    if (sent === n) fleet.sched.at(e.end + 1, () => node.silence(false));
  });
  return () => sent;
}

function expectRestored(rig: Rig): void {
  expect(rig.net.active?.profile).toBe('Venue WiFi');
  expect(rig.net.profiles.has('lightnet-ota')).toBe(false);
  expect(rig.net.unknown).toEqual([]);
}

/** Presets-only run of one device (no reboot: quick, and the AP is closed explicitly). */
async function presetsRun(rig: Rig, extra: Record<string, unknown> = {}): Promise<TaskSnapshot> {
  const presetsName = await rig.uploadPresets(makePresets(2));
  return rig.start('/api/fw/start', {
    macs: [rig.addrs[0]],
    doFirmware: false,
    doPresets: true,
    presetsName,
    ...extra,
  });
}

describe('over-the-air scenarios of the test matrix', () => {
  it('silent-node-fails-at-ap-enable-without-touching-wifi-or-closing-an-ap', async () => {
    await withOtaRig({ nodes: 1 }, async (rig) => {
      const [addr = ''] = rig.addrs;
      rig.h.host.sim?.fleet.faults.silence(addr);
      const t = await presetsRun(rig);
      expect(t.meta.deviceState).toEqual({ [addr]: 'error' });
      expect(msg(t, addr)).toBe(`Timeout waiting for CONFIG ACK from ${addr} (AP-enable)`);
      const tries = rig.taskEvents(t.id).filter((e) => e.meta.stage === 'NODE_AP_ON');
      expect([...new Set(tries.map((e) => e.meta.attempt))]).toEqual([1, 2]);
      expect(rig.stages(t.id)).toEqual(['INIT', 'NODE_AP_ON', 'DEVICE_ERROR', 'HOST_WIFI_RESTORE', 'DONE']);
      expect(connects(rig)).toEqual([]);
      expect(rig.wled.requests).toEqual([]);
      expectRestored(rig);
    });
  });

  it('ap-that-never-appears-times-out-and-the-ap-is-still-closed', async () => {
    await withOtaRig({ nodes: 1 }, async (rig) => {
      const [addr = ''] = rig.addrs;
      rig.apOverride.set(rig.macOf[addr] ?? '', { ssid: 'Someone_Else' });
      const t = await presetsRun(rig, { wifi: { timeoutS: 5 } });
      expect(msg(t, addr)).toBe('timeout waiting for one of [WLED_RaceLink_AP, WLED-AP] to appear on wlan0');
      expect(rig.stages(t.id)).toEqual([
        'INIT',
        'NODE_AP_ON',
        'CONNECT_WIFI',
        'DEVICE_ERROR',
        'AP_CLOSE',
        'HOST_WIFI_RESTORE',
        'DONE',
      ]);
      expect(connects(rig)).toEqual([]);
      expect(apOpen(rig)).toEqual([false]);
      expectRestored(rig);
    });
  });

  it('open-node-ap-is-joined-without-a-password', async () => {
    await withOtaRig({ nodes: 1 }, async (rig) => {
      rig.apOverride.set(rig.macOf[rig.addrs[0] ?? ''] ?? '', { psk: null });
      const t = await presetsRun(rig);
      expect(result(t), JSON.stringify(t.result)).toMatchObject({ ok: true });
      const c = connects(rig);
      expect(c).toHaveLength(2);
      expect(c[0]).toContain(' password wled1234 ');
      expect(c[1]).not.toContain('password');
      expectRestored(rig);
    });
  });

  it('polkit-refusal-fails-at-once-with-an-actionable-text', async () => {
    await withOtaRig({ nodes: 1 }, async (rig) => {
      const [addr = ''] = rig.addrs;
      rig.net.knobs.polkit = true;
      const t = await presetsRun(rig);
      expect(msg(t, addr)).toMatch(/^nmcli access denied \(polkit\)\. Grant the user running Lightnet/);
      expect(msg(t, addr)).toContain('Not authorized to control networking');
      expect(connects(rig)).toHaveLength(1);
      expect(apOpen(rig)).toEqual([false]);
    });
  });

  it('radio-switched-off-by-someone-mid-run-is-switched-on-once-and-the-run-succeeds', async () => {
    await withOtaRig({ nodes: 1 }, async (rig) => {
      rig.net.knobs.radioOffAtConnect = true;
      const t = await presetsRun(rig);
      expect(result(t), JSON.stringify(t.result)).toMatchObject({ ok: true });
      expect(rig.stages(t.id)).toEqual([
        'INIT',
        'NODE_AP_ON',
        'CONNECT_WIFI',
        'HOST_WIFI_ON',
        'WAIT_HTTP',
        'UPLOAD_PRESETS',
        'DEVICE_DONE',
        'AP_CLOSE',
        'HOST_WIFI_RESTORE',
        'DONE',
      ]);
      expect(rig.net.lines()).toContain('radio wifi on');
      expect(rig.net.radioOn).toBe(true);
      expectRestored(rig);
    });
  });

  it('node-reporting-another-mac-times-out-in-wait-http', async () => {
    await withOtaRig({ nodes: 1 }, async (rig) => {
      const [addr = ''] = rig.addrs;
      rig.wled.node(rig.macOf[addr] ?? '').knobs.infoMac = '02AABBCCDDEE';
      const t = await presetsRun(rig);
      expect(msg(t, addr)).toMatch(
        new RegExp(
          `^Timeout waiting for node \\(baseUrl=${rig.wled.url}\\) to report expected mac [0-9A-F]*${addr} \\(last: node reported mac 02aabbccddee\\)$`,
          'i',
        ),
      );
      expect(rig.wled.requests.some((r) => r.path === '/upload')).toBe(false);
      expect(apOpen(rig)).toEqual([false]);
      expectRestored(rig);
    });
  });

  it('node-slow-to-start-its-http-server-is-polled-until-it-answers', async () => {
    await withOtaRig({ nodes: 1 }, async (rig) => {
      const [addr = ''] = rig.addrs;
      rig.wled.node(rig.macOf[addr] ?? '').knobs.infoFailures = 4;
      const t = await presetsRun(rig);
      expect(result(t), JSON.stringify(t.result)).toMatchObject({ ok: true });
      expect(rig.wled.requests.filter((r) => r.path === '/json/info').length).toBeGreaterThanOrEqual(5);
    });
  });

  it('ota-lock-with-the-matching-custom-password-is-unlocked-with-it', async () => {
    await withOtaRig({ nodes: 1 }, async (rig) => {
      const [addr = ''] = rig.addrs;
      const node = rig.wled.node(rig.macOf[addr] ?? '');
      node.otaLock = true;
      node.otaPass = 'pit-lane-42';
      const fwId = await rig.uploadFile('firmware', makeFirmware());
      const t = await rig.start('/api/fw/start', {
        macs: [addr],
        fwId,
        wifi: { otaPassword: 'pit-lane-42' },
      });
      expect(result(t), JSON.stringify(t.result)).toMatchObject({ ok: true });
      expect(rig.wled.requests.filter((r) => r.path === '/settings/sec').map((r) => r.body)).toEqual([
        'OP=pit-lane-42',
      ]);
      expect(node.otaLock).toBe(false);
      expect(node.flashed).toHaveLength(1);
      expect(msg(t, addr)).toMatch(/^automatic OTA unlock used/);
      // The password never appears in the task's texts.
      expect(JSON.stringify(rig.taskEvents(t.id))).not.toContain('pit-lane-42');
    });
  });

  it('settings-pin-makes-the-unlock-fail-and-stops-after-one-update-post', async () => {
    await withOtaRig({ nodes: 1 }, async (rig) => {
      const [addr = ''] = rig.addrs;
      rig.wled.node(rig.macOf[addr] ?? '').settingsPin = true;
      const fwId = await rig.uploadFile('firmware', makeFirmware());
      const t = await rig.start('/api/fw/start', { macs: [addr], fwId, retries: 4 });
      expect(msg(t, addr)).toMatch(
        /^Firmware upload failed: HTTP 401 from \/update \(Unauthorized\)\..* Auto-unlock POST to \/settings\/sec also failed/,
      );
      expect(rig.wled.requests.filter((r) => r.path === '/update').map((r) => r.status)).toEqual([401]);
      expect(apOpen(rig)).toEqual([false]);
      expectRestored(rig);
    });
  });

  it('cfg-only-reboots-the-node-and-waits-for-its-re-announce', async () => {
    await withOtaRig({ nodes: 1 }, async (rig) => {
      const [addr = ''] = rig.addrs;
      const cfg = makeCfg({ name: 'pit' });
      const cfgId = await rig.uploadFile('cfg', cfg);
      const t = await rig.start('/api/fw/start', { macs: [addr], doFirmware: false, doCfg: true, cfgId });
      expect(result(t), JSON.stringify(t.result)).toMatchObject({ ok: true, summary: '1/1 ok' });
      expect(rig.stages(t.id)).toEqual([
        'INIT',
        'NODE_AP_ON',
        'CONNECT_WIFI',
        'WAIT_HTTP',
        'UPLOAD_CFG',
        'DEVICE_DONE',
        'REANNOUNCE_WAIT',
        'AUTORESTORE_WAIT',
        'HOST_WIFI_RESTORE',
        'DONE',
      ]);
      expect(
        rig.wled
          .node(rig.macOf[addr] ?? '')
          .files.get('/cfg.json')
          ?.equals(cfg),
      ).toBe(true);
      expect(rig.wled.requests.some((r) => r.path === '/update')).toBe(false);
      expectRestored(rig);
    });
  });

  it('three-nodes-each-joined-on-its-own-bssid-while-earlier-aps-linger', async () => {
    await withOtaRig({ nodes: 3 }, async (rig) => {
      expect(rig.addrs).toHaveLength(3);
      rig.net.lingerRescans = 50;
      const presetsName = await rig.uploadPresets(makePresets(1));
      const t = await rig.start('/api/fw/start', {
        macs: rig.addrs,
        doFirmware: false,
        doPresets: true,
        presetsName,
      });
      expect(result(t), JSON.stringify(t.result)).toMatchObject({ ok: true, summary: '3/3 ok' });
      expect(connects(rig).map((l) => l.split(' bssid ')[1])).toEqual(
        rig.addrs.map((a) => colonBssid(predictApBssid(rig.macOf[a] ?? ''))),
      );
      for (const e of rig.taskEvents(t.id)) {
        const running = Object.values(e.meta.deviceState as Record<string, string>).filter(
          (s) => s === 'running',
        );
        expect(running.length).toBeLessThanOrEqual(1);
      }
      expectRestored(rig);
    });
  });

  it('an-exception-inside-a-device-step-ends-the-task-done-with-the-text-and-wifi-restored', async () => {
    await withOtaRig({ nodes: 1 }, async (rig) => {
      const [addr = ''] = rig.addrs;
      const spy = vi.spyOn(rig.h.host.services.driver, 'config').mockImplementationOnce(() => {
        throw new Error('radio service exploded');
      });
      try {
        const t = await presetsRun(rig);
        expect(t.state).toBe('done');
        expect(result(t)).toMatchObject({ ok: false, errors: [`${addr}: radio service exploded`] });
        expect(msg(t, addr)).toBe('radio service exploded');
        expectRestored(rig);
      } finally {
        spy.mockRestore();
      }
    });
  });
  it('wifi-none-talks-to-the-node-on-the-current-network-and-says-why-an-unreachable-one-timed-out', async () => {
    await withOtaRig({ nodes: 1, wifi: 'none' }, async (rig) => {
      const [addr = ''] = rig.addrs;
      const t = await presetsRun(rig);
      expect(result(t), JSON.stringify(t.result)).toMatchObject({
        ok: true,
        hostWifi: { backend: 'none', restored: true },
      });
      const connect = rig.taskEvents(t.id).find((e) => e.meta.stage === 'CONNECT_WIFI');
      expect(connect?.meta.message).toBe(
        `Host WiFi not switched (--wifi none): the node must be reachable at ${rig.wled.url}`,
      );
      expect(rig.net.log).toEqual([]);

      const t2 = await presetsRun(rig, { baseUrl: 'http://127.0.0.1:9' });
      expect(msg(t2, addr)).toMatch(
        /^Timeout waiting for node \(baseUrl=http:\/\/127\.0\.0\.1:9\) to report expected mac [0-9A-F]+ \(last: \/json\/info: connect ECONNREFUSED 127\.0\.0\.1:9\)$/,
      );
      expect(rig.h.host.sim?.fleet.nodes.map((n) => n.apActive)).toEqual([false]);
    });
  });
  it('ap-enable-packets-lost-on-the-radio-are-retransmitted-and-then-retried', async () => {
    await withOtaRig({ nodes: 1 }, async (rig) => {
      const [addr = ''] = rig.addrs;
      // One lost: the driver's retransmission inside try 1 gets through.
      let sent = missPackets(rig, addr, 1);
      const t1 = await presetsRun(rig);
      expect(result(t1), JSON.stringify(t1.result)).toMatchObject({ ok: true });
      const tries1 = rig.taskEvents(t1.id).filter((e) => e.meta.stage === 'NODE_AP_ON');
      expect([...new Set(tries1.map((e) => e.meta.attempt))]).toEqual([1]);
      expect(sent()).toBeGreaterThanOrEqual(2);

      // Three lost: try 1 (three transmissions) fails, try 2 succeeds.
      sent = missPackets(rig, addr, 3);
      const t2 = await presetsRun(rig);
      expect(result(t2), JSON.stringify(t2.result)).toMatchObject({ ok: true });
      const tries2 = rig.taskEvents(t2.id).filter((e) => e.meta.stage === 'NODE_AP_ON');
      expect([...new Set(tries2.map((e) => e.meta.attempt))]).toEqual([1, 2]);
      expect(msg(t2, addr)).toBe('');
    });
  });

  it('auto-restore-ack-lost-after-the-re-announce-times-out-but-the-device-stays-ok', async () => {
    await withOtaRig({ nodes: 1, timings: { autorestoreMs: 3000 } }, async (rig) => {
      const [addr = ''] = rig.addrs;
      const node = rig.wled.node(rig.macOf[addr] ?? '');
      node.otaSameSubnet = false;
      // The node goes deaf right after its first post-reboot announcement (after the
      // flash: a boot announcement from before the run must not count, however short
      // the discovery before it was).
      const off = rig.h.host.services.driver.on('packet', (p) => {
        if (p.packet.sender === addr && p.reply?.kind === 'IDENTIFY_REPLY' && node.flashed.length > 0) {
          off();
          rig.h.host.sim?.fleet.faults.silence(addr);
        }
      });
      const fwId = await rig.uploadFile('firmware', makeFirmware());
      const t = await rig.start('/api/fw/start', { macs: [addr], fwId });
      expect(result(t), JSON.stringify(t.result)).toMatchObject({ ok: true, summary: '1/1 ok' });
      expect(t.meta.deviceState).toEqual({ [addr]: 'ok' });
      expect((result(t).devices as { autoRestoreOk?: unknown }[])[0]?.autoRestoreOk).toBe('timeout');
      expect(rig.stages(t.id).slice(-4)).toEqual([
        'REANNOUNCE_WAIT',
        'AUTORESTORE_WAIT',
        'HOST_WIFI_RESTORE',
        'DONE',
      ]);
    });
  });
  it('two-fresh-candidate-aps-and-no-predicted-bssid-fail-with-the-explicit-ambiguity-text', async () => {
    const external: ApSource[] = [];
    // 5 s of connect budget: the fallback to fresh APs starts after half of it (rescans are 1.5 s apart).
    await withOtaRig({ nodes: 1, externalAps: external, timings: { connectScale: 1 } }, async (rig) => {
      const [addr = ''] = rig.addrs;
      rig.apOverride.set(rig.macOf[addr] ?? '', { bssid: '02:11:22:33:44:55' });
      // Another node's AP comes up at the same moment, under a candidate SSID.
      external.push({
        bssid: '02:99:88:77:66:55',
        ssid: 'WLED-AP',
        psk: 'wled1234',
        nodeMac: '02998877665A',
      });
      const t = await presetsRun(rig, { wifi: { timeoutS: 5 } });
      expect(msg(t, addr)).toBe(
        `cannot identify the node's AP (expected BSSID ${colonBssid(predictApBssid(rig.macOf[addr] ?? ''))}; ` +
          'saw 02:11:22:33:44:55, 02:99:88:77:66:55)',
      );
      expect(connects(rig)).toEqual([]);
      expect(apOpen(rig)).toEqual([false]);
      expectRestored(rig);
    });
  });
  it('captive-portal-redirect-is-never-followed-and-the-timeout-says-why', async () => {
    await withOtaRig({ nodes: 1 }, async (rig) => {
      const [addr = ''] = rig.addrs;
      rig.wled.node(rig.macOf[addr] ?? '').knobs.captivePortal = true;
      const t = await presetsRun(rig);
      expect(msg(t, addr)).toMatch(
        /\(last: HTTP 302 redirect from \/json\/info, not followed \(the node's captive portal\? use its IP address, e\.g\. http:\/\/4\.3\.2\.1, as baseUrl\)\)$/,
      );
      expect(rig.wled.requests.every((r) => r.path === '/json/info' && r.status === 302)).toBe(true);
      expectRestored(rig);
    });
  });
});
