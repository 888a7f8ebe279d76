/**
 * Task `rf_rescue`: nodes found on channel X (a scan said where) come back into their
 * network and group. With the network's gateway leased: volatile to X; SET_GROUP (the
 * stored group, 0 when unknown) binds each node to this gateway — a stranded node is
 * unbound and takes it from anyone; RF_CONFIG(the network's settings) — no ACK comes on
 * success, the node reboots (W§8.12); one STATUS on X proves it left (an answer means it
 * did not: pushed again); then the gateway goes home. The node boots on the network's
 * channel unbound; the task asks it for its group (SET_GROUP) once per reply window from
 * then on, so it is back as soon as its radio is up (its boot announcement, a second later,
 * would restore it too), and after SWEEP_AFTER_MS the recovery sweep takes over. The task
 * follows each node until it is back online in its group.
 */
import type { Device } from '../../domain/model.ts';
import { describeRf } from '../../domain/rf-channels.ts';
import { ValidationError } from '../../errors.ts';
import type { Addr, RfConfig } from '../../protocol/types.ts';
import type { TaskSnapshot } from '../../tasks/task-manager.ts';
import { PIPELINE_ATTEMPT_TIMEOUT_MS } from '../devices/index.ts';
import {
  goHome,
  homeRf,
  networkOf,
  pause,
  readyGateway,
  recordSeen,
  rfSeen,
  takeLease,
  tuneVolatile,
  type RfMovesDeps,
} from './common.ts';

export interface RescueRequest {
  addrs: Addr[];
  networkId: number;
  from: RfConfig;
}

export type RescueOutcome =
  /** Back online in its network and group. */
  | 'home'
  /** It left channel X but did not come back on the network's channel in time. */
  | 'moved_not_heard'
  /** It still answered on X after the pushes. */
  | 'not_moved'
  /** It did not acknowledge SET_GROUP on X (not there, or bound to another gateway). */
  | 'no_bind';

export interface RescueResult {
  network_id: number;
  network_name: string;
  from: { rf: RfConfig; channel: string };
  to: { rf: RfConfig; channel: string };
  returned_home: boolean;
  nodes: { addr: Addr; name: string | null; group: number; outcome: RescueOutcome; seconds: number | null }[];
}

/** How long the task follows a moved node home: reboot ≈ 5 s, then its announcement. */
const HOME_WAIT_MS = 20_000;
const PUSHES = 3;
/** After this, a node not back yet is handed to the recovery sweep (probing ends). */
const SWEEP_AFTER_MS = 6000;

export function startRescue(deps: RfMovesDeps, req: RescueRequest): TaskSnapshot {
  const { store, tasks, clock, log, registry, recovery } = deps;
  tasks.assertIdle();
  const net = networkOf(store, req.networkId);
  const gw = readyGateway(deps, net);
  const home = homeRf(net, gw);
  if (req.addrs.length === 0) throw new ValidationError('addrs: give at least one device');
  const meta = {
    network_id: net.id,
    network_name: net.name,
    from: describeRf(req.from),
    total: req.addrs.length,
  };
  return tasks.start('rf_rescue', { ...meta, stage: 'start', index: 0 }, async (ctx) => {
    const started = clock.now();
    const outcome = new Map<Addr, RescueOutcome>();
    const groupOf = (a: Addr): number => registry.find(a)?.groupId ?? 0;
    // The node will announce on this network's gateway: route its restore there first.
    const moved: Device[] = [];
    for (const a of req.addrs) {
      const d = registry.find(a);
      if (d && d.network_id !== net.id) {
        d.network_id = net.id;
        moved.push(d);
      }
    }
    if (moved.length) store.changed(['DEVICES'], 'soon', moved);
    const lease = takeLease(gw, net, `rescuing nodes on ${describeRf(req.from)}`, 'rf_rescue');
    const face = lease.driver;
    let homeError: string | null = null;
    try {
      ctx.setMeta({ ...meta, stage: 'switch', index: 0 });
      const err = await tuneVolatile(face, req.from);
      if (err) throw new Error(`could not tune the gateway to ${describeRf(req.from)}: ${err}`);
      const pending = new Set<Addr>();
      for (const [i, a] of req.addrs.entries()) {
        ctx.checkpoint();
        ctx.setMeta({ ...meta, stage: 'bind', index: i + 1, addr: a });
        const r = await face.setGroup(a, groupOf(a), { priority: 'bulk', attempts: 3, signal: ctx.signal });
        if (!r.ok || !r.value.ok) {
          outcome.set(a, 'no_bind');
          continue;
        }
        ctx.bumpRx('rx_replies');
        pending.add(a);
      }
      for (let push = 1; push <= PUSHES && pending.size > 0; push++) {
        ctx.checkpoint();
        ctx.setMeta({ ...meta, stage: 'push', index: push, pending: pending.size });
        for (const a of pending) await face.send(a, { op: 'RF_CONFIG', rf: home }, { priority: 'bulk' });
        // A node that took it is rebooting: a STATUS on X goes unanswered (the proof).
        for (const a of [...pending]) {
          const st = await face.statusUnicast(a, groupOf(a), {
            priority: 'bulk',
            attempts: 2,
            signal: ctx.signal,
          });
          if (!st.ok) pending.delete(a);
        }
      }
      for (const a of pending) outcome.set(a, 'not_moved');
    } finally {
      ctx.setMeta({ ...meta, stage: 'restore' });
      homeError = await goHome(face, home, log);
      lease.release();
    }
    // Follow the nodes home: their boot announcement (≈ 5 s after the push) restores the
    // group at once; a node whose announcement was lost goes to the recovery sweep then
    // (earlier, its SET_GROUP tries in the dark would hold up that immediate restore).
    const travelling = req.addrs.filter((a) => !outcome.has(a));
    const arrived = new Map<Addr, number>();
    const sweepAt = clock.now() + SWEEP_AFTER_MS;
    let swept = false;
    const deadline = clock.now() + HOME_WAIT_MS;
    // Until the sweep takes over, each travelling node is asked for its group once per
    // reply window: it takes SET_GROUP from any sender as soon as its radio is up on the
    // home channel, which is before its boot announcement (+1 s, then +3 s when that one
    // was lost) — so it is back at the first window after its reboot.
    const probing = new Set<Addr>();
    // The pipelines' reply window (SF7 value, the driver stretches it for slower RF): the
    // driver's 1.5 s would let a node that came up meanwhile wait out the rest of it. (The
    // reply's bare quiet time, ≈ 0.56 s, measured worse: 5.3 s median, 7.0 s p95.)
    const probeWindowMs = PIPELINE_ATTEMPT_TIMEOUT_MS;
    const probe = (a: Addr): void => {
      probing.add(a);
      void gw
        .setGroup(a, groupOf(a), {
          priority: 'bulk',
          attempts: 1,
          timeoutMs: probeWindowMs,
          signal: ctx.signal,
        })
        .catch(() => undefined)
        .finally(() => probing.delete(a));
    };
    while (arrived.size < travelling.length && clock.now() < deadline) {
      ctx.setMeta({ ...meta, stage: 'home', index: arrived.size, total: travelling.length });
      for (const a of travelling) {
        const d = registry.find(a);
        if (arrived.has(a) || !d) continue;
        const back =
          registry.linkState(d) === 'online' && !d.group_pending && d.last_seen_ts * 1000 >= started;
        if (back) arrived.set(a, clock.now());
        else if (!swept && !probing.has(a)) probe(a);
      }
      if (arrived.size === travelling.length) break;
      if (!swept && clock.now() >= sweepAt) {
        swept = true;
        recovery.add(
          travelling.filter((a) => !arrived.has(a) && groupOf(a) !== 0),
          'manual',
          { settle: false },
        );
      }
      await pause(clock, 100, ctx.signal);
      ctx.checkpoint();
    }
    for (const a of travelling) outcome.set(a, arrived.has(a) ? 'home' : 'moved_not_heard');
    recordSeen(
      deps,
      [...arrived.keys()].map((addr) => ({ addr, seen: rfSeen(home, clock, 'rescue') })),
    );
    const result: RescueResult = {
      network_id: net.id,
      network_name: net.name,
      from: { rf: req.from, channel: describeRf(req.from) },
      to: { rf: home, channel: describeRf(home) },
      returned_home: homeError === null,
      nodes: req.addrs.map((a) => {
        const t = arrived.get(a);
        return {
          addr: a,
          name: registry.find(a)?.name ?? null,
          group: groupOf(a),
          outcome: outcome.get(a) ?? 'moved_not_heard',
          seconds: t === undefined ? null : Math.round((t - started) / 100) / 10,
        };
      }),
    };
    if (homeError) throw new Error(homeError);
    return result;
  });
}
