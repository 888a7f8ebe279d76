/** Race day: POST /blackout — everything off, whatever is running. */
import type { FastifyInstance } from 'fastify';
import { UnavailableError } from '../../errors.ts';
import type { AppServices } from '../../services/index.ts';

export const raceRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  api.post('/blackout', async () => {
    // Blackout outranks every source: their holds go, whatever the radio then manages.
    svc.commandPath.blackout();
    // A red flag stays up over a Blackout: its hold is taken again.
    svc.flags.afterBlackout();
    const report = await svc.blackout.blackout();
    // Not one off frame on air is not "done": the operator must see it failed.
    if (report.sent === 0) {
      throw new UnavailableError(`blackout not sent: ${report.errors[0] ?? 'gateway unavailable'}`, {
        ...report,
      });
    }
    return { ok: true, ...report };
  });
};
