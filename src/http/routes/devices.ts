/**
 * Devices capability: the device list's tasks (discovery, status), rename/regroup, forget,
 * control, indicate, raw config; and groups (create, rename, delete with renumbering,
 * force re-sync). GET /devices and /groups are served by lists.ts from the list cache.
 */
import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import { ValidationError } from '../../errors.ts';
import { RAW_CONFIG_OPTIONS } from '../../protocol/config-options.ts';
import { DeviceRegistry } from '../../services/devices/index.ts';
import type { AppServices } from '../../services/index.ts';
import { bodyObject, parseAddrList, parseBody, zBool, zInt, zMacList } from '../validation.ts';
import { abortOnDisconnect } from '../client-gone.ts';
import { commandSource } from '../command-source.ts';
import type { TargetJson } from '../../services/command-path/index.ts';

const nullable = <T extends z.ZodType>(s: T) => s.nullish().transform((v) => v ?? undefined);

const discoverSchema = z.object({
  targetGroupId: nullable(zInt(0, 254)),
  newGroupName: nullable(z.string({ error: 'must be a string' })),
  discoveryGroup: nullable(
    z.union([z.literal('all').transform(() => 255), zInt(0, 255)], { error: 'must be 0..255 or "all"' }),
  ),
});

const statusSchema = z.object({
  selection: nullable(zMacList),
  macs: nullable(zMacList),
  groupId: nullable(zInt(0, 255)),
});

const updateMetaSchema = z.object({
  macs: zMacList.min(1, 'must not be empty'),
  groupId: nullable(zInt(0, 254)),
  name: nullable(z.string({ error: 'must be a string' })),
});

const forgetSchema = z.object({ macs: zMacList.min(1, 'must not be empty') });

const controlSchema = z.object({
  macs: nullable(zMacList.min(1, 'must not be empty')),
  groupId: nullable(zInt(0, 255)),
  flags: zInt(0, 255),
  presetId: zInt(0, 255),
  brightness: zInt(0, 255),
});

const indicateSchema = z.object({
  macs: zMacList.min(1, 'must not be empty'),
  indicator_type: nullable(zInt(0, 255)),
  // Any integer: the contract clamps to 0..255 rather than rejecting.
  duration_sec: nullable(zInt(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)),
});

const configSchema = z.object({
  mac: nullable(z.string({ error: 'must be a string' })),
  macs: nullable(zMacList),
  option: zInt(0, 255),
  data0: nullable(zInt(0, 255)),
  data1: nullable(zInt(0, 255)),
  data2: nullable(zInt(0, 255)),
  data3: nullable(zInt(0, 255)),
});

export const deviceRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  // GET /devices: routes/lists.ts (served from the serialised list cache).

  api.post('/discover', async (req) => {
    const b = parseBody(discoverSchema, bodyObject(req.body));
    return { ok: true, task: svc.discovery.start(b) };
  });

  api.post('/status', async (req) => {
    const b = parseBody(statusSchema, bodyObject(req.body));
    // An empty list counts as absent (as in the original): poll everybody.
    const list = b.selection?.length ? b.selection : b.macs?.length ? b.macs : undefined;
    const field = b.selection?.length ? 'selection' : 'macs';
    const selection = list !== undefined ? parseAddrList(list, field) : undefined;
    return { ok: true, task: svc.status.start({ selection, groupId: b.groupId }) };
  });

  api.post('/devices/update-meta', async (req) => {
    const b = parseBody(updateMetaSchema, bodyObject(req.body));
    const macs = parseAddrList(b.macs, 'macs');
    if (b.groupId !== undefined)
      return { ok: true, task: svc.deviceMeta.startGroupChange(macs, b.groupId, b.name) };
    if (b.name === undefined) throw new ValidationError('name or groupId: give at least one of them');
    const [only] = macs;
    if (macs.length !== 1 || !only) throw new ValidationError('macs: a rename takes exactly one device');
    return { ok: true, ...svc.deviceMeta.rename(only, b.name) };
  });

  // On disk before the answer (the Store commit is awaited); 404 naming an unknown address.
  api.post('/devices/forget', async (req) => {
    const b = parseBody(forgetSchema, bodyObject(req.body));
    return { ok: true, ...(await svc.deviceForget.forget(parseAddrList(b.macs, 'macs'))) };
  });

  api.post('/devices/control', async (req, reply) => {
    const b = parseBody(controlSchema, bodyObject(req.body));
    if ((b.macs === undefined) === (b.groupId === undefined)) {
      throw new ValidationError('macs or groupId: give exactly one of them');
    }
    const macs = b.macs !== undefined ? parseAddrList(b.macs, 'macs') : null;
    const groupId = b.groupId ?? 255;
    const target = macs ? { macs } : { groupId };
    // Decided by the command path first: refused (409/429/403) before a frame goes out.
    const targets: TargetJson[] = macs
      ? macs.map((addr) => ({ kind: 'device', addr }))
      : [groupId === 255 ? { kind: 'all' } : { kind: 'group', id: groupId }];
    const source = commandSource(req, svc.commandPath);
    const r = await svc.commandPath.run({ source, targets, action: 'control' }, () =>
      svc.control.control(
        { target, flags: b.flags, presetId: b.presetId, brightness: b.brightness },
        { signal: abortOnDisconnect(reply) },
      ),
    );
    return { ok: true, changed: r.sent, ...(Object.keys(r.errors).length ? { errors: r.errors } : {}) };
  });

  api.post('/devices/indicate', async (req, reply) => {
    const b = parseBody(indicateSchema, bodyObject(req.body));
    const macs = parseAddrList(b.macs, 'macs');
    const duration = Math.min(255, Math.max(0, b.duration_sec ?? 5));
    const r = await svc.control.indicate(macs, b.indicator_type ?? 4, duration, {
      signal: abortOnDisconnect(reply),
    });
    return { ok: true, count: r.sent, ...(Object.keys(r.errors).length ? { errors: r.errors } : {}) };
  });

  api.post('/config', async (req) => {
    const b = parseBody(configSchema, bodyObject(req.body));
    const list = b.macs ?? (b.mac !== undefined ? [b.mac] : []);
    if (list.length !== 1) throw new ValidationError('mac: select exactly one device');
    const addr = DeviceRegistry.parseAddr(list[0], b.macs ? 'macs[0]' : 'mac');
    if (!RAW_CONFIG_OPTIONS.includes(b.option)) {
      throw new ValidationError(
        `option: must be one of ${RAW_CONFIG_OPTIONS.map((o) => '0x' + o.toString(16).padStart(2, '0')).join(', ')}`,
      );
    }
    const data: [number, number, number, number] = [b.data0 ?? 0, b.data1 ?? 0, b.data2 ?? 0, b.data3 ?? 0];
    const r = await svc.control.rawConfig(addr, b.option, data);
    return {
      ok: true,
      sent: r.sent,
      recv3: addr,
      option: b.option,
      data0: data[0],
      data1: data[1],
      data2: data[2],
      data3: data[3],
      ...(r.sent === 0 ? { errors: r.errors } : {}),
    };
  });
};

const createSchema = z.object({
  name: z.string({ error: 'must be a string' }),
  dev_type: zInt(0, 255).optional(),
  device_type: zInt(0, 255).optional(),
});
const idSchema = z.object({ id: zInt(0, 1_000_000) });
const renameSchema = z.object({ id: zInt(0, 1_000_000), name: z.string({ error: 'must be a string' }) });
const forceSchema = z.object({ skipOffline: zBool.optional() });

export const groupRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  // GET /groups: routes/lists.ts (served from the serialised list cache).

  api.post('/groups/create', async (req) => {
    const b = parseBody(createSchema, bodyObject(req.body));
    const id = svc.groups.create(b.name, b.dev_type ?? b.device_type ?? 0);
    return { ok: true, id };
  });

  api.post('/groups/rename', async (req) => {
    const b = parseBody(renameSchema, bodyObject(req.body));
    svc.groups.rename(b.id, b.name);
    return { ok: true };
  });

  api.post('/groups/delete', async (req) => {
    const b = parseBody(idSchema, bodyObject(req.body));
    svc.tasks.assertIdle();
    const { changed, ...counts } = svc.groups.delete(b.id);
    svc.log.info({ id: b.id, ...counts }, 'group deleted');
    // The nodes still carry their old ids: push the renumbered groups right away.
    const task = svc.deviceMeta.startRenumberPush(changed);
    return { ok: true, ...counts, task };
  });

  api.post('/groups/force', async (req) => {
    const b = parseBody(forceSchema, bodyObject(req.body));
    return { ok: true, task: svc.deviceMeta.startForce(b.skipOffline ?? false) };
  });
};
