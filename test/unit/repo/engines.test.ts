/**
 * `npm ci` on Node 20 warns EBADENGINE for one package (issue 25, item 10): cookie@2
 * wants Node ≥ 22. It is harmless because nothing loads it: only light-my-request needs
 * it, which Fastify requires lazily for `inject()`, and the host never calls inject. This
 * test keeps that true — a new dependency that needs a newer Node than the README's
 * 20.19, or a use of inject, fails here instead of surprising an operator.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The lowest Node major an engines range admits (the smallest over its `||` alternatives). */
function lowestMajor(range: string): number {
  return Math.min(
    ...range.split('||').map((alt) => {
      const m = /(\d+)/.exec(alt.replace(/^[\s>=^~v]*/, ''));
      return m ? Number(m[1]) : 0;
    }),
  );
}

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await sources(p)));
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

describe('node engines', () => {
  it('only-cookie-wants-a-newer-node-and-nothing-loads-it', async () => {
    const lock = JSON.parse(await readFile(join(process.cwd(), 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { engines?: { node?: string }; dev?: boolean }>;
    };
    const tooNew = Object.entries(lock.packages)
      .filter(([, p]) => typeof p.engines?.node === 'string' && lowestMajor(p.engines.node) > 20)
      .map(([path]) => path);
    expect(tooNew).toEqual(['node_modules/cookie']);
    expect(lowestMajor('>=22')).toBe(22);
    expect(lowestMajor('^14.17.0 || >=16.0.0')).toBe(14);
    const dependents = Object.entries(lock.packages)
      .filter(([, p]) => 'cookie' in ((p as { dependencies?: Record<string, string> }).dependencies ?? {}))
      .map(([path]) => path);
    expect(dependents).toEqual(['node_modules/light-my-request']);
    // Fastify loads light-my-request (and so cookie) only for inject(): the host must not use it.
    for (const f of await sources(join(process.cwd(), 'src'))) {
      expect(await readFile(f, 'utf8'), f).not.toMatch(/\.inject\(/);
    }
  });
});
