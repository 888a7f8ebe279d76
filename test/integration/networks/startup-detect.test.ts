/**
 * `--gateway auto` at start probes every port at once and drives every gateway that
 * answers. Each board's port is opened once: the driver takes the probe's open link
 * instead of reopening the port (on a CP2102 board every open resets it and costs a boot
 * wait). A later reconnect still opens a fresh link.
 */
import { describe, expect, it } from 'vitest';
import { ScaledClock } from '../../../src/clock.ts';
import { createFleets } from '../../../src/sim/fleets.ts';
import { serveFleetOnMemory } from '../../../src/sim/sim-host.ts';
import type { LinkFactory } from '../../../src/transport/link.ts';
import { MemoryEndpoint } from '../../../src/transport/memory-link.ts';
import { withHost, type Harness } from '../harness.ts';
import { until } from '../../until.ts';

interface GatewayRow {
  mac: string;
  port: string | null;
  bind_state: string;
  ready: boolean;
}
const gateways = async (h: Harness): Promise<GatewayRow[]> =>
  (await h.get<{ gateways: GatewayRow[] }>('/api/gateways')).body.gateways;

describe('gateways detected at start', () => {
  it('are-driven-on-the-probes-open-link-one-opening-per-board-and-reconnect-on-a-fresh-one', async () => {
    // Real time: the drivers of detected (serial) gateways run on the wall clock.
    const clock = new ScaledClock(1);
    const [fa, fb] = createFleets({ gateways: 2, nodes: 0, seed: 21, clock, gatewayUp: true });
    const a = serveFleetOnMemory(fa!, { clock, path: 'sim:usb0', autoStart: false });
    const b = serveFleetOnMemory(fb!, { clock, path: 'sim:usb1', autoStart: false });
    fa!.start({ nodes: false });
    fb!.start({ nodes: false });
    // Somebody else's device: opened by the probe, never answers.
    const other = new MemoryEndpoint(() => undefined, { path: 'sim:other' });
    const socket = (path: string): LinkFactory =>
      path === 'sim:usb0' ? a.linkFactory : path === 'sim:usb1' ? b.linkFactory : other.factory;
    const opened: string[] = [];
    try {
      await withHost(
        {
          gateway: { kind: 'auto' },
          overrides: {
            detect: {
              candidates: () =>
                Promise.resolve(['sim:usb0', 'sim:other', 'sim:usb1'].map((path) => ({ path }))),
              open: (path) => {
                opened.push(path);
                return socket(path)();
              },
              linkFactory: socket,
              identify: { settleMs: 0, answerMs: 200, retries: 0 },
            },
          },
        },
        async (h) => {
          const macs = [fa!, fb!].map((f) => f.gateway.mac.replace(/:/g, ''));
          // Both answered and are driven.
          const rows = await until('both gateways ready', async () => {
            const r = await gateways(h);
            return r.length === 2 && r.every((g) => g.ready) && r;
          });
          expect(rows.map((g) => [g.mac, g.port]).sort()).toEqual([
            [macs[0], 'sim:usb0'],
            [macs[1], 'sim:usb1'],
          ]);
          expect(opened.sort()).toEqual(['sim:other', 'sim:usb0', 'sim:usb1']);
          // Probed and driven on one opening of each board's port.
          expect(a.endpoint.connectionCount).toBe(1);
          expect(b.endpoint.connectionCount).toBe(1);

          // A dropped link is reconnected on a fresh link (the probe's is gone).
          fa!.faults.dropLink();
          fa!.faults.restoreLink();
          await until(
            'board A not ready',
            async () => !(await gateways(h)).find((g) => g.mac === macs[0])?.ready,
          );
          await until(
            'board A driven again',
            async () => (await gateways(h)).find((g) => g.mac === macs[0])?.ready,
            30_000,
          );
          expect(a.endpoint.connectionCount).toBe(2);
          expect(b.endpoint.connectionCount).toBe(1);
        },
      );
    } finally {
      a.stop();
      b.stop();
      fa!.stop();
      fb!.stop();
    }
  }, 60_000);
});
