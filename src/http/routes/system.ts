/** Health, master/task/gateway snapshots, gateway retry and state query. */
import type { FastifyInstance } from 'fastify';
import { UnavailableError } from '../../errors.ts';
import type { AppServices } from '../../services/index.ts';

/**
 * Health is unauthenticated: the load warning says what happened to the state file but
 * not the parser's message, which quotes the file's content (the log keeps it).
 */
export const withoutParserDetail = (w: string): string =>
  w.replace(/ \(.*\)(?=; )/s, ' (details in the log)');

export const systemRoutes = (svc: AppServices, host: { auth: boolean }) => async (api: FastifyInstance) => {
  api.get('/health', async () => {
    const warnings: string[] = [];
    if (svc.store.alarm) warnings.push(withoutParserDetail(svc.store.alarm));
    if (svc.store.loadWarning) warnings.push(withoutParserDetail(svc.store.loadWarning));
    if (svc.store.writeError) warnings.push(svc.store.writeError);
    const gw = svc.driver.readiness();
    if (gw.transport === 'sim') warnings.push('gateway: running on the simulated fleet (no hardware)');
    const leftovers = svc.dataFolder.simulatedLeftovers.length;
    if (leftovers > 0) warnings.push(`data: ${leftovers} simulated device(s) saved here by an older version`);
    warnings.push(...svc.networks.warnings());
    return {
      ok: true,
      ts: svc.clock.now() / 1000,
      phase: svc.phase(),
      warnings,
      // Extra fields: the persistence failure now (clears when writes work again) and the
      // "started empty" alarm that stays until acknowledged.
      persistence: { error: svc.store.writeError, alarm: svc.store.alarm },
      // Extra field: a password is set (the UI offers "Log out").
      auth: host.auth,
      // Extra field: which data folder this host keeps its state in, and whether it is
      // the simulator's own (simulated devices never land in the real one).
      data: {
        dir: svc.dataFolder.dir,
        simulated: svc.dataFolder.simulated,
        real_dir: svc.dataFolder.realDir,
        simulated_leftovers: svc.dataFolder.simulatedLeftovers,
        // On the simulator: what the real data folder holds (counts), which it does not show.
        real: svc.dataFolder.real,
      },
    };
  });

  // The operator has seen the "started empty" alarm: clear it (and its file).
  api.post('/health/acknowledge', async () => {
    await svc.store.acknowledgeAlarm();
    return { ok: true };
  });

  api.get('/master', async () => ({
    ok: true,
    master: svc.master.snapshot(),
    task: svc.tasks.current(),
    gateway: svc.master.gateway(),
  }));

  api.get('/task', async () => ({ ok: true, task: svc.tasks.current() }));

  api.post('/task/cancel', async () => {
    const task = svc.tasks.cancel();
    return { ok: true, cancelled: task !== null, task: task ?? svc.tasks.current() };
  });

  // Driver statistics ride along: frames sent/rejected/timed out, replies, airtime used.
  api.get('/gateway', async () => ({
    ok: true,
    gateway: svc.master.gateway(),
  }));

  api.post('/gateway/retry', async () => {
    svc.log.info({}, 'manual gateway retry');
    await svc.driver.retry();
    const gateway = svc.master.gateway();
    return { ok: gateway.ready, gateway };
  });

  api.post('/gateway/query-state', async () => {
    if (!svc.driver.readiness().ready) {
      throw new UnavailableError('gateway_service unavailable', {
        state: 'UNKNOWN',
        state_byte: 255,
        state_metadata_ms: 0,
        detail: svc.driver.readiness().last_error,
      });
    }
    const r = await svc.driver.queryState();
    return { ok: r.ok, state: r.state, state_byte: r.state_byte, state_metadata_ms: r.state_metadata_ms };
  });
};
