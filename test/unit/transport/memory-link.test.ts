import { describe, expect, it, vi } from 'vitest';
import { ScaledClock, SteppedClock } from '../../../src/clock.ts';
import { LinkClosedError, LinkOpenError, PortBusyError } from '../../../src/transport/errors.ts';
import type { Link } from '../../../src/transport/link.ts';
import {
  MemoryEndpoint,
  PEER_CLOSED_MESSAGE,
  createMemoryLinkPair,
  dropLink,
} from '../../../src/transport/memory-link.ts';
import { collect, nextClose } from './helpers.ts';

const bytes = (...b: number[]): Uint8Array => Uint8Array.from(b);

describe('memory link pair', () => {
  it('is open on both ends, kind and path are memory', async () => {
    const [host, device] = createMemoryLinkPair();
    await host.open();
    expect(host.isOpen && device.isOpen).toBe(true);
    expect(host.kind).toBe('memory');
    expect(host.path).toBe('memory');
  });

  it('delivers bytes asynchronously, in order, both ways', async () => {
    const [host, device] = createMemoryLinkPair();
    const atDevice = collect(device);
    const atHost = collect(host);
    const expected: number[] = [];
    for (let i = 0; i < 50; i += 1) {
      const chunk = bytes(i, i + 1, i + 2);
      expected.push(...chunk);
      void host.write(chunk);
      void device.write(bytes(255 - i));
    }
    expect(atDevice.bytes()).toEqual([]); // nothing synchronous
    expect(await atDevice.waitFor(expected.length)).toEqual(expected);
    expect(await atHost.waitFor(50)).toEqual(Array.from({ length: 50 }, (_, i) => 255 - i));
  });

  it('keeps order with latency, and delays delivery by exactly that latency', async () => {
    // Virtual time moved by hand: the check does not depend on how busy the machine is.
    const clock = new SteppedClock(1, 0);
    const [host, device] = createMemoryLinkPair({ latencyMs: 200, clock });
    const atDevice = collect(device);
    for (let i = 0; i < 20; i += 1) await host.write(bytes(i));
    clock.advance(199);
    await new Promise<void>((r) => setImmediate(r));
    expect(atDevice.bytes()).toEqual([]);
    clock.advance(1);
    const got = await atDevice.waitFor(20);
    expect(got).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('copies written bytes, so the writer may reuse its buffer', async () => {
    const [host, device] = createMemoryLinkPair();
    const atDevice = collect(device);
    const buf = bytes(1, 2, 3);
    await host.write(buf);
    buf.fill(9);
    expect(await atDevice.waitFor(3)).toEqual([1, 2, 3]);
  });

  it('keeps bytes that arrive before anyone subscribes and hands them to the first subscriber', async () => {
    const [host, device] = createMemoryLinkPair();
    await device.write(bytes(0, 2, 0xf1, 0));
    await device.write(bytes(7));
    await new Promise<void>((r) => setImmediate(r)); // both chunks have arrived by now
    const atHost = collect(host);
    expect(await atHost.waitFor(5)).toEqual([0, 2, 0xf1, 0, 7]);
  });

  it('flushInput discards bytes nobody has read yet', async () => {
    const [host, device] = createMemoryLinkPair();
    await device.write(bytes(1, 2, 3));
    await new Promise<void>((r) => setImmediate(r));
    await host.flushInput();
    await device.write(bytes(4));
    const atHost = collect(host);
    expect(await atHost.waitFor(1)).toEqual([4]);
  });

  it('closing one end closes both: closer gets undefined, peer gets "link closed by peer"', async () => {
    const [host, device] = createMemoryLinkPair();
    const hostClosed = nextClose(host);
    const deviceClosed = nextClose(device);
    await host.close();
    expect(await hostClosed).toBeUndefined();
    const err = await deviceClosed;
    expect(err).toBeInstanceOf(Error);
    expect(err?.message).toBe(PEER_CLOSED_MESSAGE);
    expect(host.isOpen).toBe(false);
    expect(device.isOpen).toBe(false);
  });

  it('fires onClose exactly once even when both ends close', async () => {
    const [host, device] = createMemoryLinkPair();
    let calls = 0;
    host.onClose(() => (calls += 1));
    await device.close();
    await host.close();
    await device.close();
    await Promise.resolve();
    expect(calls).toBe(1);
  });

  it('tells a late onClose subscriber about a close that already happened', async () => {
    const [host, device] = createMemoryLinkPair();
    await device.close();
    const err = await nextClose(host);
    expect(err?.message).toBe(PEER_CLOSED_MESSAGE);
  });

  it('a normal close still delivers bytes written just before it', async () => {
    const [host, device] = createMemoryLinkPair();
    const atHost = collect(host);
    await device.write(bytes(1, 2));
    await device.close();
    expect(atHost.bytes()).toEqual([1, 2]);
  });

  it('rejects writes after close, on both ends, and cannot be reopened', async () => {
    const [host, device] = createMemoryLinkPair();
    await device.close();
    await expect(host.write(bytes(1))).rejects.toBeInstanceOf(LinkClosedError);
    await expect(device.write(bytes(1))).rejects.toBeInstanceOf(LinkClosedError);
    await expect(host.open()).rejects.toBeInstanceOf(LinkClosedError);
  });

  it('dropLink simulates a yanked cable: both ends see the error, bytes in flight are lost', async () => {
    const clock = new ScaledClock(0.01);
    const [host, device] = createMemoryLinkPair({ latencyMs: 50, clock });
    const atHost = collect(host);
    const hostClosed = nextClose(host);
    const deviceClosed = nextClose(device);
    await device.write(bytes(1, 2, 3));
    const yank = new Error('USB cable pulled');
    dropLink(host, yank);
    expect(await hostClosed).toBe(yank);
    expect(await deviceClosed).toBe(yank);
    await clock.sleep(100);
    expect(atHost.bytes()).toEqual([]);
  });

  it('dropLink refuses links that are not memory links', () => {
    const fake = { kind: 'tcp', path: 'x:1' } as unknown as Link;
    expect(() => dropLink(fake)).toThrow(TypeError);
  });

  it('needs a clock for a positive latency', () => {
    expect(() => createMemoryLinkPair({ latencyMs: 5 })).toThrow(RangeError);
  });
});

describe('MemoryEndpoint (reconnect factory)', () => {
  /** A device that echoes every byte back with +1, and records its connections. */
  function echoDevice(): { endpoint: MemoryEndpoint; devices: Link[] } {
    const devices: Link[] = [];
    const endpoint = new MemoryEndpoint((device) => {
      devices.push(device);
      device.onData((chunk) => void device.write(chunk.map((b) => b + 1)));
    });
    return { endpoint, devices };
  }

  it('creates a fresh pair for each open and hands the device end to onConnect', async () => {
    const indices: number[] = [];
    const endpoint = new MemoryEndpoint((device, info) => {
      indices.push(info.index);
      void device.write(bytes(0, 2, 0xf1, 0)); // "boot" event sent right away
    });
    const link = endpoint.factory();
    expect(link.isOpen).toBe(false);
    expect(endpoint.connectionCount).toBe(0);
    await link.open();
    // Subscribing only after open() still sees the first bytes.
    expect(await collect(link).waitFor(4)).toEqual([0, 2, 0xf1, 0]);
    await link.close();
    const again = endpoint.factory();
    await again.open();
    expect(indices).toEqual([1, 2]);
    expect(endpoint.connectionCount).toBe(2);
    expect(endpoint.connected).toBe(true);
  });

  it('carries bytes both ways through the host link', async () => {
    const { endpoint } = echoDevice();
    const link = endpoint.factory();
    await link.open();
    const got = collect(link);
    await link.write(bytes(1, 2, 3));
    expect(await got.waitFor(3)).toEqual([2, 3, 4]);
  });

  it('closing the host link closes the device end with "link closed by peer"', async () => {
    const { endpoint, devices } = echoDevice();
    const link = endpoint.factory();
    await link.open();
    const device = devices[0];
    if (!device) throw new Error('no device connection');
    const deviceClosed = nextClose(device);
    const hostClosed = nextClose(link);
    await link.close();
    expect(await hostClosed).toBeUndefined();
    expect((await deviceClosed)?.message).toBe(PEER_CLOSED_MESSAGE);
    expect(endpoint.connected).toBe(false);
    await expect(link.write(bytes(1))).rejects.toBeInstanceOf(LinkClosedError);
  });

  it('the device closing its end shows up on the host link as an error', async () => {
    const { endpoint, devices } = echoDevice();
    const link = endpoint.factory();
    await link.open();
    const closed = nextClose(link);
    await devices[0]?.close();
    expect((await closed)?.message).toBe(PEER_CLOSED_MESSAGE);
    expect(link.isOpen).toBe(false);
  });

  it('unplug breaks the connection and refuses opens until plug()', async () => {
    const { endpoint, devices } = echoDevice();
    const link = endpoint.factory();
    await link.open();
    const closed = nextClose(link);
    const deviceClosed = devices[0] ? nextClose(devices[0]) : Promise.reject(new Error('no device'));
    const err = new Error('unplugged');
    endpoint.unplug(err);
    expect(await closed).toBe(err);
    expect(await deviceClosed).toBe(err);
    expect(endpoint.isPlugged).toBe(false);
    await expect(endpoint.factory().open()).rejects.toBeInstanceOf(LinkOpenError);
    await expect(link.open()).rejects.toThrow(/unplugged/);
    expect(endpoint.connectionCount).toBe(1);

    endpoint.plug();
    await link.open(); // the same link object reconnects
    expect(link.isOpen).toBe(true);
    expect(devices).toHaveLength(2);
    const got = collect(link);
    await link.write(bytes(10));
    expect(await got.waitFor(1)).toEqual([11]);
  });

  it('drop breaks the connection but stays plugged, so the host can reconnect at once', async () => {
    const { endpoint } = echoDevice();
    const link = endpoint.factory();
    await link.open();
    const closed = nextClose(link);
    endpoint.drop(new Error('glitch'));
    expect((await closed)?.message).toBe('glitch');
    const next = endpoint.factory();
    await next.open();
    expect(endpoint.connectionCount).toBe(2);
  });

  it('a second open while connected is refused like an exclusively locked port', async () => {
    const { endpoint } = echoDevice();
    await endpoint.factory().open();
    await expect(endpoint.factory().open()).rejects.toBeInstanceOf(PortBusyError);
    expect(endpoint.connectionCount).toBe(1);
  });

  it('dropLink works on endpoint links too', async () => {
    const { endpoint } = echoDevice();
    const link = endpoint.factory();
    await link.open();
    const closed = nextClose(link);
    dropLink(link, new Error('yank'));
    expect((await closed)?.message).toBe('yank');
    expect(endpoint.connected).toBe(false);
  });

  it('an onConnect that throws makes open() reject and leaves nothing connected', async () => {
    const endpoint = new MemoryEndpoint(() => {
      throw new Error('simulator not ready');
    });
    await expect(endpoint.factory().open()).rejects.toThrow(/refused the connection/);
    expect(endpoint.connected).toBe(false);
  });

  it('uses a custom path', () => {
    const endpoint = new MemoryEndpoint(() => undefined, { path: 'memory:sim' });
    const link = endpoint.factory();
    expect(link.path).toBe('memory:sim');
    expect(link.kind).toBe('memory');
  });
});

describe('listener errors', () => {
  it('a throwing data or close listener is logged; the others still get everything, nothing is rethrown', async () => {
    const logged: { msg: string; fields?: object }[] = [];
    const [host, device] = createMemoryLinkPair({ log: (msg, fields) => logged.push({ msg, fields }) });
    host.onData(() => {
      throw new Error('observer bug');
    });
    const got = collect(host);
    void device.write(bytes(1, 2));
    void device.write(bytes(3));
    expect(await got.waitFor(3)).toEqual([1, 2, 3]);
    host.onClose(() => {
      throw new Error('close observer bug');
    });
    const closed = nextClose(host);
    await host.close();
    await closed;
    expect(logged.map((l) => l.msg)).toEqual([
      'link listener threw',
      'link listener threw',
      'link listener threw',
    ]);
    expect(logged[0]?.fields).toMatchObject({ path: 'memory', error: 'observer bug' });
    expect(logged[2]?.fields).toMatchObject({ error: 'close observer bug' });
  });

  it('without a log the error becomes a process warning, not an uncaught exception', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const [host, device] = createMemoryLinkPair();
      host.onData(() => {
        throw new Error('observer bug');
      });
      const got = collect(host);
      void device.write(bytes(7));
      expect(await got.waitFor(1)).toEqual([7]);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toContain('observer bug');
    } finally {
      warn.mockRestore();
    }
  });
});
