/** HTTP steps for native-preset and scene scenarios (any method, JSON in and out). */
import type { Harness } from '../harness.ts';

export interface Res<T = Record<string, unknown>> {
  status: number;
  body: T;
}

export async function call<T = Record<string, unknown>>(
  h: Harness,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<Res<T>> {
  const res = await fetch(h.url + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** Asserts the request fails with `status` and returns the error text. */
export async function refused(
  h: Harness,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body: unknown,
  status: number,
): Promise<string> {
  const r = await call<{ ok: boolean; error: string }>(h, method, path, body);
  if (r.status !== status || r.body.ok !== false)
    throw new Error(`${method} ${path} ${JSON.stringify(body)} → ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.error;
}
