import { describe, expect, it } from 'vitest';
import type { Radio } from '../../../src/gateway/radio/radio.ts';
import { withHost, type Harness } from '../harness.ts';
import { until } from '../../until.ts';

interface Unstable {
  losses: number;
  window_s: number;
  since_ts: number;
  reconnect_min_s: number;
}
interface NetRow {
  id: number;
  name: string;
  link_unstable: Unstable | null;
}
interface Gw {
  ready: boolean;
  next_retry_in_s: number | null;
}

const nets = async (h: Harness): Promise<NetRow[]> =>
  (await h.get<{ networks: NetRow[] }>('/api/networks')).body.networks;
const gateway = async (h: Harness): Promise<Gw & Record<string, unknown>> =>
  (await h.get<{ gateway: Gw & Record<string, unknown> }>('/api/gateway')).body.gateway;

const WINDOW_MS = 3_600_000;

describe('a flapping gateway link', () => {
  it('more-than-3-losses-a-minute-raise-a-warning-slow-the-reconnects-and-clear-once-stable', async () => {
    // The stepped clock runs through an idle minute in a few ms of real time: a window of an
    // hour keeps the flapping state long enough for HTTP to see it (the rule is the same).
    await withHost({ nodes: 2, overrides: { driverOptions: { unstableWindowMs: WINDOW_MS } } }, async (h) => {
      const faults = h.host.sim!.fleet.faults;
      await until('gateway ready', async () => (await gateway(h)).ready);
      const shape = Object.keys(await gateway(h)).sort();
      const sse = await h.sse('console=1');
      // Three losses in a row: a bump, not yet a banner; each reconnect comes after 1 s.
      for (let i = 1; i <= 4; i++) {
        faults.dropLink();
        const down = await until(`link ${i} lost`, async () => {
          const g = await gateway(h);
          return !g.ready && g.next_retry_in_s !== null ? g : null;
        });
        if (i <= 3) {
          expect(down.next_retry_in_s).toBeLessThanOrEqual(1);
          expect((await nets(h))[0]!.link_unstable).toBeNull();
          faults.restoreLink();
          await until(`link ${i} back`, async () => (await gateway(h)).ready);
        } else {
          // The fourth loss within the minute: unstable, the reconnect waits 10 s.
          expect(down.next_retry_in_s).toBeGreaterThan(5);
        }
      }
      const row = (await nets(h))[0]!;
      expect(row.link_unstable).toMatchObject({ losses: 4, window_s: 3600, reconnect_min_s: 10 });
      await sse.waitFor('networks', (d) =>
        (d as { networks: NetRow[] }).networks.some((n) => n.link_unstable?.losses === 4),
      );
      const warnings = (await h.get<{ warnings: string[] }>('/api/health')).body.warnings;
      expect(warnings).toContain(
        'gateway of Network 1 lost its link 4 times in the last 3600 s — check the USB cable, hub and power (reconnects wait 10 s until it is stable)',
      );
      // The contract's gateway snapshot keeps its exact fields.
      expect(Object.keys(await gateway(h)).sort()).toEqual(shape);

      // A port event (the board re-enumerates at every contact) does not cut the longer wait.
      faults.restoreLink();
      const driver = (h.host.services.driver as Radio).gateways[0]!.driver;
      expect(await driver.connectNow!()).toBe(false);
      expect((await gateway(h)).ready).toBe(false);
      await until('link back after the longer wait', async () => (await gateway(h)).ready);

      // A whole window without a loss: stable again, the warning clears by itself.
      await until('stable again', async () => (await nets(h))[0]!.link_unstable === null, 120_000);
      const after = (await h.get<{ warnings: string[] }>('/api/health')).body.warnings;
      expect(after.some((w) => w.includes('lost its link'))).toBe(false);
      // Back to the 1 s reconnect.
      faults.dropLink();
      const down = await until('link lost once more', async () => {
        const g = await gateway(h);
        return !g.ready && g.next_retry_in_s !== null ? g : null;
      });
      expect(down.next_retry_in_s).toBeLessThanOrEqual(1);
      faults.restoreLink();
    });
  });
});
