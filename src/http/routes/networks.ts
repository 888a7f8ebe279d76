/**
 * Networks, gateways and the channel plan (not in the contract): list, create, rename and
 * delete networks; list gateways with their bind state; assign, release, rescan; resolve
 * an RF conflict (retune the gateway, adopt its settings); the region channel table. Thin:
 * bodies are validated here, the networks service does the work (services/networks/).
 */
import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import { RF_REGIONS } from '../../domain/rf-channels.ts';
import { ValidationError } from '../../errors.ts';
import type { AppServices } from '../../services/index.ts';
import { bodyObject, parseBody, zInt } from '../validation.ts';

const zName = z.string({ error: 'must be a string of 1–48 characters' });
const zRegion = z.enum(RF_REGIONS, { error: `must be one of ${RF_REGIONS.join(', ')}` });
const zRf = z.strictObject({
  freqHz: zInt(100_000_000, 1_100_000_000),
  bwKhzX10: zInt(0, 65_535),
  sf: zInt(0, 255),
  crDen: zInt(0, 255),
  syncWord: zInt(0, 255),
  txPowerDbm: zInt(-128, 127),
  preamble: zInt(0, 65_535),
});

const createSchema = z.strictObject({
  name: zName,
  region: zRegion.optional(),
  channel_id: zInt(1, 5).optional(),
  rf: zRf.optional(),
});
const renameSchema = z.strictObject({ name: zName });
const assignSchema = z.union(
  [
    z.strictObject({ network_id: zInt(1, 1_000_000) }),
    z.strictObject({ new_network: z.strictObject({ name: zName }) }),
  ],
  { error: "must be {network_id} (replace that network's gateway) or {new_network: {name}}" },
);
const ADOPT_WARNING =
  "confirm: must be true: adopting the gateway's radio settings strands every node still on the network's recorded channel";
const adoptSchema = z.strictObject({ confirm: z.literal(true, { error: ADOPT_WARNING.slice(9) }) });

const networkId = (raw: unknown): number => {
  const id = typeof raw === 'string' && /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(id) || id < 1)
    throw new ValidationError(`id: must be a network id ≥ 1, got ${JSON.stringify(raw)}`);
  return id;
};

export const networksRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  const net = svc.networks;
  api.get('/networks', async () => ({ ok: true, ...net.list() }));
  api.post('/networks', async (req) => {
    const body = parseBody(createSchema, bodyObject(req.body));
    return { ok: true, network: await net.create(body) };
  });
  api.patch<{ Params: { id: string } }>('/networks/:id', async (req) => {
    const id = networkId(req.params.id);
    const { name } = parseBody(renameSchema, bodyObject(req.body));
    return { ok: true, network: await net.rename(id, name) };
  });
  api.delete<{ Params: { id: string } }>('/networks/:id', async (req) => {
    await net.remove(networkId(req.params.id));
    return { ok: true };
  });
  api.post<{ Params: { id: string } }>('/networks/:id/retune-gateway', async (req) => {
    const id = networkId(req.params.id);
    return { ok: true, ...(await net.retune(id)) };
  });
  api.post<{ Params: { id: string } }>('/networks/:id/adopt-gateway-rf', async (req) => {
    const id = networkId(req.params.id);
    const body = bodyObject(req.body);
    // Named whatever was sent (missing too): the warning is the point of the confirmation.
    if (body.confirm !== true) throw new ValidationError(ADOPT_WARNING);
    parseBody(adoptSchema, body);
    const r = await net.adopt(id);
    return {
      ok: true,
      ...r,
      warning:
        r.stranded > 0
          ? `${r.stranded} device(s) of ${r.network.name} that are still on the old channel cannot be reached: run a channel scan and rescue them`
          : null,
    };
  });
  api.get('/gateways', async () => ({ ok: true, gateways: net.gateways() }));
  api.post<{ Params: { mac: string } }>('/gateways/:mac/assign', async (req) => {
    const body = parseBody(assignSchema, bodyObject(req.body));
    return { ok: true, ...(await net.assign(req.params.mac, body)) };
  });
  api.post<{ Params: { mac: string } }>('/gateways/:mac/release', async (req) => ({
    ok: true,
    ...(await net.release(req.params.mac)),
  }));
  api.post('/gateways/rescan', async () => {
    const r = await svc.gatewayScan.rescan();
    const missing = net
      .gateways()
      .filter((g) => g.bind_state === 'missing')
      .map((g) => ({ mac: g.mac, network_id: g.network_id, network_name: g.network_name }));
    return { ok: true, ...r, missing, unassigned: net.list().unassigned };
  });
  api.get('/channels', async () => ({ ok: true, ...net.channels() }));
};
