import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { colonBssid, predictApBssid } from '../../../src/services/wifi/backend.ts';
import { makeFirmware, multipartBody } from '../../fixtures/ota/builders.ts';
import { FakeNetwork, startNmcliControl, type ApSource } from '../../fixtures/ota/fake-nmcli.ts';
import { FakeWled } from '../../fixtures/ota/fake-wled.ts';
import { FAKE_BIN } from '../../fixtures/ota/rig.ts';
import { freePort } from '../harness.ts';
import { until } from '../../until.ts';

/** Polls a condition (each check is an HTTP call or a look at recorded state), never a fixed sleep. */

async function startHostProcess(
  dataDir: string,
  port: number,
  env: NodeJS.ProcessEnv,
): Promise<ChildProcess> {
  const args = [
    '--import',
    'tsx',
    'src/main.ts',
    '--gateway',
    'sim',
    '--sim-nodes',
    '1',
    '--sim-time-scale',
    '0.2',
  ];
  const child = spawn(
    process.execPath,
    [
      ...args,
      '--port',
      String(port),
      '--data-dir',
      dataDir,
      '--sim-data-dir',
      dataDir,
      '--wifi',
      'nmcli',
      '--log-level',
      'silent',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], env },
  );
  await until('host ready', async () => {
    if (child.exitCode !== null) throw new Error(`host exited with ${child.exitCode}`);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/lightnet/api/health`);
      return r.ok && ((await r.json()) as { phase: string }).phase === 'ready';
    } catch {
      return false;
    }
  });
  return child;
}

describe('host killed during an update', () => {
  it('host-killed-mid-upload-restores-wifi-on-the-next-start', async () => {
    const aps: ApSource[] = [];
    const net = new FakeNetwork(() => aps);
    const ctl = await startNmcliControl(net);
    const wled = new FakeWled({ reachable: () => net.associatedNode(), reboot: () => net.dropAssociation() });
    await wled.start();
    const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-crash-'));
    const env = { ...process.env, PATH: `${FAKE_BIN}:${process.env.PATH ?? ''}`, FAKE_NMCLI_CTL: ctl.url };
    const port = await freePort();
    const base = `http://127.0.0.1:${port}/lightnet/api`;
    let child: ChildProcess | null = null;
    try {
      child = await startHostProcess(dataDir, port, env);
      await fetch(`${base}/discover`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      const devices = await until('a discovered device', async () => {
        const t = (await (await fetch(`${base}/task`)).json()) as { task: { state: string } | null };
        if (t.task?.state === 'running') return null;
        const d = (await (await fetch(`${base}/devices`)).json()) as {
          devices: { addr: string; full_mac: string }[];
        };
        return d.devices.length ? d.devices : null;
      });
      const dev = devices[0] as { addr: string; full_mac: string };
      aps.push({
        bssid: colonBssid(predictApBssid(dev.full_mac)),
        ssid: 'WLED_RaceLink_AP',
        psk: 'wled1234',
        nodeMac: dev.full_mac,
      });
      const node = wled.node(dev.full_mac);
      node.otaSameSubnet = false;
      node.knobs.stallUpdate = true;
      const { body, contentType } = multipartBody([
        { name: 'kind', value: 'firmware' },
        { name: 'file', filename: 'fw.bin', data: makeFirmware({ size: 600_000 }) },
      ]);
      const up = (await (
        await fetch(`${base}/fw/upload`, { method: 'POST', headers: { 'content-type': contentType }, body })
      ).json()) as {
        file: { id: string };
      };
      const start = await fetch(`${base}/fw/start`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ macs: [dev.addr], fwId: up.file.id, baseUrl: wled.url }),
      });
      expect(start.status).toBe(200);
      await until('the upload to start', () => wled.requests.some((r) => r.path === '/update'));
      expect(net.active?.profile).toBe('lightnet-ota');
      expect(existsSync(join(dataDir, 'wifi-lease.json'))).toBe(true);

      child.kill('SIGKILL');
      await new Promise((r) => child?.once('exit', r));
      const before = net.log.length;
      child = await startHostProcess(dataDir, port, env);
      const after = net.lines().slice(before);
      expect(after).toContain('connection delete id lightnet-ota');
      expect(after).toContain(`--wait 15 connection up uuid ${net.venue.uuid} ifname wlan0`);
      expect(net.active?.profile).toBe('Venue WiFi');
      expect(net.profiles.has('lightnet-ota')).toBe(false);
      expect(existsSync(join(dataDir, 'wifi-lease.json'))).toBe(false);
      const task = (await (await fetch(`${base}/task`)).json()) as { task: unknown };
      expect(task.task).toBeNull();
      expect(net.unknown).toEqual([]);
    } finally {
      child?.kill('SIGKILL');
      await wled.close();
      await ctl.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
