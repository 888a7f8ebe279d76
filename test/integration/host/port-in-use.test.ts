/**
 * A host whose HTTP port is taken (here by a plain listener standing in for another Lightnet
 * on another data folder): with a real process it exits non-zero (4) saying what to do —
 * `--port N` or LIGHTNET_PORT — and leaves no data folder behind that it created only to fail.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

function listenAnywhere(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const a = server.address();
      resolve({ server, port: typeof a === 'object' && a ? a.port : 0 });
    });
  });
}

describe('port in use', () => {
  it('exits-4-saying-how-to-pick-another-port-and-creates-no-data-folder', { timeout: 60_000 }, async () => {
    const root = await mkdtemp(join(tmpdir(), 'lightnet-port-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    const { server, port } = await listenAnywhere();
    cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
    const dataDir = join(root, 'data');

    const child = spawn(
      process.execPath,
      [
        ...['--import', 'tsx', 'src/main.ts', '--gateway', 'sim', '--sim-nodes', '1', '--wifi', 'none'],
        ...['--log-level', 'warn', '--port', String(port), '--data-dir', dataDir],
        ...['--sim-data-dir', join(dataDir, 'simulator')],
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));

    expect(code).toBe(4);
    expect(stderr).toContain(`lightnet: port ${port} on 127.0.0.1 is already in use`);
    expect(stderr).toContain('another Lightnet');
    expect(stderr).toContain(`npm start -- --port ${port + 1}`);
    expect(stderr).toContain(`LIGHTNET_PORT=${port + 1}`);
    expect(stderr).not.toContain('failed to start: listen EADDRINUSE');
    // It never ran: ./data (and ./data/simulator) were made for the lock and removed again.
    expect(existsSync(dataDir)).toBe(false);
    expect(existsSync(root)).toBe(true);
  });
});
