/**
 * The simulator's start line says where its state is kept: apart from the real data folder
 * by default, and — when `--sim-data-dir` names the real folder itself — in it, with the real
 * devices (it used to claim "apart from the real data folder" there too).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openDataFolder } from '../../../src/host/data-folder.ts';
import { testConfig } from '../../integration/harness.ts';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function simulatorLine(dataDir: string, simDataDir: string): Promise<string> {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const log = pino({ level: 'info' }, sink);
  const folder = await openDataFolder(testConfig(dataDir, { simDataDir }), true, log);
  await folder.lock.release();
  const msgs = chunks
    .join('')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { msg: string }).msg);
  const line = msgs.find((m) => m.startsWith('SIMULATOR:'));
  if (!line) throw new Error(`no SIMULATOR line in ${JSON.stringify(msgs)}`);
  return line;
}

describe('the simulator data folder line', () => {
  it('says-apart-only-when-it-is-apart', async () => {
    const real = await mkdtemp(join(tmpdir(), 'lightnet-folder-'));
    dirs.push(real);
    const sim = join(real, 'simulator');
    expect(await simulatorLine(real, sim)).toBe(
      `SIMULATOR: simulated devices and their state are kept in ${sim}, apart from the real data folder ${real}`,
    );
    const same = await simulatorLine(real, real);
    expect(same).toContain(`kept in the real data folder ${real} (--sim-data-dir names it)`);
    expect(same).toContain('saved with the real devices');
    expect(same).not.toContain('apart');
  });
});
