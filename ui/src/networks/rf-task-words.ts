/**
 * The RF tasks (rf_migration, channel_scan, rf_rescue) in an operator's words: their
 * stages (the status bar and the dialogs' progress line) and how each ended. Pure: no
 * store, so the words are unit-tested as they read.
 */
import type { Task } from '../types.ts';

export const RF_TASKS: ReadonlySet<string> = new Set(['rf_migration', 'channel_scan', 'rf_rescue']);

export const RF_STAGES: Record<string, string> = {
  find: 'finding the nodes still on the old channel',
  find_new: 'asking for the nodes on the new channel',
  push: 'telling the nodes their new channel',
  verify: 'checking nobody still answers on the old channel',
  gateway: 'moving the gateway (it restarts)',
  stragglers: 'looking for nodes left behind',
  rebind: 'putting the nodes back into their groups',
  switch: 'tuning the gateway',
  listen: 'listening for nodes',
  bind: 'binding the node on its channel',
  restore: 'returning the gateway to its channel',
  home: 'waiting for the nodes to come home',
};

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** "Channel scan: listening for nodes · EU868 ch 4 · 869.2 MHz". */
export function rfTaskMessage(t: Task, label: string): string {
  const stage = typeof t.meta.stage === 'string' ? t.meta.stage : '';
  const words = RF_STAGES[stage] ?? (stage === 'start' ? 'starting' : stage);
  const channel = typeof t.meta.channel === 'string' ? ` · ${t.meta.channel}` : '';
  return `${label}: ${words}${channel}`;
}

/** A finished RF task's result in one line; not ok when nodes were left behind. */
export function rfTaskEnd(name: string, r: Record<string, unknown>): { text: string; ok: boolean } {
  if (name === 'rf_migration') {
    const sum = (r.summary ?? {}) as Record<string, unknown>;
    const to = (r.to ?? {}) as { channel?: string };
    const left = (num(sum.not_moved) ?? 0) + (num(sum.stranded) ?? 0);
    const off = num(sum.skipped_offline) ?? 0;
    const parts = [`${num(sum.rebound) ?? 0} of ${num(sum.devices) ?? 0} back in their groups`];
    if (off) parts.push(`${off} offline left behind`);
    if (left) parts.push(`${left} not moved or stranded`);
    return {
      text: `Moved ${String(r.network_name ?? 'the network')} to ${to.channel ?? '?'}: ${parts.join(', ')}`,
      ok: left === 0,
    };
  }
  if (name === 'channel_scan') {
    const sum = (r.summary ?? {}) as Record<string, unknown>;
    return {
      text: `Channel scan: ${num(sum.channels) ?? 0} channels, ${num(sum.known) ?? 0} known and ${num(sum.unknown) ?? 0} unknown nodes heard`,
      ok: r.returned_home !== false,
    };
  }
  const nodes = Array.isArray(r.nodes) ? (r.nodes as { outcome?: string }[]) : [];
  const home = nodes.filter((n) => n.outcome === 'home').length;
  return { text: `Bring home: ${home} of ${nodes.length} back in their group`, ok: home === nodes.length };
}
