/**
 * The networks model (`GET /api/networks`): every network with its gateway, state, radio
 * settings and counts, plus the gateways that belong to no network. Kept fresh by the live
 * stream (live.ts): a `networks` event or refresh token when the host sends them, else a
 * gateway readiness change, a master snapshot naming other networks, or a `devices` token
 * (the counts), every trigger coalesced into at most one reload per RELOAD_MS.
 */
import { computed, signal } from '@preact/signals';
import { get } from '../api.ts';
import { toastError } from '../toasts.ts';
import type { Master } from '../types.ts';
import type { NetworkInfo, NetworksAnswer, UnassignedGatewayInfo } from './network-types.ts';

export const networks = signal<NetworkInfo[]>([]);
export const unassignedGateways = signal<UnassignedGatewayInfo[]>([]);
/** Two networks or more: the UI shows per-network pills, columns, filters and chips. */
export const multiNetwork = computed(() => networks.value.length >= 2);
export const networksById = computed(() => new Map(networks.value.map((n) => [n.id, n])));

/** Applies a list (the route's answer or a `networks` event). */
export function applyNetworks(a: Partial<NetworksAnswer>): void {
  if (Array.isArray(a.networks)) networks.value = a.networks;
  if (Array.isArray(a.unassigned)) unassignedGateways.value = a.unassigned;
}

let asked = 0;
let applied = 0;
/** Answers applied in the order they were asked for (a late old one never wins). */
export async function loadNetworks(): Promise<void> {
  const n = ++asked;
  const r = await get<NetworksAnswer>('networks');
  if (n < applied) return;
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
      toastError('Loading networks failed', err);
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
  const known = networks.value;
  const same =
    parts.length === known.length &&
    parts.every((p) => known.some((n) => n.id === p.network_id && n.name === p.network));
  if (!same) scheduleNetworks();
}

/** Whether the Networks dialog is open (the pills, banners and Settings open it). */
export const networksDialogOpen = signal(false);
export const openNetworks = (): void => {
  networksDialogOpen.value = true;
};
