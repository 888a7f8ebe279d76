/**
 * SIGTERM (`systemctl restart`, the timing plugin's supervisor) must not wait on clients.
 * A `fetch` client that aborted or cancelled an event stream leaves a spare socket open
 * that Node's idle-connection sweep skips; the host used to wait for the client's own
 * keep-alive timeout (4 s, up to the 72 s it advertises) before exiting. The bound below is
 * generous against that: a host that drains its sockets exits in tens of milliseconds.
 */
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { testTempDir } from '../../temp-dir.ts';
import { freePort, startCli } from '../harness.ts';

const EXIT_BOUND_MS = 3000;
/** Only a guard so a hung host fails the test instead of the run; not a measured wait. */
const GIVE_UP_MS = 30_000;

async function openStream(
  url: string,
  signal?: AbortSignal,
): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  const res = await fetch(url, { signal, headers: { Accept: 'text/event-stream' } });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  // The first event (the master snapshot) has arrived: the server holds the stream now.
  const first = await reader.read();
  expect(first.done).toBe(false);
  return reader;
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const guard = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`host still running ${GIVE_UP_MS} ms after SIGTERM`));
    }, GIVE_UP_MS);
    child.once('exit', (code) => {
      clearTimeout(guard);
      resolve({ code, ms: performance.now() - t0 });
    });
  });
}

describe('shutdown with event-stream clients', () => {
  it('exits promptly on SIGTERM after fetch clients aborted and cancelled their streams', async () => {
    const dataDir = await testTempDir('lightnet-shutdown-');
    const port = await freePort();
    const child = await startCli(dataDir, port);
    try {
      const base = `http://127.0.0.1:${port}/lightnet`;
      // Keep-alive connections from ordinary reads.
      for (let i = 0; i < 3; i++) expect((await fetch(`${base}/api/health`)).ok).toBe(true);
      // Both stream routes: one aborted, one cancelled by its reader, one left open.
      const ac = new AbortController();
      await openStream(`${base}/api/events`, ac.signal);
      ac.abort();
      const cancelled = await openStream(`${base}/sse`);
      await cancelled.cancel();
      const open = await openStream(`${base}/sse?console=1`);
      const ended = (async () => {
        try {
          while (!(await open.read()).done);
        } catch {
          /* a reset also ends it */
        }
        return true;
      })();

      const exited = exitOf(child);
      child.kill('SIGTERM');
      const { code, ms } = await exited;
      expect(code).toBe(0);
      expect(ms).toBeLessThan(EXIT_BOUND_MS);
      // The stream that was still being read was ended, not left hanging.
      expect(await ended).toBe(true);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
