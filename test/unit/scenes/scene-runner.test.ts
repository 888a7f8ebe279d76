/** The runner against a scripted driver: outcomes, stop_on_error, cancel, one run at a time. */
import { describe, expect, it } from 'vitest';
import type { SceneAction } from '../../../src/domain/scenes/types.ts';
import { SceneRunningError } from '../../../src/errors.ts';
import { EventBus, type SceneProgress } from '../../../src/events.ts';
import type { GatewayDriver, Reply, AckResult, TxOutcome } from '../../../src/gateway/types.ts';
import { silentLogger } from '../../../src/logger.ts';
import type { M2NRequest } from '../../../src/protocol/types.ts';
import { SceneRunner } from '../../../src/services/scenes/run/runner.ts';
import { ManualClock, settle } from '../gateway/manual-clock.ts';
import { B, ctx, devicesIn } from './plan-helpers.ts';

type Script = (req: M2NRequest) => TxOutcome;

function setup(script: Script = () => ({ ok: true }), ack = true) {
  const clock = new ManualClock();
  const bus = new EventBus();
  const events: SceneProgress[] = [];
  bus.on('scene_progress', (e) => events.push(e));
  const sent: M2NRequest[] = [];
  const driver = {
    send: async (_recv: string, req: M2NRequest): Promise<TxOutcome> => {
      sent.push(req);
      return script(req);
    },
    stream: async (addr: string): Promise<Reply<AckResult>> => ({
      ok: true,
      value: { addr, ok: ack, status: ack ? 0 : 4, rssi: 0, snr: 0, ts: 0 },
    }),
  } as unknown as GatewayDriver;
  const runner = new SceneRunner({ driver, clock, bus, log: silentLogger() });
  const run = (actions: SceneAction[], stopOnError = true) =>
    runner.run({
      key: 'k',
      label: 'K',
      actions,
      stopOnError,
      draft: false,
      context: ctx(
        devicesIn(
          [1],
          [
            {
              addr: 'ABC001',
              groupId: 1,
              groupPending: false,
              brightness: 1,
              startblock: { first: 1, slots: 1 },
            },
          ],
        ),
        true,
      ),
    });
  return { clock, events, sent, runner, run };
}

const effect: SceneAction = { kind: 'native_effect', target: B, params: { mode: 1 }, flags_override: {} };
const rejected: TxOutcome = {
  ok: false,
  reason: 'rejected',
  detail: 'gateway rejected the frame (TXPENDING)',
};

describe('scene runner', () => {
  it('a rejected frame fails its action; stop_on_error skips the rest with one end event each', async () => {
    const s = setup((req) => (req.op === 'CONTROL' ? rejected : { ok: true }));
    const r = await s.run([{ kind: 'sync' }, effect, { kind: 'sync' }]);
    expect(r.ok).toBe(false);
    expect(r.aborted_at_index).toBe(1);
    expect(r.actions.map((a) => [a.state, a.frames_sent])).toEqual([
      ['ok', 1],
      ['error', 0],
      ['skipped', 0],
    ]);
    expect(r.actions[1]?.error).toBe('send_failed: gateway rejected the frame (TXPENDING)');
    expect(r.error).toBe(r.actions[1]?.error);
    expect(s.sent.map((q) => q.op)).toEqual(['SYNC', 'CONTROL']);
    expect(s.events.map((e) => `${e.index}${e.phase[0]}`)).toEqual(['0s', '0e', '1s', '1e', '2e']);
  });

  it('without stop_on_error the run goes on; degraded actions never stop it', async () => {
    const s = setup((req) => (req.op === 'CONTROL' ? rejected : { ok: true }));
    const ghost: SceneAction = {
      kind: 'native_preset',
      target: B,
      params: { presetId: 'ghost' },
      flags_override: {},
    };
    const r = await s.run([ghost, effect, { kind: 'sync' }], false);
    expect(r.actions.map((a) => a.state)).toEqual(['degraded', 'error', 'ok']);
    const r2 = await s.run([ghost, { kind: 'sync' }], true);
    expect(r2.actions.map((a) => a.state)).toEqual(['degraded', 'ok']);
    expect(r2.ok).toBe(false);
  });

  it('a STREAM counts only when acknowledged', async () => {
    const s = setup(undefined, false);
    const r = await s.run([{ kind: 'startblock', target: B, params: { fn_key: 'startblock_control' } }]);
    expect(r.actions[0]).toMatchObject({ ok: false, frames_planned: 1, frames_sent: 0 });
    expect(r.actions[0]?.error).toMatch(/ACK status 4/);
  });

  it('one run at a time; cancel ends a delay at once and skips the rest', async () => {
    const s = setup();
    const p = s.run([{ kind: 'delay', duration_ms: 60_000 }, { kind: 'sync' }]);
    await settle();
    expect(s.runner.running()).toBe('k');
    await expect(s.run([{ kind: 'sync' }])).rejects.toBeInstanceOf(SceneRunningError);
    await s.clock.advance(1000);
    expect(s.runner.cancel()).toEqual({ cancelled: true, scene: 'k' });
    const r = await p;
    expect(r).toMatchObject({ ok: false, cancelled: true, error: 'cancelled', total_duration_ms: 1000 });
    expect(r.actions.map((a) => a.state)).toEqual(['cancelled', 'skipped']);
    expect(s.sent).toEqual([]);
    expect(s.runner.running()).toBeNull();
    expect(s.runner.cancel()).toEqual({ cancelled: false, scene: null });
  });
});
