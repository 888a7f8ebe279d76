/**
 * The RF moves capability (issue 27): channel scan, rescue, RF migration and pinned nodes,
 * each network's gateway leased while it is off its channel (gateway/lease.ts). A network
 * whose migration was under way when the host stopped (crash, power cut) resumes at start,
 * once its gateway is ready, knowing both channels.
 */
import type { Addr } from '../../protocol/types.ts';
import type { TaskSnapshot } from '../../tasks/task-manager.ts';
import type { RfMovesDeps } from './common.ts';
import { startMigration, type MigrateRequest } from './migration/migration.ts';
import { pinned, unpin, type PinnedRow, type UnpinResult } from './pinned.ts';
import { startRescue, type RescueRequest } from './rescue.ts';
import { startScan, type ScanRequest } from './scan.ts';

export type { RfMovesDeps } from './common.ts';
export type { MigrateRequest, MigrationResult } from './migration/migration.ts';
export type { PinnedRow, UnpinResult } from './pinned.ts';
export type { RescueRequest, RescueResult } from './rescue.ts';
export type { ScanRequest, ScanResult } from './scan.ts';

export interface RfMovesService {
  scan(req: ScanRequest): TaskSnapshot;
  rescue(req: RescueRequest): TaskSnapshot;
  migrate(req: MigrateRequest): TaskSnapshot;
  pinned(networkId: number): PinnedRow[];
  unpin(networkId: number, addrs?: Addr[]): Promise<UnpinResult>;
  /** Resumes interrupted migrations once their gateway is ready; call after the state is loaded. */
  attach(): () => void;
}

/** How often a pending resume looks again (the task slot may be busy, the gateway not ready). */
const RESUME_RETRY_MS = 1000;

export function createRfMoves(deps: RfMovesDeps): RfMovesService {
  return {
    scan: (req) => startScan(deps, req),
    rescue: (req) => startRescue(deps, req),
    migrate: (req) => startMigration(deps, req),
    pinned: (id) => pinned(deps, id),
    unpin: (id, addrs) => unpin(deps, id, addrs),
    attach() {
      const { store, clock, log, tasks } = deps;
      // Only what was interrupted before this start: a cancelled one waits for the operator.
      const pending = new Set(store.state.networks.filter((n) => n.migration).map((n) => n.id));
      let timer: { cancel(): void } | null = null;
      const tick = (): void => {
        timer = null;
        for (const id of [...pending]) {
          const n = store.state.networks.find((x) => x.id === id);
          if (!n?.migration) {
            pending.delete(id);
            continue;
          }
          const g = deps.gatewayOf(id);
          if (!g || !g.readiness().ready || tasks.isRunning()) continue;
          try {
            startMigration(deps, { networkId: id, to: n.migration.to, offline: 'skip' }, true);
            log.warn({ network: id, name: n.name }, 'resuming the RF migration interrupted by the last stop');
          } catch (err) {
            log.warn({ network: id, err: (err as Error).message }, 'could not resume the RF migration');
          }
          pending.delete(id);
        }
        if (pending.size > 0) timer = clock.setTimeout(tick, RESUME_RETRY_MS);
      };
      if (pending.size > 0) timer = clock.setTimeout(tick, 0);
      return () => timer?.cancel();
    },
  };
}
