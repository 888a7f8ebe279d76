import { existsSync } from 'node:fs';
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LinkClosedError,
  LinkOpenError,
  PortBusyError,
  looksLikePortBusy,
} from '../../../src/transport/errors.ts';
import { SerialLink, setLowLatency, type SerialPortLike } from '../../../src/transport/serial-link.ts';
import { listCandidatePorts } from '../../../src/transport/serial-ports.ts';

describe('SerialLink error paths', () => {
  it('rejects opening a missing device clearly and stays closed', async () => {
    const link = new SerialLink('/dev/nonexistent');
    expect(link.kind).toBe('serial');
    expect(link.path).toBe('/dev/nonexistent');
    const err = await link.open().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LinkOpenError);
    expect(err).not.toBeInstanceOf(PortBusyError);
    expect((err as LinkOpenError).message).toMatch(/cannot open serial port \/dev\/nonexistent/);
    expect((err as LinkOpenError).code).toBe('ENOENT');
    expect(link.isOpen).toBe(false);
    await expect(link.write(Uint8Array.of(0, 1, 1))).rejects.toBeInstanceOf(LinkClosedError);
    await link.close(); // closing a never-opened link is a no-op
  });

  it('recognises the bindings lock failure texts as "busy"', () => {
    expect(looksLikePortBusy('Error Resource temporarily unavailable Cannot lock port')).toBe(true);
    expect(looksLikePortBusy('[Errno 11] could not exclusively lock port /dev/ttyUSB0')).toBe(true);
    expect(looksLikePortBusy('Error: No such file or directory, cannot open /dev/ttyUSB0')).toBe(false);
  });

  it('low-latency setup is best effort: a port without a latency timer just logs', async () => {
    const logs: string[] = [];
    const ok = await setLowLatency('/dev/nonexistent', (msg) => logs.push(msg));
    expect(ok).toBe(false);
    expect(logs).toEqual(process.platform === 'linux' ? ['serial low-latency mode not available'] : []);
  });
});

describe('listCandidatePorts', () => {
  let dev: string;

  beforeAll(async () => {
    dev = await mkdtemp(path.join(tmpdir(), 'lightnet-dev-'));
    for (const name of ['ttyUSB0', 'ttyUSB10', 'ttyUSB2', 'ttyACM0', 'ttyS0', 'null']) {
      await writeFile(path.join(dev, name), '');
    }
    await mkdir(path.join(dev, 'serial', 'by-id'), { recursive: true });
    await symlink(
      '../../ttyUSB2',
      path.join(dev, 'serial', 'by-id', 'usb-Silicon_Labs_CP2102_0001-if00-port0'),
    );
  });
  afterAll(async () => {
    await rm(dev, { recursive: true, force: true });
  });

  it('does not throw on this machine even though SerialPort.list() may fail', async () => {
    const logs: string[] = [];
    const ports = await listCandidatePorts({ log: (msg) => logs.push(msg) });
    expect(Array.isArray(ports)).toBe(true);
    for (const p of ports) expect(p.path).toMatch(/^\/dev\//);
    // Without udev, SerialPort.list() rejects ("spawn udevadm ENOENT") and the scan takes over.
    const hasUdevadm = (process.env['PATH'] ?? '')
      .split(path.delimiter)
      .some((dir) => existsSync(path.join(dir, 'udevadm')));
    if (!hasUdevadm) expect(logs).toContain('serial port listing failed; scanning the device tree instead');
  });

  it('falls back to scanning by-id, ttyUSB* and ttyACM* when listing rejects, deduped by real path', async () => {
    const logs: string[] = [];
    const ports = await listCandidatePorts({
      devRoot: dev,
      list: () => Promise.reject(new Error('spawn udevadm ENOENT')),
      log: (msg) => logs.push(msg),
    });
    expect(ports).toEqual([
      {
        path: path.join(dev, 'serial/by-id/usb-Silicon_Labs_CP2102_0001-if00-port0'),
        source: 'scan',
        info: 'usb-Silicon_Labs_CP2102_0001-if00-port0',
      },
      { path: path.join(dev, 'ttyACM0'), source: 'scan' },
      { path: path.join(dev, 'ttyUSB0'), source: 'scan' },
      { path: path.join(dev, 'ttyUSB10'), source: 'scan' },
    ]);
    expect(logs).toEqual(['serial port listing failed; scanning the device tree instead']);
  });

  it('puts USB ports from the listing first, skips non-USB ones, and dedupes against the scan', async () => {
    const ports = await listCandidatePorts({
      devRoot: dev,
      list: () =>
        Promise.resolve([
          { path: path.join(dev, 'ttyS0') },
          {
            path: path.join(dev, 'ttyUSB0'),
            manufacturer: 'Silicon Labs',
            vendorId: '10c4',
            productId: 'ea60',
          },
        ]),
    });
    expect(ports[0]).toEqual({
      path: path.join(dev, 'ttyUSB0'),
      source: 'serialport',
      info: 'Silicon Labs 10c4:ea60',
    });
    expect(ports.map((p) => path.basename(p.path))).toEqual([
      'ttyUSB0',
      'usb-Silicon_Labs_CP2102_0001-if00-port0',
      'ttyACM0',
      'ttyUSB10',
    ]);
  });
});

/** A port whose drains finish only when the test says so; records the call order. */
class ManualPort implements SerialPortLike {
  readonly calls: string[] = [];
  failNextWrite = false;
  private readonly drains: ((err: Error | null) => void)[] = [];
  open(cb: (err: Error | null) => void): void {
    cb(null);
  }
  write(chunk: Buffer, cb: (err: Error | null | undefined) => void): boolean {
    this.calls.push(`write ${[...chunk].join(',')}`);
    const fail = this.failNextWrite;
    this.failNextWrite = false;
    queueMicrotask(() => cb(fail ? new Error('EIO') : null));
    return true;
  }
  drain(cb: (err: Error | null) => void): void {
    this.calls.push('drain');
    this.drains.push(cb);
  }
  finishDrain(): void {
    this.drains.shift()?.(null);
  }
  close(cb: (err: Error | null) => void): void {
    cb(null);
  }
  flush(cb: (err: Error | null) => void): void {
    cb(null);
  }
  on(): this {
    return this;
  }
}

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('listCandidatePorts prefers stable names', () => {
  let dev: string;

  beforeAll(async () => {
    dev = await mkdtemp(path.join(tmpdir(), 'lightnet-byid-'));
    for (const name of ['ttyACM0', 'ttyUSB0']) await writeFile(path.join(dev, name), '');
    await mkdir(path.join(dev, 'serial', 'by-id'), { recursive: true });
    await symlink('../../ttyACM0', path.join(dev, 'serial', 'by-id', 'usb-Espressif_USB_JTAG_48CA43-if00'));
  });
  afterAll(async () => {
    await rm(dev, { recursive: true, force: true });
  });

  it('returns the by-id link for a listed device that has one, in the listing position and with its details', async () => {
    const ports = await listCandidatePorts({
      devRoot: dev,
      list: () =>
        Promise.resolve([
          { path: path.join(dev, 'ttyUSB0'), vendorId: '10c4', productId: 'ea60' },
          { path: path.join(dev, 'ttyACM0'), manufacturer: 'Espressif', vendorId: '303a', productId: '1001' },
        ]),
    });
    expect(ports).toEqual([
      { path: path.join(dev, 'ttyUSB0'), source: 'serialport', info: '10c4:ea60' },
      {
        path: path.join(dev, 'serial/by-id/usb-Espressif_USB_JTAG_48CA43-if00'),
        source: 'serialport',
        info: 'Espressif 303a:1001',
      },
    ]);
  });

  it('without a listing, the by-id link stands for the device and its raw name is not repeated', async () => {
    const ports = await listCandidatePorts({ devRoot: dev, list: () => Promise.resolve([]) });
    expect(ports.map((p) => path.relative(dev, p.path))).toEqual([
      'serial/by-id/usb-Espressif_USB_JTAG_48CA43-if00',
      'ttyUSB0',
    ]);
  });
});

describe('SerialLink writes', () => {
  async function opened(): Promise<{ link: SerialLink; port: ManualPort }> {
    const port = new ManualPort();
    const link = new SerialLink('/dev/fake', { createPort: () => port, lowLatency: false });
    await link.open();
    return { link, port };
  }

  it('are serialised: the next write starts after the previous drain, so each drain covers its own bytes', async () => {
    const { link, port } = await opened();
    let aDone = false;
    const a = link.write(Uint8Array.of(1, 2)).then(() => (aDone = true));
    const b = link.write(Uint8Array.of(3));
    await turn();
    expect(port.calls).toEqual(['write 1,2', 'drain']);
    port.finishDrain();
    await a;
    await turn();
    expect(port.calls).toEqual(['write 1,2', 'drain', 'write 3', 'drain']);
    expect(aDone).toBe(true);
    port.finishDrain();
    await b;
  });

  it('a failed write rejects on its own; the next one still goes out', async () => {
    const { link, port } = await opened();
    port.failNextWrite = true;
    const a = link.write(Uint8Array.of(1));
    const b = link.write(Uint8Array.of(2));
    await expect(a).rejects.toBeInstanceOf(LinkClosedError);
    await turn();
    expect(port.calls).toEqual(['write 1', 'drain', 'write 2', 'drain']);
    port.finishDrain(); // the failed write's drain
    port.finishDrain();
    await b;
  });

  it('a write still queued when the link closes is rejected', async () => {
    const { link, port } = await opened();
    const a = link.write(Uint8Array.of(1));
    const b = link.write(Uint8Array.of(2));
    await turn();
    await link.close();
    port.finishDrain();
    await a;
    await expect(b).rejects.toBeInstanceOf(LinkClosedError);
    expect(port.calls).toEqual(['write 1', 'drain']);
  });
});
