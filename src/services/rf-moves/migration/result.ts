/** The outcome of an `rf_migration` task, as its result reports it (seconds per phase, who was left behind). */
import type { Clock } from '../../../clock.ts';
import { describeRf } from '../../../domain/rf-channels.ts';
import type { Addr, RfConfig } from '../../../protocol/types.ts';

export interface MigrationResult {
  network_id: number;
  network_name: string;
  from: { rf: RfConfig; channel: string };
  to: { rf: RfConfig; channel: string };
  resumed: boolean;
  seconds: number;
  /** Start → the last node back in its group (the move itself; the rest is looking for stragglers). */
  last_back_s: number | null;
  /** `record`: making the migration record durable before anything goes on air. */
  phases_s: {
    record: number;
    prepare: number;
    push: number;
    verify: number;
    gateway: number;
    rebind: number;
  };
  summary: {
    devices: number;
    pushed: number;
    repushed: number;
    not_moved: number;
    skipped_offline: number;
    rebound: number;
    stranded: number;
  };
  /** Still answering on the old channel after 3 pushes (they stay there: rescue them). */
  not_moved: Addr[];
  skipped_offline: Addr[];
  /** Moved (or believed moved) but not back online on the new channel: scan for them. */
  stranded: Addr[];
  hint: string | null;
}

/** Milliseconds per phase (the record phase is passed on its own). */
export interface MigrationPhasesMs {
  prepare: number;
  push: number;
  verify: number;
  gateway: number;
  rebind: number;
}

export function buildResult(o: {
  net: { id: number; name: string };
  from: RfConfig;
  to: RfConfig;
  resumed: boolean;
  clock: Clock;
  t0: number;
  lastBackAt: number;
  recordMs: number;
  phase: MigrationPhasesMs;
  devices: number;
  pushed: number;
  repushed: number;
  back: ReadonlySet<Addr>;
  notMoved: Addr[];
  skipped: Addr[];
  stranded: Addr[];
}): MigrationResult {
  const {
    net,
    from,
    to,
    resumed,
    clock,
    t0,
    lastBackAt,
    recordMs,
    phase,
    repushed,
    back,
    notMoved,
    skipped,
    stranded,
  } = o;
  const sec = (ms: number): number => Math.round(ms / 100) / 10;
  return {
    network_id: net.id,
    network_name: net.name,
    from: { rf: from, channel: describeRf(from) },
    to: { rf: to, channel: describeRf(to) },
    resumed,
    seconds: sec(clock.now() - t0),
    last_back_s: back.size > 0 ? sec(lastBackAt - t0) : null,
    phases_s: {
      record: sec(recordMs),
      prepare: sec(phase.prepare),
      push: sec(phase.push),
      verify: sec(phase.verify),
      gateway: sec(phase.gateway),
      rebind: sec(phase.rebind),
    },
    summary: {
      devices: o.devices,
      pushed: o.pushed,
      repushed,
      not_moved: notMoved.length,
      skipped_offline: skipped.length,
      rebound: back.size,
      stranded: stranded.length,
    },
    not_moved: notMoved,
    skipped_offline: skipped,
    stranded,
    hint:
      notMoved.length + skipped.length + stranded.length === 0
        ? null
        : `nodes left behind: scan ${describeRf(from)} (old channel) and ${describeRf(to)} (new channel) and rescue them`,
  };
}
