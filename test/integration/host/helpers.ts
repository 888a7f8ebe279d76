/** Shared steps for host scenario tests. */
import { expect } from 'vitest';
import type { Harness } from '../harness.ts';
import type { TaskSnapshot } from '../../../src/tasks/task-manager.ts';
import { DEFAULT_NODE_TIMING } from '../../../src/sim/node/types.ts';

export interface Row {
  addr: string;
  groupId: number;
  online: boolean;
  name: string;
  brightness: number;
  presetId: number;
  [k: string]: unknown;
}

export async function runTask(h: Harness, path: string, body: unknown = {}): Promise<TaskSnapshot> {
  const r = await h.post<{ ok: boolean; task: TaskSnapshot }>(path, body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return h.waitTask(r.body.task.id);
}

export async function devices(h: Harness): Promise<Row[]> {
  return (await h.get<{ devices: Row[] }>('/api/devices')).body.devices;
}

/**
 * Simulated time until every node's two boot announcements are on air (and LBT backoffs
 * settled): radio up, +1 s, +3 s, plus a margin.
 */
const BOOT_ANNOUNCEMENTS_MS =
  DEFAULT_NODE_TIMING.bootMs + DEFAULT_NODE_TIMING.announceMs + DEFAULT_NODE_TIMING.secondAnnounceMs + 1500;

/**
 * The field was powered up a while ago: waits (in simulated time) until the youngest node's
 * boot announcements are over, so a scenario's later broadcasts never meet a node that is
 * busy announcing itself. (A discovery used to outlast them; a small fleet's no longer does.)
 */
export async function bootAnnouncementsOver(h: Harness): Promise<void> {
  const fleet = h.host.sim?.fleet;
  if (!fleet || fleet.nodes.length === 0) return;
  const youngest = Math.min(...fleet.nodes.map((n) => n.localMs));
  if (youngest < BOOT_ANNOUNCEMENTS_MS) await fleet.clock.sleep(BOOT_ANNOUNCEMENTS_MS - youngest);
}

/** Discovers the whole simulated fleet into group 0 (or a target group), once it has booted. */
export async function discoverAll(h: Harness, body: Record<string, unknown> = {}): Promise<Row[]> {
  await bootAnnouncementsOver(h);
  const t = await runTask(h, '/api/discover', body);
  expect(t.state, t.last_error ?? '').toBe('done');
  return devices(h);
}

export const simAddrs = (h: Harness): string[] => (h.host.sim?.fleet.nodes ?? []).map((n) => n.addr);
