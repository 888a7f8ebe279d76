/**
 * The release's RotorHazard plugin zip in the real RotorHazard 4.4.0: uploaded through
 * RotorHazard's own plugin install path (the `plugin_install` upload its Plugins page
 * sends), which checks the manifest's required RHAPI version and extracts the zip without
 * execute bits; after the restart RotorHazard asks for, the plugin starts the host it
 * carries (host/ in the plugin folder, run as `node <script>`) and Lightnet answers through
 * RotorHazard's port. Without node on PATH, the plugin says so with the command to run.
 * Skipped, saying so, when LIGHTNET_ROTORHAZARD names no launcher.
 */
import { readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, AUTH, RH_LAUNCHER, rotorhazardAvailable } from './rotorhazard/rig.ts';
import { SocketIoClient } from './rotorhazard/socketio.ts';
import { bareEnv, buildRelease, VERSION, type Release } from './release/artifacts.ts';
import { startRotorHazard, type RotorHazard } from './release/rotorhazard-process.ts';

const available = rotorhazardAvailable();
if (!available) {
  console.warn(
    `SKIPPED rotorhazard-zip tests: LIGHTNET_ROTORHAZARD ${RH_LAUNCHER ? `(${RH_LAUNCHER}) does not exist` : 'is not set'} ` +
      '(point it at ../shared/tools/rotorhazard.sh)',
  );
}

const PORT = 6830;
let release: Release;
let data: string;
let rh: RotorHazard | null = null;

interface PluginStatus {
  problem: string | null;
  host: { state: string; pid: number | null } | null;
}

async function get<T>(path: string): Promise<{ status: number; body: T }> {
  const r = await fetch(`http://127.0.0.1:${PORT}${path}`, { headers: { authorization: AUTH } });
  const text = await r.text();
  return { status: r.status, body: (text.startsWith('{') ? JSON.parse(text) : text) as T };
}

async function until<T>(
  fn: () => Promise<T | null | undefined | false>,
  what: string,
  ms = 60_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${rh?.output().slice(-3000)}`);
    // State polling: the plugin and its host act on their own schedule.
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!available)('the release plugin zip in RotorHazard', () => {
  beforeAll(async () => {
    release = await buildRelease();
    data = await mkdtemp(join(tmpdir(), 'lightnet-rhzip-'));
    await writeFile(
      join(data, 'config.json'),
      JSON.stringify({
        GENERAL: { HTTP_PORT: PORT },
        PLUGINS: { UPDATE_BEHAVIOR: 'never' },
        SECRETS: { ADMIN_USERNAME: ADMIN.user, ADMIN_PASSWORD: ADMIN.password },
      }),
    );
  }, 120_000);

  afterAll(async () => {
    await rh?.stop();
    await rm(data, { recursive: true, force: true });
    await release.cleanup();
  });

  it('installs-through-rotorhazards-plugin-upload', async () => {
    rh = startRotorHazard(data, PORT, { ...process.env });
    await rh.waitOutput(/Running http server at port/);
    const io = await SocketIoClient.connect(rh.url);
    try {
      await io.emitBinary('plugin_install', { method: 'upload' }, 'source_data', readFileSync(release.zip));
      await rh.waitOutput(/Installed plugin \(uploaded file\)|Failed to install plugin/);
    } finally {
      await io.close();
    }
    expect(rh.output()).toContain('Installed plugin (uploaded file)');
    const plugin = join(data, 'plugins', 'lightnet');
    const manifest = JSON.parse(await readFile(join(plugin, 'manifest.json'), 'utf8')) as Record<
      string,
      string
    >;
    expect(manifest).toMatchObject({
      domain: 'lightnet',
      version: VERSION,
      zip_filename: `lightnet-rotorhazard-${VERSION}.zip`,
    });
    expect(manifest.documentation_uri).toMatch(/^https:\/\//);
    // RotorHazard's extractor writes plain files: no execute bit survives, none is needed.
    expect(statSync(join(plugin, 'host', 'dist', 'server', 'main.js')).mode & 0o111).toBe(0);
    await rh.stop();
    rh = null;
  });

  it('after-a-restart-runs-the-host-it-carries-behind-rotorhazards-port', async () => {
    rh = startRotorHazard(data, PORT, {
      ...process.env,
      LIGHTNET_GATEWAY: 'sim',
      LIGHTNET_SIM_NODES: '3',
      LIGHTNET_WIFI: 'none',
    });
    await rh.waitOutput(/Loaded external plugin 'lightnet'/);
    await rh.waitOutput(/Lightnet: connected to the host/);
    const st = await until(async () => {
      const s = await get<PluginStatus>('/lightnet/_rh/status');
      return s.body.host?.state === 'running' ? s.body : null;
    }, 'the host running');
    expect(st.problem).toBeNull();
    // The host is the zip's copy, not this checkout's.
    const cmdline = readFileSync(`/proc/${st.host?.pid}/cmdline`, 'utf8').split('\0');
    expect(cmdline).toContain(join(data, 'plugins', 'lightnet', 'host', 'dist', 'server', 'main.js'));
    const health = await until(async () => {
      const h = await get<{ phase: string }>('/lightnet/api/health');
      return h.body.phase === 'ready' ? h : null;
    }, 'health ready');
    expect(health.status).toBe(200);
    const ui = await get<string>('/lightnet/');
    expect(ui.status).toBe(200);
    expect(ui.body).toContain('<base href="/lightnet/">');
    await rh.stop();
    rh = null;
  });

  it('without-node-says-so-with-the-command-that-fixes-it', async () => {
    // A PATH with what the launcher and RotorHazard use, but no node.
    const bin = join(data, 'bin-without-node');
    await mkdir(bin);
    for (const tool of ['dirname', 'basename', 'mkdir', 'ln', 'cat', 'uname', 'git']) {
      const found = bareEnv()
        .PATH?.split(':')
        .map((d) => join(d, tool))
        .find((p) => {
          try {
            return statSync(p).isFile();
          } catch {
            return false;
          }
        });
      if (found) await symlink(found, join(bin, tool));
    }
    rh = startRotorHazard(data, PORT, { ...process.env, PATH: bin });
    await rh.waitOutput(/Loaded external plugin 'lightnet'/);
    await rh.waitOutput(/Lightnet: Node\.js was not found/);
    const st = await until(
      async () => (await get<PluginStatus>('/lightnet/_rh/status')).body,
      'plugin status',
    );
    expect(st.host).toBeNull();
    expect(st.problem).toContain('Node.js was not found');
    expect(st.problem).toContain('sudo apt-get install -y nodejs');
  });
});
