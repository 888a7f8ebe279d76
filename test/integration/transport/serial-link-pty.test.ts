import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ScaledClock } from '../../../src/clock.ts';
import { detectGateway } from '../../../src/transport/detect.ts';
import { LinkClosedError, PortBusyError } from '../../../src/transport/errors.ts';
import { SerialLink } from '../../../src/transport/serial-link.ts';
import { collect, nextClose } from '../../unit/transport/helpers.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const havePty =
  process.platform === 'linux' &&
  spawnSync('python3', ['-c', 'import pty'], { stdio: 'ignore' }).status === 0;

interface Pty {
  path: string;
  child: ChildProcessWithoutNullStreams;
  /** Bytes the host wrote to the port so far. */
  written: number[];
  /** Resolves once the host has written at least n bytes. */
  waitWritten: (n: number) => Promise<number[]>;
  /** Sends bytes from the "device" to the host. */
  send: (bytes: Uint8Array) => void;
  stop: () => Promise<void>;
}

function startPty(): Promise<Pty> {
  const child = spawn('python3', [path.join(here, 'pty-relay.py')]);
  const written: number[] = [];
  const waiters: { n: number; resolve: (b: number[]) => void }[] = [];
  let header = '';
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout.on('data', (chunk: Buffer) => {
      if (!header.endsWith('\n')) {
        const text = header + chunk.toString('latin1');
        const nl = text.indexOf('\n');
        if (nl < 0) {
          header = text;
          return;
        }
        header = text.slice(0, nl + 1);
        chunk = Buffer.from(text.slice(nl + 1), 'latin1');
        resolve({
          path: header.trim(),
          child,
          written,
          waitWritten: (n) =>
            written.length >= n
              ? Promise.resolve([...written])
              : new Promise((r) => waiters.push({ n, resolve: r })),
          send: (bytes) => child.stdin.write(bytes),
          stop: () =>
            new Promise<void>((r) => {
              if (child.exitCode !== null) return r();
              child.once('exit', () => r());
              child.stdin.end();
            }),
        });
      }
      written.push(...chunk);
      for (const w of [...waiters]) {
        if (written.length >= w.n) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve([...written]);
        }
      }
    });
  });
}

describe.skipIf(!havePty)('SerialLink on a pseudo-terminal', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function setup(): Promise<{ pty: Pty; link: SerialLink }> {
    const pty = await startPty();
    cleanups.push(pty.stop);
    const link = new SerialLink(pty.path);
    cleanups.push(() => link.close());
    return { pty, link };
  }

  it('opens, writes (drained) and receives bytes', async () => {
    const { pty, link } = await setup();
    await link.open();
    expect(link.isOpen).toBe(true);
    await link.write(Uint8Array.of(0x00, 0x01, 0x7f));
    expect(await pty.waitWritten(3)).toEqual([0x00, 0x01, 0x7f]);
    const got = collect(link);
    pty.send(Uint8Array.of(0x00, 0x02, 0xf5, 0x00));
    expect(await got.waitFor(4)).toEqual([0x00, 0x02, 0xf5, 0x00]);
  });

  it('holds the port exclusively: a second opener gets PortBusyError', async () => {
    const { pty, link } = await setup();
    await link.open();
    const second = new SerialLink(pty.path);
    const err = await second.open().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PortBusyError);
    expect((err as PortBusyError).message).toMatch(/busy/);
    expect(second.isOpen).toBe(false);
    // Once the first one lets go, the port can be opened again.
    await link.close();
    await second.open();
    expect(second.isOpen).toBe(true);
    await second.close();
  });

  it('close() during open releases the port again', async () => {
    const { pty, link } = await setup();
    const opening = link.open();
    await link.close();
    await expect(opening).rejects.toThrow(/closed while opening/);
    expect(link.isOpen).toBe(false);
    const other = new SerialLink(pty.path);
    await other.open(); // not locked any more
    await other.close();
  });

  it('reports the device going away as an error on onClose', async () => {
    const { pty, link } = await setup();
    await link.open();
    const closed = nextClose(link);
    await pty.stop(); // the pty master disappears, like a yanked USB cable
    const err = await closed;
    expect(err).toBeInstanceOf(LinkClosedError);
    expect(err?.message).toMatch(/port lost|closed unexpectedly/);
    expect(link.isOpen).toBe(false);
  });

  it('close fires onClose without an error and later writes reject', async () => {
    const { link } = await setup();
    await link.open();
    const closed = nextClose(link);
    await link.close();
    expect(await closed).toBeUndefined();
    await expect(link.write(Uint8Array.of(1))).rejects.toBeInstanceOf(LinkClosedError);
  });

  it('detectGateway finds a gateway behind a real serial port and reports a busy one', async () => {
    const gateway = await setup();
    const busy = await setup();
    await busy.link.open(); // someone else holds this one
    // The "gateway" answers the identify request with boot noise + the identify string.
    void gateway.pty.waitWritten(3).then(() => {
      gateway.pty.send(Uint8Array.of(0x00, 0x02, 0xf1, 0x00));
      gateway.pty.send(Buffer.from('RaceLink_Gateway_v448:CA:43:10:20:30', 'latin1'));
    });
    const result = await detectGateway({
      clock: new ScaledClock(0.1),
      // The relay through a child process is slower than a USB bridge: a long answer window
      // costs nothing when the answer comes (the wait ends at once) and avoids flakiness.
      identify: { answerMs: 5000 },
      candidates: () => Promise.resolve([{ path: busy.pty.path }, { path: gateway.pty.path }]),
    });
    expect(result.tried.map((t) => t.result)).toEqual(['busy', 'identified']);
    expect(result.found).toEqual({ path: gateway.pty.path, mac: '48:CA:43:10:20:30' });
    expect(gateway.pty.written.slice(0, 3)).toEqual([0x00, 0x01, 0x01]);
  });
});
