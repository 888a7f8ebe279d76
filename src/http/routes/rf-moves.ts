/**
 * RF moves (issue 27): channel scan, rescue, RF migration (tasks, 409 while another task
 * runs) and the pinned-node list and unpin. A channel is given as `{region, channel_id}`
 * from the firmware's table or as custom `{rf}` within the firmware's limits.
 */
import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import { RF_REGIONS, findChannel, invalidRfField, type RfRegion } from '../../domain/rf-channels.ts';
import { ValidationError } from '../../errors.ts';
import type { RfConfig } from '../../protocol/types.ts';
import type { AppServices } from '../../services/index.ts';
import { bodyObject, parseAddrList, parseBody, zInt, zMacList } from '../validation.ts';

const zRegion = z.enum(RF_REGIONS, { error: `must be one of ${RF_REGIONS.join(', ')}` });
const zRf = z.strictObject({
  freqHz: zInt(0, 2 ** 32 - 1),
  bwKhzX10: zInt(0, 65535),
  sf: zInt(0, 255),
  crDen: zInt(0, 255),
  syncWord: zInt(0, 255),
  txPowerDbm: zInt(-128, 127),
  preamble: zInt(0, 65535),
});

const channelFields = {
  region: zRegion.optional(),
  channel_id: zInt(1, 5).optional(),
  rf: zRf.optional(),
};

/** `{region, channel_id}` or `{rf}` → the settings; `field` names where it came from. */
function pickRf(b: { region?: RfRegion; channel_id?: number; rf?: RfConfig }, field: string): RfConfig {
  const p = field ? `${field}.` : '';
  if (b.rf && (b.region !== undefined || b.channel_id !== undefined))
    throw new ValidationError(`${p}rf: give either {region, channel_id} or {rf}, not both`);
  if (b.rf) {
    const bad = invalidRfField(b.rf);
    if (bad) throw new ValidationError(`${p}rf.${bad}: outside the firmware's limits`);
    return b.rf;
  }
  if (b.channel_id === undefined) throw new ValidationError(`${p}channel_id: is required (or give rf)`);
  const region = b.region ?? 'EU868';
  const c = findChannel(region, b.channel_id);
  if (!c) throw new ValidationError(`${p}channel_id: no channel ${b.channel_id} in ${region}`);
  return c.rf;
}

const idParam = z.object({ id: zInt(1, 1_000_000) });

const migrateSchema = z.strictObject({
  ...channelFields,
  offline: z.enum(['skip', 'abort'], { error: 'must be "skip" or "abort"' }).optional(),
});

const scanSchema = z.strictObject({
  region: zRegion.optional(),
  channel_ids: z.array(zInt(1, 5), { error: 'must be a list of channel ids 1..5' }).min(1).optional(),
  include_home: z.boolean({ error: 'must be a boolean' }).optional(),
  seek: zMacList.optional(),
  settle_ms: zInt(0, 5000).optional(),
});

const rescueSchema = z.strictObject({
  addrs: zMacList.min(1, 'give at least one device'),
  network_id: zInt(1, 1_000_000),
  from: z.strictObject(channelFields, { error: 'must be {region, channel_id} or {rf}' }),
});

const unpinSchema = z.strictObject({ addrs: zMacList.optional() });

export const rfMovesRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  const network = (params: unknown): number => parseBody(idParam, params).id;

  api.post('/networks/:id/migrate', async (req) => {
    const id = network(req.params);
    const b = parseBody(migrateSchema, bodyObject(req.body));
    const to = pickRf(b, '');
    return { ok: true, task: svc.rfMoves.migrate({ networkId: id, to, offline: b.offline ?? 'skip' }) };
  });

  api.post('/networks/:id/channel-scan', async (req) => {
    const id = network(req.params);
    const b = parseBody(scanSchema, bodyObject(req.body));
    return {
      ok: true,
      task: svc.rfMoves.scan({
        networkId: id,
        ...(b.region ? { region: b.region } : {}),
        ...(b.channel_ids ? { channelIds: b.channel_ids } : {}),
        ...(b.include_home !== undefined ? { includeHome: b.include_home } : {}),
        ...(b.seek ? { seek: parseAddrList(b.seek, 'seek') } : {}),
        ...(b.settle_ms !== undefined ? { settleMs: b.settle_ms } : {}),
      }),
    };
  });

  api.post('/devices/rescue', async (req) => {
    const b = parseBody(rescueSchema, bodyObject(req.body));
    const from = pickRf(b.from, 'from');
    const addrs = parseAddrList(b.addrs, 'addrs');
    return { ok: true, task: svc.rfMoves.rescue({ addrs, networkId: b.network_id, from }) };
  });

  api.get('/networks/:id/pinned', async (req) => {
    const id = network(req.params);
    return { ok: true, network_id: id, pinned: svc.rfMoves.pinned(id) };
  });

  api.post('/networks/:id/unpin', async (req) => {
    const id = network(req.params);
    const b = parseBody(unpinSchema, bodyObject(req.body));
    const addrs = b.addrs ? parseAddrList(b.addrs, 'addrs') : undefined;
    return { ok: true, ...(await svc.rfMoves.unpin(id, addrs)) };
  });
};
