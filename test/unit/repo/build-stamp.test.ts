/**
 * The staleness check `npm start` runs before every start (scripts/build-stamp.cjs): the
 * stamp names each bundled file of ours, and each bundled package once by its package.json
 * (issue 40: the check statted every bundled file of node_modules too, ~630 stats, half of
 * its CPU). It still sees an edited source and a package that npm installed anew.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

interface BuildStamp {
  packageDir(file: string): string | null;
  stampInputs(root: string, files: string[]): Record<string, string>;
  staleReason(root: string): string | null;
}
const stamp = createRequire(import.meta.url)('../../../scripts/build-stamp.cjs') as BuildStamp;

const FILES = [
  'src/main.ts',
  'src/http/app.ts',
  'node_modules/fastify/fastify.js',
  'node_modules/fastify/lib/route.js',
  'node_modules/fastify/node_modules/semver/index.js',
  'node_modules/@fastify/error/index.js',
  'node_modules/@fastify/error/lib/x.js',
];

let root: string;
const write = (file: string, text: string): void => {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), text);
};
/** A build as build-server.mjs writes it: the stamp and the outputs it lists. */
const build = (): void => {
  const inputs = stamp.stampInputs(root, FILES);
  write('dist/server/lightnet.cjs', '// bundle');
  write('dist/server/build-stamp.json', JSON.stringify({ inputs, outputs: ['dist/server/lightnet.cjs'] }));
};
/** Changes a file's size and mtime, as an edit does. */
const edit = (file: string): void => {
  write(file, '// edited, longer than before');
  const later = new Date(Date.now() + 5000);
  utimesSync(join(root, file), later, later);
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'lightnet-stamp-'));
  for (const f of FILES) write(f, `// ${f}`);
  for (const p of ['fastify', 'fastify/node_modules/semver', '@fastify/error'])
    write(`node_modules/${p}/package.json`, `{"name":"${p}","version":"1.0.0"}`);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('build stamp', () => {
  it('names-each-source-file-and-each-package-once', () => {
    expect(Object.keys(stamp.stampInputs(root, FILES)).sort()).toEqual([
      'node_modules/@fastify/error/package.json',
      'node_modules/fastify/node_modules/semver/package.json',
      'node_modules/fastify/package.json',
      'src/http/app.ts',
      'src/main.ts',
    ]);
    expect(stamp.packageDir('../main/node_modules/zod/v4/core/core.js')).toBe('../main/node_modules/zod');
    expect(stamp.packageDir('src/node_modules.ts')).toBeNull();
  });

  it('is-fresh-after-a-build-and-stale-after-an-edit-or-an-install', () => {
    build();
    expect(stamp.staleReason(root)).toBeNull();
    edit('src/http/app.ts');
    expect(stamp.staleReason(root)).toBe('src/http/app.ts changed');
    build();
    // npm rewrites a package's package.json when it installs or updates the package.
    edit('node_modules/@fastify/error/package.json');
    expect(stamp.staleReason(root)).toBe('node_modules/@fastify/error/package.json changed');
    build();
    rmSync(join(root, 'dist/server/lightnet.cjs'));
    expect(stamp.staleReason(root)).toBe('dist/server/lightnet.cjs missing');
  });
});
