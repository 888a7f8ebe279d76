/** Signal history per device, the fleet's link summary (weakest links) and the link test. */
import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import type { AppServices } from '../../services/index.ts';
import { DeviceRegistry } from '../../services/devices/index.ts';
import { LINK_TEST_MAX_COUNT } from '../../services/link-test/index.ts';
import { parseAddrList, parseBody, zInt, zMacList } from '../validation.ts';

const HistoryQuery = z.object({ since: zInt(0, Number.MAX_SAFE_INTEGER).optional() });
const LinksQuery = z.object({ window_s: zInt(60, 7 * 86400).optional() });
const LinkTestBody = z.object({
  macs: zMacList.min(1, 'give at least one device'),
  count: zInt(1, LINK_TEST_MAX_COUNT).optional(),
});

export const linkRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  api.get<{ Params: { mac: string } }>('/devices/:mac/history', async (req) => {
    const addr = DeviceRegistry.parseAddr(req.params.mac, 'mac');
    svc.registry.require(addr);
    const { since } = parseBody(HistoryQuery, req.query);
    return { ok: true, ...svc.history.history(addr, since ?? 0) };
  });

  api.get('/links', async (req) => {
    const windowS = parseBody(LinksQuery, req.query).window_s ?? 3 * 3600;
    const byAddr = new Map(svc.history.summary(windowS).map((s) => [s.addr, s]));
    const links = svc.registry.all().map((d) => {
      const s = byAddr.get(d.addr);
      return {
        addr: d.addr,
        name: d.name,
        groupId: d.groupId,
        online: d.online,
        host_rssi: d.host_rssi,
        host_snr: d.host_snr,
        node_rssi: d.node_rssi,
        node_snr: d.node_snr,
        samples: s?.samples ?? 0,
        replies: s?.replies ?? 0,
        failures: s?.failures ?? 0,
        worst: s?.worst ?? { host_rssi: null, host_snr: null, node_rssi: null, node_snr: null },
        online_ratio: s?.online_ratio ?? null,
      };
    });
    return { ok: true, window_s: windowS, links };
  });

  api.post('/link-test', async (req) => {
    const body = parseBody(LinkTestBody, req.body);
    const task = svc.linkTest.start({ macs: parseAddrList(body.macs, 'macs'), count: body.count });
    return { ok: true, task };
  });
};
