/**
 * The steps of an RF migration that talk to the air (migration.ts runs them in order):
 * finding who is on a channel, waiting for the gateway after its reboot, and following the
 * moved nodes home through the recovery sweep.
 */
import { describeRf, sameRf } from '../../../domain/rf-channels.ts';
import type { LeasableDriver } from '../../../gateway/lease.ts';
import type { GatewayDriver } from '../../../gateway/types.ts';
import type { Addr, RfConfig } from '../../../protocol/types.ts';
import type { TaskContext } from '../../../tasks/task-manager.ts';
import { PIPELINE_ATTEMPT_TIMEOUT_MS, radioPace, runUnicastPipeline } from '../../devices/index.ts';
import { pause, type RfMovesDeps } from '../common.ts';

/** One DEVICES round's window (see scan.ts). */
const ROUND_WINDOW_MS = 800;
/** A follow ends early when no node came back for this long (after its minimum). */
const STALL_MS = 6000;
/** While waiting for the gateway after its reboot: how often a pending backoff is cut short. */
const NUDGE_MS = 1500;

/**
 * Who of `addrs` is on the gateway's current channel: DEVICES to every group is answered by
 * the nodes bound to this gateway and by unbound ones (a node bound to another gateway
 * ignores it, W§8.2), in `rounds` single rounds of 0.8 s (the window stays open while replies
 * keep coming). A node reporting another group than its stored one rebooted meanwhile and is
 * unbound: it gets its SET_GROUP first, or it would ignore the RF_CONFIG.
 */
export async function stillOnOld(
  face: GatewayDriver,
  addrs: ReadonlySet<Addr>,
  ctx: TaskContext,
  groupOf: (a: Addr) => number,
  rounds: number,
  /** 255: every group; 0: only nodes in group 0 answer (a big fleet stays quiet). */
  groupId = 255,
): Promise<Addr[]> {
  const heard = new Map<Addr, number>();
  for (let i = 0; i < rounds; i++) {
    ctx.checkpoint();
    const got = await face.discover({
      groupId,
      rounds: 1,
      windowMs: ROUND_WINDOW_MS,
      priority: 'bulk',
      signal: ctx.signal,
    });
    for (const r of got) {
      if (r.source === 'announcement' || !addrs.has(r.addr)) continue;
      heard.set(r.addr, r.reply.groupId);
    }
  }
  const out: Addr[] = [];
  for (const [a, reported] of heard) {
    ctx.checkpoint();
    if (reported !== groupOf(a)) {
      const b = await face.setGroup(a, groupOf(a), { priority: 'bulk', attempts: 3, signal: ctx.signal });
      if (!b.ok || !b.value.ok) continue;
    }
    out.push(a);
  }
  return out;
}

/** Tries per node of the targeted rebind (the recovery sweep takes over the rest). */
const REBIND_ATTEMPTS = 4;

/**
 * The rebind right after a migration: every moved node is known to be up unbound on the
 * new channel (RF_CONFIG reboots it in ≈ 5 s, long before the gateway is back), so it takes
 * a SET_GROUP to its stored group from any sender (W§8.2). One burst-paced pipeline of
 * SET_GROUP (depth 3, short reply windows) reaches them at the air's pace, instead of the
 * recovery sweep's general-purpose passes (depth 2, no bursts, doubling backoff for nodes
 * that are dark — none are here). Returns the nodes that acknowledged (their ACK restores
 * the registry's group through the driver like any SET_GROUP).
 */
export async function rebindPass(
  face: GatewayDriver,
  addrs: readonly Addr[],
  groupOf: (a: Addr) => number,
  clock: RfMovesDeps['clock'],
  ctx: TaskContext,
  /** Bound meanwhile another way (an announcement's immediate restore): skipped. */
  isBack: (a: Addr) => boolean,
  onBack: (a: Addr) => void,
): Promise<Set<Addr>> {
  const acked = new Set<Addr>();
  await runUnicastPipeline(
    addrs.map((a) => ({
      key: a,
      attempt: ({ signal, onSent }) =>
        face.setGroup(a, groupOf(a), {
          priority: 'bulk',
          attempts: 1,
          timeoutMs: PIPELINE_ATTEMPT_TIMEOUT_MS,
          onSent,
          ...(signal ? { signal } : {}),
        }),
    })),
    {
      clock,
      attempts: REBIND_ATTEMPTS,
      burst: { quietMs: radioPace(face).quietMs('ack') },
      signal: ctx.signal,
      // An ACK on the way still counts when the task is cancelled.
      abortInFlight: false,
      accept: (v) => (v as { ok?: boolean }).ok !== false,
      settled: (a) => acked.has(a) || isBack(a),
      onOutcome: (o) => {
        if (!o.ok) return;
        acked.add(o.key);
        onBack(o.key);
      },
    },
  );
  return acked;
}

/** Waits for the gateway's readiness event after its reboot, on the new settings. */
export function waitGateway(
  gw: LeasableDriver,
  rf: RfConfig,
  clock: RfMovesDeps['clock'],
  ms: number,
  signal: AbortSignal,
): Promise<void> {
  const back = (): boolean => gw.readiness().ready && sameRf(gw.radioSettings().rf, rf);
  if (back()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (err?: Error): void => {
      off();
      timer.cancel();
      nudge.cancel();
      signal.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve();
    };
    const off = gw.on('readiness', () => {
      if (back()) done();
    });
    const timer = clock.setTimeout(
      () =>
        done(
          new Error(
            `the gateway did not come back on ${describeRf(rf)} within ${ms / 1000} s (start the migration again to retry: it resumes)`,
          ),
        ),
      ms,
    );
    // The gateway is back within ~1–2 s of its reboot, but a connect attempt that came too
    // early leaves the link waiting out a doubling backoff: connect now instead (only while
    // a backoff is pending, so no attempt in progress is interrupted).
    let nudge = clock.setTimeout(function again() {
      const r = gw.readiness();
      if (!r.ready && (r.next_retry_in_s ?? 0) >= 1) void gw.retry();
      nudge = clock.setTimeout(again, NUDGE_MS);
    }, NUDGE_MS);
    const onAbort = (): void => done(new Error('cancelled'));
    signal.addEventListener('abort', onAbort);
  });
}

/**
 * Follows moved nodes home for up to `ms`: nodes with a group through the recovery sweep
 * (SET_GROUP to their stored group), nodes in group 0 through their boot announcement.
 * Adds the ones back (online, group confirmed, heard since `since`) to `back`.
 */
export async function follow(
  deps: RfMovesDeps,
  ctx: TaskContext,
  meta: Record<string, unknown>,
  addrs: readonly Addr[],
  back: Set<Addr>,
  since: number,
  ms: number,
  /**
   * End early once the recovery stalls (no node back for STALL_MS, and at least this long
   * followed): stragglers are due. Null: follow for the whole `ms`.
   */
  stallMinMs: number | null,
  onBack: (ts: number) => void,
): Promise<void> {
  const { registry, recovery, clock } = deps;
  const begun = clock.now();
  let lastBack = begun;
  const grouped = addrs.filter((a) => (registry.find(a)?.groupId ?? 0) !== 0);
  const own = new Set(recovery.add(grouped, 'manual', { settle: false }));
  const open = new Set(addrs.filter((a) => !back.has(a)));
  const until = clock.now() + ms;
  try {
    while (open.size > 0 && clock.now() < until) {
      for (const a of [...open]) {
        const d = registry.find(a);
        if (!d) {
          open.delete(a);
          continue;
        }
        if (
          !recovery.isRejoining(a) &&
          d.last_seen_ts * 1000 >= since &&
          registry.linkState(d) === 'online' &&
          !d.group_pending
        ) {
          back.add(a);
          open.delete(a);
          lastBack = clock.now();
          onBack(lastBack);
        }
      }
      const now = clock.now();
      if (stallMinMs !== null && now - begun >= stallMinMs && now - lastBack >= STALL_MS) break;
      ctx.setMeta({ ...meta, stage: 'rebind', index: back.size, total: addrs.length });
      if (open.size === 0) break;
      await pause(clock, 250, ctx.signal);
      ctx.checkpoint();
    }
  } finally {
    // Cancelled: the migration's own restores end (the nodes stay where they are).
    if (ctx.signal.aborted) recovery.drop([...own].filter((a) => open.has(a)));
  }
}
