/** The RaceLink fixture folders (v0.1.5-club is a copy of ../shared/fixtures/racelink/v0.1.5-club, so a clone runs alone). Reading a fixture folder into the planner's input (paths relative to the folder). */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { RaceLinkFile } from '../../../src/domain/racelink/types.ts';

export const CLUB = join(import.meta.dirname, '../../fixtures/racelink/v0.1.5-club');
export const LATER = join(import.meta.dirname, '../../fixtures/racelink/later-v3');
export const LEGACY = join(import.meta.dirname, '../../fixtures/racelink/legacy-docs');

export function folderFiles(dir: string, prefix = ''): RaceLinkFile[] {
  const walk = (d: string): string[] =>
    readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)]));
  return walk(dir).map((p) => ({ path: prefix + relative(dir, p), bytes: readFileSync(p) }));
}

/** The files with one replaced (or added) by path. */
export function withFile(files: RaceLinkFile[], path: string, text: string): RaceLinkFile[] {
  return [...files.filter((f) => f.path !== path), { path, bytes: Buffer.from(text, 'utf8') }];
}
