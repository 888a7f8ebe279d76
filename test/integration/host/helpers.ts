/** Shared steps for host scenario tests. */
import { expect } from 'vitest';
import type { Harness } from '../harness.ts';
import type { TaskSnapshot } from '../../../src/tasks/task-manager.ts';

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

/** Discovers the whole simulated fleet into group 0 (or a target group). */
export async function discoverAll(h: Harness, body: Record<string, unknown> = {}): Promise<Row[]> {
  const t = await runTask(h, '/api/discover', body);
  expect(t.state, t.last_error ?? '').toBe('done');
  return devices(h);
}

export const simAddrs = (h: Harness): string[] => (h.host.sim?.fleet.nodes ?? []).map((n) => n.addr);
