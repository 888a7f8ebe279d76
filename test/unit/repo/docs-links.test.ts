/**
 * Every relative link in README.md and docs/**\/*.md must name a file that exists and, with a
 * `#fragment`, a heading in it (GitHub's anchors). The README was split into docs/ by reader
 * (issue 29) and the docs keep moving: a dead link is what a newcomer trips over first.
 * External links (http:, mailto:) are not fetched.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '../../..');

function markdownFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...markdownFiles(p));
    else if (e.name.endsWith('.md')) out.push(p);
  }
  return out;
}

/** Text outside fenced code blocks and inline code spans (links there are not links). */
function prose(md: string): string {
  return md.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of md.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = (m[1] ?? '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1') // a link in a heading keeps its text
      .replace(/[`*_]/g, '');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Relative link targets of `[text](target)` links (URLs with a scheme are left out). */
function links(md: string): string[] {
  return [...prose(md).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)]
    .map((m) => m[1] ?? '')
    .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

const files = [join(repo, 'README.md'), ...markdownFiles(join(repo, 'docs'))];

describe('links in README.md and docs/', () => {
  it('computes GitHub anchors the way GitHub does', () => {
    const a = anchors(
      '# Several gateways (networks)\n## The `Networks` dialog\n## Set-up (two commands)\n## Set-up (two commands)\n',
    );
    expect([...a]).toEqual([
      'several-gateways-networks',
      'the-networks-dialog',
      'set-up-two-commands',
      'set-up-two-commands-1',
    ]);
  });

  it.each(files.map((f) => [relative(repo, f), f] as const))(
    '%s: every relative link resolves',
    (_name, file) => {
      const md = readFileSync(file, 'utf8');
      const broken: string[] = [];
      for (const target of links(md)) {
        const [path = '', fragment] = target.split('#');
        const dest = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
        if (!existsSync(dest)) {
          broken.push(`${target}: no such file`);
          continue;
        }
        if (
          fragment === undefined ||
          fragment === '' ||
          statSync(dest).isDirectory() ||
          !dest.endsWith('.md')
        )
          continue;
        if (!anchors(readFileSync(dest, 'utf8')).has(decodeURIComponent(fragment).toLowerCase())) {
          broken.push(`${target}: no heading #${fragment} in ${relative(repo, dest)}`);
        }
      }
      expect(broken).toEqual([]);
    },
  );
});
