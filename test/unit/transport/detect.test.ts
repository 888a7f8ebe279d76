import { describe, expect, it } from 'vitest';
import { ScaledClock } from '../../../src/clock.ts';
import { detectGateway, detectGateways, handOver } from '../../../src/transport/detect.ts';
import type { Link } from '../../../src/transport/link.ts';
import { MemoryEndpoint } from '../../../src/transport/memory-link.ts';
import { attachFakeGateway, messyAnswer } from './fake-gateway.ts';

const clock = new ScaledClock(0.01);
const OTHER_MAC = '48:CA:43:AA:BB:CC';

/** A few fake serial ports, each a memory endpoint with its own behaviour. */
function bench(): { ports: Map<string, MemoryEndpoint>; open: (path: string) => Link } {
  const ports = new Map<string, MemoryEndpoint>();
  // Held by another program: already connected, so a second open is refused as busy.
  const busy = new MemoryEndpoint(() => undefined, { path: '/dev/ttyUSB0' });
  void busy.factory().open();
  ports.set('/dev/ttyUSB0', busy);
  // A serial device that is not a gateway: never answers.
  ports.set('/dev/ttyUSB1', new MemoryEndpoint(() => undefined, { path: '/dev/ttyUSB1' }));
  // Listed but gone by the time we open it.
  const gone = new MemoryEndpoint(() => undefined, { path: '/dev/ttyACM0' });
  gone.unplug();
  ports.set('/dev/ttyACM0', gone);
  // Two gateways (each answers its first probe).
  for (const [path, mac] of [
    ['/dev/ttyACM1', undefined],
    ['/dev/ttyACM2', OTHER_MAC],
  ] as const) {
    ports.set(
      path,
      new MemoryEndpoint(
        (device) => attachFakeGateway(device, clock, { answer: (n) => (n === 0 ? messyAnswer(mac) : null) }),
        { path },
      ),
    );
  }
  return {
    ports,
    open: (path) => {
      const ep = ports.get(path);
      if (!ep) throw new Error(`no such port ${path}`);
      return ep.factory();
    },
  };
}

const candidates =
  (...paths: string[]) =>
  () =>
    Promise.resolve(paths.map((path) => ({ path })));

describe('detectGateway', () => {
  it('probes every port, reports each outcome, returns the first gateway in list order and closes every port', async () => {
    const { ports, open } = bench();
    const logs: string[] = [];
    const result = await detectGateway({
      clock,
      open,
      candidates: candidates(
        '/dev/ttyUSB0',
        '/dev/ttyUSB1',
        '/dev/ttyACM0',
        '/dev/nope',
        '/dev/ttyACM1',
        '/dev/ttyACM2',
      ),
      log: (msg) => logs.push(msg),
    });
    expect(result.found).toEqual({ path: '/dev/ttyACM1', mac: '48:CA:43:10:20:30' });
    expect(result.tried.map((t) => [t.path, t.result])).toEqual([
      ['/dev/ttyUSB0', 'busy'],
      ['/dev/ttyUSB1', 'no_answer'],
      ['/dev/ttyACM0', 'error'],
      ['/dev/nope', 'error'],
      ['/dev/ttyACM1', 'identified'],
      ['/dev/ttyACM2', 'identified'],
    ]);
    expect(result.tried[0]?.detail).toMatch(/busy/);
    expect(result.tried[2]?.detail).toMatch(/unplugged/);
    expect(result.tried[3]?.detail).toMatch(/no such port/);
    expect(ports.get('/dev/ttyUSB1')?.connected).toBe(false);
    expect(ports.get('/dev/ttyACM1')?.connected).toBe(false);
    expect(ports.get('/dev/ttyACM2')?.connected).toBe(false);
    expect(logs.filter((m) => m === 'gateway probe')).toHaveLength(6);
  });

  it('returns the open link with keepOpen', async () => {
    const { ports, open } = bench();
    const result = await detectGateway({
      clock,
      open,
      candidates: candidates('/dev/ttyACM2'),
      keepOpen: true,
    });
    expect(result.found?.mac).toBe(OTHER_MAC);
    expect(result.found?.link?.isOpen).toBe(true);
    expect(ports.get('/dev/ttyACM2')?.connected).toBe(true);
    await result.found?.link?.close();
  });

  it('reports found: null with what was tried when no gateway answers', async () => {
    const { open } = bench();
    const result = await detectGateway({
      clock,
      open,
      candidates: candidates('/dev/ttyUSB1', '/dev/ttyUSB0'),
    });
    expect(result.found).toBeNull();
    expect(result.tried.map((t) => t.result)).toEqual(['no_answer', 'busy']);
  });

  it('records a link that breaks mid-probe as an error', async () => {
    const ep = new MemoryEndpoint((device) => {
      clock.setTimeout(() => void device.close(), 100);
    });
    const result = await detectGateway({
      clock,
      open: () => ep.factory(),
      candidates: candidates('/dev/ttyUSB9'),
    });
    expect(result.tried).toEqual([{ path: '/dev/ttyUSB9', result: 'error', detail: 'link closed by peer' }]);
  });

  it('detectGateways: every answering port at once (one probe time, not one per port), never an excluded one', async () => {
    const { ports, open } = bench();
    // How many probes are open at once: all of them, not one after the other.
    let live = 0;
    let most = 0;
    const counting = (path: string): Link => {
      const link = open(path);
      const { open: o, close: c } = link;
      link.open = async () => {
        await o.call(link);
        most = Math.max(most, ++live);
      };
      link.close = async () => {
        live--;
        await c.call(link);
      };
      return link;
    };
    const result = await detectGateways({
      clock,
      open: counting,
      candidates: candidates('/dev/ttyUSB1', '/dev/ttyACM1', '/dev/ttyACM2', '/dev/ttyUSB0'),
      exclude: ['/dev/ttyUSB0'],
    });
    expect(result.found).toEqual([
      { path: '/dev/ttyACM1', mac: '48:CA:43:10:20:30' },
      { path: '/dev/ttyACM2', mac: OTHER_MAC },
    ]);
    expect(result.tried.map((t) => [t.path, t.result])).toEqual([
      ['/dev/ttyUSB1', 'no_answer'],
      ['/dev/ttyACM1', 'identified'],
      ['/dev/ttyACM2', 'identified'],
    ]);
    expect(most).toBe(3);
    for (const p of ['/dev/ttyUSB1', '/dev/ttyACM1', '/dev/ttyACM2'])
      expect(ports.get(p)?.connected).toBe(false);
    // The excluded port (a driver owns it) was never opened again.
    expect(ports.get('/dev/ttyUSB0')?.connectionCount).toBe(1);
  });

  it('with no candidates, tries nothing', async () => {
    const result = await detectGateway({ clock, candidates: candidates() });
    expect(result).toEqual({ found: null, tried: [] });
  });

  it('opens real serial ports by default and records a missing one as an error', async () => {
    const result = await detectGateway({ clock, candidates: candidates('/dev/lightnet-test-nonexistent') });
    expect(result.found).toBeNull();
    expect(result.tried).toHaveLength(1);
    expect(result.tried[0]?.result).toBe('error');
    expect(result.tried[0]?.detail).toMatch(/lightnet-test-nonexistent/);
  });
});

describe('handing a probed link over to the driver', () => {
  it('gives-the-open-probe-link-first-then-fresh-links-and-never-a-closed-one', async () => {
    const ep = new MemoryEndpoint(() => undefined, { path: '/dev/ttyACM9' });
    const probe = ep.factory();
    await probe.open();
    const next = handOver(probe, ep.factory);
    expect(next()).toBe(probe);
    const again = next();
    expect(again).not.toBe(probe);
    // A probe link that closed before the driver took it (unplugged again): a fresh one.
    const other = ep.factory();
    await probe.close();
    await other.open();
    await other.close();
    expect(handOver(other, ep.factory)()).not.toBe(other);
    expect(ep.connectionCount).toBe(2);
  });
});
