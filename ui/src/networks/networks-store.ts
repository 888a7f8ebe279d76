/**
 * The networks model (`GET /api/networks`): every network with its gateway, state, radio
 * settings and counts, plus the gateways that belong to no network. Kept fresh by the live
 * stream (live.ts): a `networks` event or refresh token when the host sends them, else a
 * gateway snapshot or master snapshot naming other networks or gateways, every trigger
 * coalesced into at most one reload per RELOAD_MS. The device counts follow the live
 * device list instead of a reload per `devices` token.
 */
import { computed, signal } from '@preact/signals';
import { get } from '../api.ts';
import { devices } from '../store.ts';
import { toastReloadError } from '../toasts.ts';
import type { Gateway, Master } from '../types.ts';
import type { NetworkInfo, NetworksAnswer, UnassignedGatewayInfo } from './network-types.ts';

/** The list as the host last sent it. */
const listed = signal<NetworkInfo[]>([]);
/**
 * Per network: its devices and how many are online, from the live device list (which the
 * `devices` token keeps fresh) — so the counts need no reload of the networks list.
 */
const counted = computed(() => {
  const m = new Map<number, { total: number; online: number }>();
  for (const d of devices.value) {
    if (d.network_id === undefined) continue;
    let c = m.get(d.network_id);
    if (!c) m.set(d.network_id, (c = { total: 0, online: 0 }));
    c.total++;
    if (d.online) c.online++;
  }
  return m;
});
/** The networks with their live device counts (the host's until the devices are loaded). */
export const networks = computed<NetworkInfo[]>(() => {
  const list = listed.value;
  if (devices.value.length === 0) return list;
  const m = counted.value;
  return list.map((n) => {
    const c = m.get(n.id) ?? { total: 0, online: 0 };
    return c.total === n.device_count && c.online === n.online_count
      ? n
      : { ...n, device_count: c.total, online_count: c.online };
  });
});
export const unassignedGateways = signal<UnassignedGatewayInfo[]>([]);
/** Two networks or more: the UI shows per-network pills, columns, filters and chips. */
export const multiNetwork = computed(() => networks.value.length >= 2);
export const networksById = computed(() => new Map(networks.value.map((n) => [n.id, n])));

/** Applies a list (the route's answer or a `networks` event). */
function applyNetworks(a: Partial<NetworksAnswer>): void {
  if (Array.isArray(a.networks)) listed.value = a.networks;
  if (Array.isArray(a.unassigned)) unassignedGateways.value = a.unassigned;
}

/** `networks` events applied so far. */
let events = 0;
/** A `networks` event from the live stream: the host's list as of now. */
export function applyNetworksEvent(a: Partial<NetworksAnswer>): void {
  events++;
  applyNetworks(a);
}

let asked = 0;
let applied = 0;
/**
 * Answers applied in the order they were asked for (a late old one never wins), and never
 * over an event that came while the request was out: the stream and the request travel
 * apart, so an answer the host made before the event can land after it (the page's first
 * load, its on-connect reload, a reload a token or gateway snapshot asked for — all in
 * flight at once as a page opens). The event is at least as new: anything that changed
 * after it brings another event or token, and so a later request.
 */
export async function loadNetworks(): Promise<void> {
  const n = ++asked;
  const seen = events;
  const r = await get<NetworksAnswer>('networks');
  if (n < applied || seen !== events) return;
  applied = n;
  applyNetworks(r);
}

const RELOAD_MS = 400;
let timer: ReturnType<typeof setTimeout> | null = null;
let inFlight = false;
let again = false;

/** A reload at most every RELOAD_MS however many triggers arrive. */
export function scheduleNetworks(): void {
  if (timer) return;
  timer = setTimeout(async () => {
    timer = null;
    if (inFlight) {
      again = true;
      return;
    }
    inFlight = true;
    try {
      await loadNetworks();
    } catch (err) {
      toastReloadError('Loading networks failed', err);
    } finally {
      inFlight = false;
      if (again) {
        again = false;
        scheduleNetworks();
      }
    }
  }, RELOAD_MS);
}

/**
 * A master snapshot arrives up to 10 times a second; it only asks for a reload when the
 * networks it names (id and name) are not the ones the list has (a gateway bound, a rename).
 */
export function noteMaster(m: Master): void {
  const parts = m.networks;
  if (!parts) return;
  const known = listed.value;
  const same =
    parts.length === known.length &&
    parts.every((p) => known.some((n) => n.id === p.network_id && n.name === p.network));
  if (!same) scheduleNetworks();
}

/**
 * A gateway readiness snapshot: the pills and banners read each gateway's readiness from it
 * directly, so the list reloads only when the gateways it names (network, MAC) change — a
 * gateway bound or released — not on every connect and disconnect (a host shutting down
 * would be asked once more).
 */
export function noteGateway(prev: Gateway | null, next: Gateway): void {
  const sig = (g: Gateway | null): string =>
    (g?.gateways ?? []).map((x) => `${x.network_id}:${x.gateway_mac ?? ''}`).join(',');
  if (sig(prev) !== sig(next)) scheduleNetworks();
}

/** Whether the Networks dialog is open (the pills, banners and Settings open it). */
export const networksDialogOpen = signal(false);
export const openNetworks = (): void => {
  networksDialogOpen.value = true;
};
/** The gateway whose Assign form the dialog opens with (its pill's or banner's Assign…). */
export const assignFocus = signal<string | null>(null);
export const openAssign = (mac: string): void => {
  assignFocus.value = mac;
  networksDialogOpen.value = true;
};
