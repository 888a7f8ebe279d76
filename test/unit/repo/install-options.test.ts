/**
 * docs/operators/install.md's "Command line and environment" section names every option the
 * host takes (src/config/index.ts): an operator configuring a service reads that table, not
 * `--help`. The OSC options were missing from it. An option counts as named by its flag, by
 * its LIGHTNET_* variable, or in a shortened list such as `--mqtt-ca/-cert/-key`.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '../../..');
const read = (p: string) => readFileSync(resolve(repo, p), 'utf8');

/** Every `--name` the command line declares (`.option('--name …'`). */
function declared(src: string): string[] {
  return [...src.matchAll(/\.option\(\s*'--([a-z0-9-]+)/g)].map((m) => m[1] as string);
}

/** The option names the section mentions, `--a-b/-c` read as --a-b and --a-c. */
function mentioned(section: string): Set<string> {
  const out = new Set<string>();
  for (const m of section.matchAll(/--([a-z0-9-]+)((?:\/-[a-z0-9]+)*)/g)) {
    const name = m[1] as string;
    out.add(name);
    const stem = name.slice(0, name.lastIndexOf('-'));
    for (const tail of (m[2] ?? '').split('/-').filter(Boolean)) out.add(`${stem}-${tail}`);
  }
  for (const m of section.matchAll(/LIGHTNET_([A-Z0-9_]+)/g))
    out.add((m[1] as string).toLowerCase().replaceAll('_', '-'));
  return out;
}

describe('install.md options', () => {
  it('every-command-line-option-is-in-the-options-section', () => {
    const options = declared(read('src/config/index.ts'));
    expect(options.length).toBeGreaterThan(20);
    const md = read('docs/operators/install.md');
    const start = md.indexOf('## Command line and environment');
    expect(start).toBeGreaterThan(-1);
    const end = md.indexOf('\n## ', start + 1);
    const named = mentioned(md.slice(start, end === -1 ? undefined : end));
    expect(options.filter((o) => !named.has(o))).toEqual([]);
  });
});
