/**
 * Task `rf_migration`: a network moves from channel A to channel B (design §3.5).
 *
 * The nodes first, then the gateway — a node only takes RF_CONFIG from its master on the
 * channel they share, and it never ACKs a successful one (it reboots, W§8.12), so:
 * 1. `migration {from A, to B}` is persisted before anything goes on air: a crash or a power
 *    cut from here on resumes on the next start knowing both channels.
 * 2. With the gateway leased on A (volatile there first if it is elsewhere: the conflict
 *    case "move the nodes to the gateway's channel", or a resume after the gateway moved),
 *    RF_CONFIG(B) to every online node, back to back; rejoining nodes and nodes in group 0
 *    get their SET_GROUP first (an unbound node ignores RF_CONFIG).
 * 3. Negative verification on A: STATUS to every group; whoever still answers missed it and
 *    is pushed again (at most 3 times).
 * 4. The gateway: SET_RF persist B (it answers, then reboots); the task waits for that
 *    gateway to come back ready on B (its readiness event, not a fixed sleep), and records
 *    `rf := B`.
 * 5. The lease goes; every moved node is up unbound on B by then, so one targeted,
 *    burst-paced SET_GROUP pass (its stored group) rebinds them at the air's pace while the
 *    recovery sweep leaves them alone (recovery.claim); the nodes it cannot reach (group 0:
 *    no SET_GROUP for them) are asked on B with DEVICES to group 0 — heard there in the
 *    group they had, they are home; the sweep follows the rest; then `migration: null`.
 * A resume does the same, except that it cannot know who was pushed: it finds whoever still
 * answers on A (STATUS, and DEVICES for unbound nodes), moves those, and rebinds everyone.
 */
import { describeRf, sameRf } from '../../../domain/rf-channels.ts';
import type { Addr, RfConfig } from '../../../protocol/types.ts';
import type { TaskContext, TaskSnapshot } from '../../../tasks/task-manager.ts';
import {
  goHome,
  pause,
  networkOf,
  readyGateway,
  recordSeen,
  rfSeen,
  takeLease,
  tuneVolatile,
  type RfMovesDeps,
} from '../common.ts';
import { checkMigration, type MigrateRequest } from './check.ts';
import { buildResult, type MigrationResult } from './result.ts';
import { follow, rebindPass, stillOnOld, waitGateway } from './steps.ts';

export { checkMigration, type MigrateRequest } from './check.ts';
export type { MigrationResult } from './result.ts';

const PUSHES = 3;
/**
 * Quiet verification rounds that end it. One missed a node now and then: a node that lost
 * its push (5 % loss) and whose DEVICES exchange in the one quiet round failed too (~10 %)
 * stayed on A, found only by the straggler search ≥ 30 s later. A second round costs ~1 s.
 */
const QUIET_ROUNDS = 2;
const VERIFY_MAX_ROUNDS = 8;
/**
 * After the targeted pass (4 tries each), how long the sweep follows the nodes it missed
 * before the old channel is searched for them; at least REBIND_STALL_MIN_MS, then it ends
 * once no node came back for 6 s.
 */
const REBIND_WAIT_MS = 20_000;
const REBIND_STALL_MIN_MS = 6000;
/**
 * Searches of the old channel for nodes that did not come back (the second only when the
 * first found some there: a node on a marginal link is not fetched by waiting longer).
 */
const STRAGGLER_PASSES = 2;
/** How long a later rebind follows the fetched stragglers (reboot ≈ 5 s, then the sweep). */
const STRAGGLER_WAIT_MS = 12_000;
const STRAGGLER_STALL_MIN_MS = 7000;
const GATEWAY_BACK_MS = 20_000;
/** At most this many DEVICES rounds on the new channel for the nodes the rebind did not reach. */
const FIND_ROUNDS_MAX = 6;
/**
 * A node is off the air ≈ 5 s after it took RF_CONFIG (it stores it and reboots, the docs'
 * figure): asked on the new channel before then, the last one told would not answer yet.
 */
const NODE_RF_REBOOT_MS = 5000;

export function startMigration(deps: RfMovesDeps, req: MigrateRequest, resumed = false): TaskSnapshot {
  deps.tasks.assertIdle();
  const { from } = checkMigration(deps, req);
  const net = networkOf(deps.store, req.networkId);
  // A migration left half-done (a crash, a cancel) cannot know who was pushed: resume it.
  resumed = resumed || net.migration !== null;
  const meta = {
    network_id: net.id,
    network_name: net.name,
    from: describeRf(from),
    to: describeRf(req.to),
    resumed,
  };
  return deps.tasks.start('rf_migration', { ...meta, stage: 'start', index: 0, total: 0 }, (ctx) =>
    runMigration(deps, ctx, req, from, resumed, meta),
  );
}

async function runMigration(
  deps: RfMovesDeps,
  ctx: TaskContext,
  req: MigrateRequest,
  from: RfConfig,
  resumed: boolean,
  meta: Record<string, unknown>,
): Promise<MigrationResult> {
  const { store, clock, log, registry, recovery } = deps;
  const to = req.to;
  const t0 = clock.now();
  const net = networkOf(store, req.networkId);
  const gw = readyGateway(deps, net);
  const tRecord = clock.now();
  await store.commit(['NETWORKS'], (s) => {
    const n = s.networks.find((x) => x.id === net.id);
    if (n && !n.migration) n.migration = { from: { ...from }, to: { ...to }, started_ts: Date.now() };
  });
  const recordMs = clock.now() - tRecord;
  log.info({ network: net.id, from: describeRf(from), to: describeRf(to), resumed }, 'RF migration started');
  const mine = (): string[] => store.state.devices.filter((d) => d.network_id === net.id).map((d) => d.addr);
  const all = mine();
  const groupOf = (a: Addr): number => registry.find(a)?.groupId ?? 0;
  const skipped = resumed
    ? []
    : all.filter((a) => {
        const d = registry.find(a);
        return d !== undefined && registry.linkState(d) === 'offline';
      });
  const pushed = new Set<Addr>();
  /** When the last RF_CONFIG went out (its node is up on B ≈ NODE_RF_REBOOT_MS later). */
  let lastPushAt = clock.now();
  const notMoved: Addr[] = [];
  let repushed = 0;
  const phase = { prepare: 0, push: 0, verify: 0, gateway: 0, rebind: 0 };
  let gatewayMoved = false;
  // From the gateway step on, the moved nodes are the rebind's (not the sweep's).
  let unclaim = (): void => {};
  const lease = takeLease(gw, net, `moving to ${describeRf(to)}`, 'rf_migration');
  const face = lease.driver;
  try {
    const now = await face.getGatewayRf();
    if (!now.ok || !sameRf(now.value, from)) {
      const err = await tuneVolatile(face, from);
      if (err) throw new Error(`could not put the gateway on the old channel ${describeRf(from)}: ${err}`);
    }
    ctx.checkpoint();
    // Who to push: the online nodes; on a resume, whoever still answers on A.
    let targets: Addr[];
    if (resumed) {
      ctx.setMeta({ ...meta, stage: 'find', index: 0, total: all.length });
      targets = await stillOnOld(face, new Set(all), ctx, groupOf, 3);
    } else {
      const skip = new Set(skipped);
      targets = all.filter((a) => !skip.has(a));
      // Bound first (an unbound node ignores RF_CONFIG): the rejoining ones, and the nodes in
      // group 0 — never discovered, so never given a master; without this every one of them
      // cost a wasted push and a verification round, and its late re-push a late reboot.
      await Promise.all(
        targets
          .filter((x) => recovery.isRejoining(x) || groupOf(x) === 0)
          .map((a) => face.setGroup(a, groupOf(a), { priority: 'bulk', attempts: 3, signal: ctx.signal })),
      );
      ctx.checkpoint();
    }
    phase.prepare = clock.now() - t0 - recordMs;
    let t = clock.now();
    for (const [i, a] of targets.entries()) {
      ctx.checkpoint();
      if (i % 10 === 0) ctx.setMeta({ ...meta, stage: 'push', index: i, total: targets.length });
      const r = await face.send(a, { op: 'RF_CONFIG', rf: to }, { priority: 'bulk', signal: ctx.signal });
      lastPushAt = clock.now();
      if (r.ok) pushed.add(a);
      else if (r.reason === 'cancelled') ctx.checkpoint();
    }
    phase.push = clock.now() - t;
    t = clock.now();
    // Whoever still answers on A missed the push: pushed again (≤ 3 times each). Two quiet
    // rounds in a row end it (QUIET_ROUNDS); a node that misses both too (loss) is fetched
    // as a straggler below.
    const pushes = new Map<Addr, number>();
    for (let round = 1, quiet = 0; quiet < QUIET_ROUNDS && round <= VERIFY_MAX_ROUNDS; round++) {
      ctx.checkpoint();
      ctx.setMeta({ ...meta, stage: 'verify', index: round, total: VERIFY_MAX_ROUNDS, pushed: pushed.size });
      const still = (await stillOnOld(face, new Set(targets), ctx, groupOf, 1)).filter(
        (a) => !notMoved.includes(a),
      );
      quiet = still.length === 0 ? quiet + 1 : 0;
      for (const a of still) {
        ctx.checkpoint();
        const n = (pushes.get(a) ?? 0) + 1;
        pushes.set(a, n);
        if (n > PUSHES) {
          notMoved.push(a);
          continue;
        }
        // Bind it first: a node that lost its master (a reboot, an unpin) ignores RF_CONFIG.
        if (n > 1) await face.setGroup(a, groupOf(a), { priority: 'bulk', attempts: 2, signal: ctx.signal });
        const r = await face.send(a, { op: 'RF_CONFIG', rf: to }, { priority: 'bulk', signal: ctx.signal });
        lastPushAt = clock.now();
        if (r.ok) {
          pushed.add(a);
          repushed++;
        }
      }
    }
    phase.verify = clock.now() - t;
    t = clock.now();
    ctx.checkpoint();
    ctx.setMeta({ ...meta, stage: 'gateway', index: 0, total: 1 });
    // Its reconnect makes them rejoining (recovery.onConnected): the targeted pass below
    // rebinds them, the sweep would only double the traffic.
    unclaim = recovery.claim(all);
    const set = await face.setGatewayRf(to, true);
    if (!set.ok)
      throw new Error(
        `the gateway refused the new channel: ${set.detail} (nodes moved: ${pushed.size}; start the migration again to retry)`,
      );
    await waitGateway(gw, to, clock, GATEWAY_BACK_MS, ctx.signal);
    gatewayMoved = true;
    // Home again, on B: the nodes' announcements count from now on (a crash before the
    // record below is written resumes from the gateway's channel).
    lease.release();
    await store.commit(['NETWORKS'], (s) => {
      const n = s.networks.find((x) => x.id === net.id);
      if (n) n.rf = { ...to };
    });
    log.info({ network: net.id, rf: describeRf(to) }, 'network gateway on its new channel');
    phase.gateway = clock.now() - t;
  } finally {
    if (!gatewayMoved) {
      unclaim();
      await goHome(face, from, log);
    }
    lease.release();
  }
  // Rebind: the recovery sweep puts every moved node back in its group.
  const t = clock.now();
  const notMovedSet = new Set(notMoved);
  const travellers = (resumed ? all : [...pushed]).filter((a) => !notMovedSet.has(a));
  const back = new Set<Addr>();
  let lastBackAt = t;
  const noteBack = (ts: number): void => {
    lastBackAt = Math.max(lastBackAt, ts);
  };
  /**
   * A node heard on B in the group it had is home: DEVICES to group 0 on B (answered by the
   * nodes in group 0 there — never discovered, or rebooted out of their group — not by the
   * whole fleet); one whose stored group is another is put back into it first (stillOnOld
   * works on whatever channel the gateway is on). The rest are the sweep's.
   */
  const findOnNew = async (addrs: readonly Addr[]): Promise<void> => {
    // Round by round until every one answered: the found ones (still in group 0) answer
    // again and collide with the rest, so a round hears only some of a crowd; two rounds
    // in a row without news end it (the rest are the sweep's, then the stragglers').
    let open = addrs.filter((a) => !back.has(a));
    for (let round = 0, dry = 0; open.length > 0 && round < FIND_ROUNDS_MAX && dry < 2; round++) {
      ctx.setMeta({ ...meta, stage: 'find_new', index: back.size, total: travellers.length });
      const found = await stillOnOld(gw, new Set(open), ctx, groupOf, 1, 0);
      dry = found.length === 0 ? dry + 1 : 0;
      for (const a of found) {
        back.add(a);
        noteBack(clock.now());
      }
      open = open.filter((a) => !back.has(a));
    }
  };

  // Every moved node is up unbound on B by now: one targeted SET_GROUP pass first; the
  // nodes it did not reach (group 0 among them) are asked on B, the recovery sweep follows
  // the rest.
  ctx.setMeta({ ...meta, stage: 'rebind', index: 0, total: travellers.length });
  const grouped = travellers.filter((a) => groupOf(a) !== 0);
  // Rejoining while the pass runs (a status poll does not call them offline); any proof of
  // binding (this pass's ACK, an announcement's immediate restore) resolves them.
  recovery.add(grouped, 'manual', { settle: false });
  const pendingCount = (): number => grouped.filter((a) => recovery.isRejoining(a)).length;
  try {
    await rebindPass(
      gw,
      grouped,
      groupOf,
      clock,
      ctx,
      (a) => !recovery.isRejoining(a),
      () => {
        noteBack(clock.now());
        ctx.setMeta({
          ...meta,
          stage: 'rebind',
          index: grouped.length - pendingCount(),
          total: travellers.length,
        });
      },
    );
  } finally {
    unclaim();
  }
  for (const a of grouped) if (!recovery.isRejoining(a)) back.add(a);
  ctx.checkpoint();
  // The rest are asked, not waited for: a node in group 0 (never discovered) gets no
  // SET_GROUP, and its boot announcements on B went out while the gateway was still on A
  // (the verification), so nothing would ever be heard from it.
  const unheard = travellers.filter((a) => !back.has(a));
  if (unheard.length > 0)
    await pause(clock, Math.max(0, lastPushAt + NODE_RF_REBOOT_MS - clock.now()), ctx.signal);
  await findOnNew(unheard);
  await follow(
    deps,
    ctx,
    meta,
    travellers.filter((a) => !back.has(a)),
    back,
    t,
    REBIND_WAIT_MS,
    REBIND_STALL_MIN_MS,
    noteBack,
  );
  for (let pass = 1; pass <= STRAGGLER_PASSES; pass++) {
    // Asked on B once more before the old channel is searched (a lost reply is not a node lost).
    await findOnNew(travellers.filter((a) => !back.has(a)));
    const late = travellers.filter((a) => !back.has(a));
    if (late.length === 0) break;
    // Missed by the verification (loss) and still bound on A, or rebooted there: fetch them.
    ctx.setMeta({ ...meta, stage: 'stragglers', index: 0, total: late.length });
    let foundOnOld = 0;
    const again = takeLease(gw, net, `fetching stragglers from ${describeRf(from)}`, 'rf_migration');
    try {
      if ((await tuneVolatile(again.driver, from)) === null) {
        const found = new Set(await stillOnOld(again.driver, new Set(late), ctx, groupOf, 2));
        for (const a of late) {
          ctx.checkpoint();
          if (found.has(a)) continue;
          const st = await again.driver.statusUnicast(a, groupOf(a), {
            priority: 'bulk',
            attempts: 2,
            signal: ctx.signal,
          });
          if (st.ok) found.add(a);
        }
        for (const a of found) {
          for (let i = 0; i < PUSHES; i++) {
            ctx.checkpoint();
            if (i > 0)
              await again.driver.setGroup(a, groupOf(a), {
                priority: 'bulk',
                attempts: 2,
                signal: ctx.signal,
              });
            await again.driver.send(a, { op: 'RF_CONFIG', rf: to }, { priority: 'bulk', signal: ctx.signal });
            repushed++;
            const st = await again.driver.statusUnicast(a, groupOf(a), {
              priority: 'bulk',
              attempts: 2,
              signal: ctx.signal,
            });
            if (!st.ok) break;
          }
        }
        foundOnOld = found.size;
        log.info({ network: net.id, found: found.size, late: late.length }, 'RF migration stragglers pushed');
      }
    } finally {
      await goHome(again.driver, to, log);
      again.release();
    }
    await follow(deps, ctx, meta, late, back, t, STRAGGLER_WAIT_MS, STRAGGLER_STALL_MIN_MS, noteBack);
    if (foundOnOld === 0) break;
  }
  // Not back: their own restores end here (a scan of both channels finds them).
  recovery.drop(travellers.filter((a) => !back.has(a)));
  phase.rebind = clock.now() - t;
  const stranded = travellers.filter((a) => !back.has(a));
  recordSeen(deps, [
    ...[...back].map((addr) => ({ addr, seen: rfSeen(to, clock, 'migration') })),
    ...[...notMoved, ...skipped].map((addr) => ({ addr, seen: rfSeen(from, clock, 'migration') })),
  ]);
  await store.commit(['NETWORKS'], (s) => {
    const n = s.networks.find((x) => x.id === net.id);
    if (n) n.migration = null;
  });
  const result = buildResult({
    net,
    from,
    to,
    resumed,
    clock,
    t0,
    lastBackAt,
    recordMs,
    phase,
    devices: all.length,
    pushed: pushed.size,
    repushed,
    back,
    notMoved,
    skipped,
    stranded,
  });
  log.info({ network: net.id, ...result.summary, seconds: result.seconds }, 'RF migration done');
  return result;
}
