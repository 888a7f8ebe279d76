/**
 * The Networks dialog's actions against the host (net-manage and rf-moves routes): the
 * channel table, create/rename/delete, assign a gateway, resolve a conflict, pinned nodes,
 * and the RF tasks (migrate, channel scan, rescue). Every failure is an ApiError carrying
 * the host's own words, which the dialogs show as they are.
 */
import { del, get, post, request } from '../api.ts';
import type { Task } from '../types.ts';
import { loadNetworks } from './networks-store.ts';
import type { RfConfig } from './network-types.ts';

export type Region = 'EU868' | 'US915';
export const REGIONS: Region[] = ['EU868', 'US915'];

export interface ChannelRow {
  id: number;
  name: string;
  freq_hz: number;
  rf: RfConfig;
  note: string;
  occupied_by: { id: number; name: string } | null;
}

export interface ChannelTable {
  regions: Record<Region, ChannelRow[]>;
  rule: { min_separation_hz: number; guard_hz: number; text?: string };
}

export interface PinnedRow {
  addr: string;
  name: string;
  online?: boolean;
  stale?: boolean;
}

export interface UnpinResult {
  unpinned: string[];
  failed: { addr: string; error: string }[];
  pinned_left: PinnedRow[];
}

export const loadChannels = (): Promise<ChannelTable> => get<ChannelTable>('channels');

/** Runs a state change, then reloads the list so the dialog shows the host's new truth. */
async function thenReload<T>(p: Promise<T>): Promise<T> {
  const r = await p;
  await loadNetworks().catch(() => undefined);
  return r;
}

export const createNetwork = (body: { name: string; region: Region; channel_id: number }) =>
  thenReload(post<{ network: { id: number; name: string } }>('networks', body));
export const renameNetwork = (id: number, name: string) =>
  thenReload(request('PATCH', `networks/${id}`, { name }));
export const deleteNetwork = (id: number) => thenReload(del(`networks/${id}`));

export const assignGateway = (
  mac: string,
  body: { network_id: number } | { new_network: { name: string } },
) =>
  thenReload(
    post<{ network: { id: number; name: string }; pinned: string[] }>(
      `gateways/${encodeURIComponent(mac)}/assign`,
      body,
    ),
  );

export const releaseGateway = (mac: string) =>
  thenReload(
    post<{ network: { id: number; name: string } | null }>(`gateways/${encodeURIComponent(mac)}/release`),
  );

export const rescanGateways = () =>
  thenReload(
    post<{ attached: { mac: string; port: string }[]; tried: { path: string; result: string }[] }>(
      'gateways/rescan',
    ),
  );

export const retuneGateway = (id: number) => thenReload(post(`networks/${id}/retune-gateway`));
export const adoptGatewayRf = (id: number) =>
  thenReload(
    post<{ warning: string | null; stranded: number }>(`networks/${id}/adopt-gateway-rf`, { confirm: true }),
  );

export const loadPinned = async (id: number): Promise<PinnedRow[]> =>
  (await get<{ pinned: PinnedRow[] }>(`networks/${id}/pinned`)).pinned;
export const unpinNodes = (id: number, addrs?: string[]) =>
  post<UnpinResult>(`networks/${id}/unpin`, addrs ? { addrs } : {});

/** A channel as the RF routes take it: from the table, or custom settings. */
export type ChannelPick = { region: Region; channel_id: number } | { rf: RfConfig };

export const startMigration = (id: number, to: ChannelPick, offline: 'skip' | 'abort') =>
  post<{ task: Task }>(`networks/${id}/migrate`, { ...to, offline });

export const startScan = (
  id: number,
  body: { region?: Region; channel_ids?: number[]; include_home?: boolean; seek?: string[] },
) => post<{ task: Task }>(`networks/${id}/channel-scan`, body);

export const startRescue = (addrs: string[], networkId: number, from: ChannelPick) =>
  post<{ task: Task }>('devices/rescue', { addrs, network_id: networkId, from });

export const cancelTask = () => post('task/cancel');

/** The error text exactly as the host worded it. */
export const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));
