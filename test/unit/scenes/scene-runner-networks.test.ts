/** The runner across networks: parallel shares, a barrier between actions, a missing gateway degraded at once. */
import { describe, expect, it } from 'vitest';
import type { SceneAction } from '../../../src/domain/scenes/types.ts';
import { EventBus } from '../../../src/events.ts';
import type { NetworkRouter } from '../../../src/gateway/network-parts.ts';
import type { GatewayDriver, TxOutcome } from '../../../src/gateway/types.ts';
import { silentLogger } from '../../../src/logger.ts';
import type { M2NRequest } from '../../../src/protocol/types.ts';
import type { PlanDevice } from '../../../src/services/scenes/plan/planner.ts';
import { SceneRunner } from '../../../src/services/scenes/run/runner.ts';
import { ManualClock } from '../gateway/manual-clock.ts';
import { B, ctx } from './plan-helpers.ts';

const dev = (addr: string, groupId: number, network: number): PlanDevice => ({
  addr,
  groupId,
  groupPending: false,
  brightness: 100,
  startblock: null,
  network,
});
const NETS = [
  { id: 1, name: 'Track A' },
  { id: 2, name: 'Track B' },
];

/** Two fake gateways; each send takes `ms` on the manual clock. */
function setup(opts: { missing?: number; failOn?: number } = {}) {
  const clock = new ManualClock();
  const log: { net: number; op: string; start: number; end: number }[] = [];
  const gateway = (net: number, ms: number): GatewayDriver =>
    ({
      send: async (_r: string, req: M2NRequest): Promise<TxOutcome> => {
        const start = clock.now();
        await clock.sleep(ms);
        log.push({ net, op: req.op, start, end: clock.now() });
        return net === opts.failOn ? { ok: false, reason: 'rejected', detail: 'rejected' } : { ok: true };
      },
    }) as unknown as GatewayDriver;
  const drivers = new Map([
    [1, gateway(1, 70)],
    [2, gateway(2, 40)],
  ]);
  const router: NetworkRouter = {
    networks: () => NETS,
    route: (id) =>
      id === opts.missing
        ? { ok: false, error: `gateway_missing: ${NETS.find((n) => n.id === id)?.name}` }
        : { ok: true, driver: drivers.get(id)! },
  };
  const fallback = { send: () => Promise.reject(new Error('the fan-out driver must not be used')) };
  const runner = new SceneRunner({
    driver: fallback as unknown as GatewayDriver,
    clock,
    bus: new EventBus(),
    log: silentLogger(),
    router,
  });
  const devices = [dev('A00001', 1, 1), dev('B00001', 1, 2)];
  const run = (actions: SceneAction[], stopOnError = true) =>
    runner.run({
      key: 'k',
      label: 'K',
      actions,
      stopOnError,
      draft: false,
      context: { ...ctx(devices, true), networks: NETS, scope: null },
    });
  return { clock, log, run };
}

const effect: SceneAction = { kind: 'native_effect', target: B, params: { mode: 1 }, flags_override: {} };

describe('scene runner across networks', () => {
  it('sends each network share in parallel and waits for the slowest before the next action', async () => {
    const s = setup();
    const done = s.run([effect, { kind: 'sync' }]);
    await s.clock.run(done);
    const r = await done;
    expect(r.ok).toBe(true);
    expect(r.network_failures).toEqual([]);
    expect(r.actions[0]?.networks?.map((n) => [n.network_id, n.state, n.frames_sent])).toEqual([
      [1, 'ok', 1],
      [2, 'ok', 1],
    ]);
    const t0 = Math.min(...s.log.map((x) => x.start));
    const [c1, c2, s1, s2] = [...s.log].sort((a, b) => a.start - b.start || a.net - b.net);
    // Both CONTROLs start together; the SYNCs start only after the slower one (70 ms).
    expect([c1?.start, c2?.start].map((t) => (t ?? 0) - t0)).toEqual([0, 0]);
    expect([s1?.op, (s1?.start ?? 0) - t0, (s2?.start ?? 0) - t0]).toEqual(['SYNC', 70, 70]);
  });

  it('a missing gateway fails its share at once as degraded naming it; the scene goes on', async () => {
    const s = setup({ missing: 2 });
    const done = s.run([effect, effect], true);
    await s.clock.run(done);
    const r = await done;
    expect(r.ok).toBe(false);
    expect(r.aborted_at_index).toBeUndefined();
    expect(r.actions.map((a) => [a.state, a.error, a.frames_sent])).toEqual([
      ['degraded', 'gateway_missing: Track B', 1],
      ['degraded', 'gateway_missing: Track B', 1],
    ]);
    expect(r.network_failures).toEqual([
      { network_id: 2, index: 0, state: 'degraded', error: 'gateway_missing: Track B' },
      { network_id: 2, index: 1, state: 'degraded', error: 'gateway_missing: Track B' },
    ]);
    expect(s.log.map((x) => x.net)).toEqual([1, 1]);
  });

  it('a send error on one network is an error (stop_on_error applies) naming the network', async () => {
    const s = setup({ failOn: 1 });
    const done = s.run([effect, effect], true);
    await s.clock.run(done);
    const r = await done;
    expect(r.aborted_at_index).toBe(0);
    expect(r.actions[0]).toMatchObject({
      state: 'error',
      error: 'send_failed: Track A: rejected',
      frames_sent: 1,
    });
    expect(r.actions[1]?.state).toBe('skipped');
  });
});
