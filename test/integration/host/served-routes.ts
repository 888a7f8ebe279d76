/**
 * The routes a running host serves, read from Fastify's route tree (`printRoutes`): one
 * `METHOD /path` per route below the mount prefix, without HEAD twins, the UI's files and
 * the UI's catch-all. For the API reference's completeness test.
 */
import type { FastifyInstance } from 'fastify';

export function servedRoutes(app: FastifyInstance, prefix = '/lightnet'): string[] {
  const out: string[] = [];
  const stack: { depth: number; path: string }[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^([\s│]*)[└├]── (.*) \(([A-Z, ]+)\)$/.exec(line);
    if (!m) continue;
    const depth = (m[1] ?? '').length;
    while (stack.length > 0 && (stack[stack.length - 1]?.depth ?? 0) >= depth) stack.pop();
    const path = (stack[stack.length - 1]?.path ?? '') + (m[2] ?? '');
    stack.push({ depth, path });
    const rel = path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : null;
    if (!rel || !(rel.startsWith('/api/') || rel === '/sse')) continue;
    for (const method of (m[3] ?? '').split(', ')) if (method !== 'HEAD') out.push(`${method} ${rel}`);
  }
  return out;
}
