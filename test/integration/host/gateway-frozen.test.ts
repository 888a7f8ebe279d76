import { describe, expect, it } from 'vitest';
import { withHost } from '../harness.ts';

interface Gw {
  ready: boolean;
  last_error: string | null;
}

describe('gateway link-alive check', () => {
  it('frozen-gateway-with-open-port-becomes-not-ready-within-seconds-and-recovers', async () => {
    await withHost({ nodes: 2 }, async (h) => {
      const sse = await h.sse();
      const clock = h.host.services.clock;
      expect((await h.get<{ gateway: Gw }>('/api/gateway')).body.gateway.ready).toBe(true);
      const faults = h.host.sim!.fleet.faults;

      const frozenAt = clock.now();
      faults.gatewayFrozen = true;
      const down = await sse.waitFor('gateway', (g) => (g as Gw).ready === false);
      // Simulated time: two quiet check periods plus a state-query timeout, not a wall-clock wait.
      expect(clock.now() - frozenAt).toBeLessThan(10_000);
      expect((down.data as Gw).last_error).toMatch(/stopped answering/);
      const gw = await h.get<{ gateway: Gw }>('/api/gateway');
      expect(gw.body.gateway.ready).toBe(false);
      const ctl = await h.post('/api/devices/control', {
        groupId: 255,
        flags: 5,
        presetId: 1,
        brightness: 10,
      });
      expect(ctl.body).toMatchObject({ ok: true, changed: 0 });

      const since = sse.events.length;
      faults.gatewayFrozen = false;
      await sse.waitFor('gateway', (g) => (g as Gw).ready === true && sse.events.length > since);
      const after = await h.post('/api/devices/control', {
        groupId: 255,
        flags: 5,
        presetId: 1,
        brightness: 10,
      });
      expect(after.body).toEqual({ ok: true, changed: 1 });
    });
  });

  it('a-quiet-but-healthy-gateway-stays-ready', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      const clock = h.host.services.clock;
      const { driver } = h.host.services;
      const changes: boolean[] = [];
      const off = driver.on('readiness', (r) => changes.push(r.ready));
      const start = clock.now();
      // Let a minute of simulated time pass with no traffic at all.
      await clock.sleep(60_000);
      off();
      expect(clock.now() - start).toBeGreaterThanOrEqual(60_000);
      expect(changes).toEqual([]);
      expect(driver.readiness().ready).toBe(true);
    });
  });
});
