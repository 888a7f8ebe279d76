/**
 * The plugin's host refuses a data folder another Lightnet host owns: inside the real
 * RotorHazard the plugin's status (and its panel) says so with the owner's pid, and once
 * that host is gone the plugin's retry starts its own host. Skipped, saying so, when
 * LIGHTNET_ROTORHAZARD names no launcher.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirLock } from '../../src/state/data-lock.ts';
import { RH_LAUNCHER, rotorhazardAvailable, startRig, type Rig } from './rotorhazard/rig.ts';

const available = rotorhazardAvailable();
if (!available) {
  console.warn(
    `SKIPPED rotorhazard-data-lock tests: LIGHTNET_ROTORHAZARD ${RH_LAUNCHER ? `(${RH_LAUNCHER}) does not exist` : 'is not set'}`,
  );
}

interface PluginStatus {
  host: { state: string; detail: string; pid: number | null } | null;
}

let rig: Rig | undefined;
afterAll(async () => {
  await rig?.close();
});

async function until<T>(
  fn: () => Promise<T | null | undefined | false>,
  what: string,
  ms = 90_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe.skipIf(!available)('lightnet plugin and a data folder owned by another host', () => {
  it('the-plugin-says-who-owns-the-folder-and-starts-once-it-is-free', { timeout: 240_000 }, async () => {
    // Another "host" (this test process) owns the plugin's data folder before RotorHazard starts.
    let lock: DataDirLock | undefined;
    rig = await startRig({
      port: 6812,
      nodes: 2,
      seed: 4,
      beforeStart: async (rhData) => {
        lock = await DataDirLock.acquire(join(rhData, 'lightnet'));
        await lock.setPort(5999);
      },
    });
    await rig.waitOutput(
      /Lightnet host could not start: the data folder .* is in use by another Lightnet host/,
    );
    const blocked = await until(async () => {
      const st = (await rig?.api<PluginStatus>('GET', '/_rh/status'))?.body;
      return st?.host?.state === 'blocked' ? st : null;
    }, 'the blocked state');
    expect(blocked.host?.detail).toContain(
      `is in use by another Lightnet host (pid ${process.pid}, port 5999`,
    );

    // The other host stops: the plugin's next try takes the folder.
    await lock?.release();
    await until(async () => {
      const st = (await rig?.api<PluginStatus>('GET', '/_rh/status'))?.body;
      return st?.host?.state === 'running';
    }, 'the host running');
    await rig.waitOutput(/Lightnet: connected to the host/);
  });
});
