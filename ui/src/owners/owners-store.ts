/**
 * Who holds which target (the host's command path): loaded once, then kept current by the
 * stream's `owners` event (live holds lapse on the host, which tells us). Take over and hand
 * back answer with the new state on the stream too; their own answer is only for errors.
 */
import { signal } from '@preact/signals';
import { get, post, request } from '../api.ts';
import { reloadDevicesNow } from '../store.ts';

export type OwnerTarget = { kind: 'all' } | { kind: 'group'; id: number } | { kind: 'device'; addr: string };

export interface Holder {
  target: OwnerTarget;
  target_label: string;
  source: string;
  source_label: string;
  source_class: string;
  priority: number;
  mode: 'live' | 'run' | 'until-release';
  since_epoch_ms: number;
  timeout_left_ms: number | null;
  action: string;
}

export interface CommandSource {
  id: string;
  label: string;
  source_class: string;
  external: boolean;
  enabled: boolean;
  priority: number;
  priority_override: number | null;
  counts: { accepted: number; refused: number; rate_limited: number; disabled: number };
}

export interface OwnersView {
  owners: Holder[];
  sources: CommandSource[];
  take_over_priority: number;
  live_timeout_ms: number;
}

export const owners = signal<OwnersView | null>(null);
/** When the view arrived (a live hold's countdown runs from here). */
export const ownersAt = signal(0);

function applyOwners(v: OwnersView): void {
  owners.value = v;
  ownersAt.value = Date.now();
}

/** Counts the stream's `owners` events: a read sent before the latest one may be older than it. */
let streamSeen = 0;

/** The stream's `owners` event: always the newest state (the stream is ordered). */
export function applyOwnersEvent(v: OwnersView): void {
  streamSeen++;
  applyOwners(v);
}

/**
 * Reads the holders. The read travels on its own connection, so its answer can arrive after
 * a stream event that is newer than it (hand back, then a desk's live command at once: the
 * read said "nobody" and wiped the desk's chip). A change that came on the stream while the
 * read was out wins; every later change comes on the stream too, so nothing is lost.
 */
export async function loadOwners(): Promise<void> {
  const seen = streamSeen;
  const v = await get<OwnersView>('control/owners');
  if (seen === streamSeen) applyOwners(v);
}

/** The operator holds `target` above the race and live sources until handing it back. */
export async function takeOver(target: OwnerTarget): Promise<void> {
  await post('control/take-over', { target });
  await loadOwners();
}

export async function handBack(target: OwnerTarget): Promise<void> {
  await post('control/hand-back', { target });
  await loadOwners();
}

export interface SourcePatch {
  sources: Record<string, { enabled?: boolean; priority?: number | null }>;
}

export async function saveSources(patch: SourcePatch): Promise<void> {
  await request('PATCH', 'control/settings', patch);
  await loadOwners();
}

/** `ui` is this console: its take-over is the one Hand back undoes. */
export const isOperator = (h: Holder): boolean => h.source === 'ui';

/** The race flag's source: its hold (red, until cleared) sits above the take-over priority. */
export const FLAG_SOURCE = 'flag';

/** Take over only succeeds below the take-over priority; offering it elsewhere invites a 409. */
export const canTakeOver = (h: Holder, takeOverPriority: number): boolean => h.priority < takeOverPriority;

/** A flag hold's action reads `flag red (ui)`: the flag's name, or null for any other hold. */
export function flagOf(h: Holder): string | null {
  if (h.source !== FLAG_SOURCE) return null;
  return /^flag (\w+)/.exec(h.action)?.[1] ?? null;
}

/** Ends the race flag (red's hold goes with it). */
export async function clearFlag(): Promise<void> {
  await post('flags/clear');
  await Promise.all([loadOwners(), reloadDevicesNow()]);
}
