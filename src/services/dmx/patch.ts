/**
 * The DMX patch: which group is which virtual fixture, on which universe, at which start
 * address. Checked whole (every fixture inside 1–512, no two overlapping on a universe, a
 * group patched once, the group and universe known) and kept in `dmx-patch.json` in the data
 * folder, fsynced before it takes effect: a 200 means it is on disk.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { ValidationError } from '../../errors.ts';
import { writeFileDurable } from '../../state/durable-write.ts';
import { FIXTURE_KINDS, footprint, type FixtureKind } from './channel-map.ts';

const FILE = 'dmx-patch.json';
export const MAX_FIXTURES = 64;

export interface PatchEntry {
  group: number;
  /** A universe key as configured: `sacn:1`, `artnet:0.0.1`. */
  universe: string;
  /** 1-based DMX start address. */
  address: number;
  fixture: FixtureKind;
}

const entrySchema = z.strictObject({
  group: z.number({ error: 'must be a group id' }).int('must be a whole number').min(0).max(254),
  universe: z.string({ error: 'must be a universe like sacn:1' }).min(1).max(32),
  address: z
    .number({ error: 'must be a DMX address 1–512' })
    .int('must be a whole number')
    .min(1, 'must be a DMX address 1–512')
    .max(512, 'must be a DMX address 1–512'),
  fixture: z.enum(FIXTURE_KINDS as [FixtureKind, ...FixtureKind[]], {
    error: `must be one of ${FIXTURE_KINDS.join(', ')}`,
  }),
});

export const patchSchema = z.strictObject({
  fixtures: z.array(entrySchema, { error: 'must be a list of fixtures' }).max(MAX_FIXTURES),
});
export type PatchBody = z.infer<typeof patchSchema>;

/** What the patch is checked against: the configured universes and the groups that exist. */
export interface PatchContext {
  universes: readonly string[];
  groupExists(id: number): boolean;
}

/** Throws ValidationError naming the field (`fixtures.2.address: …`) for the first problem. */
export function checkPatch(entries: readonly PatchEntry[], ctx: PatchContext): void {
  const seen = new Map<number, number>();
  entries.forEach((e, i) => {
    const at = `fixtures[${i}]`;
    if (!ctx.universes.includes(e.universe))
      throw new ValidationError(
        `${at}.universe: "${e.universe}" is not an input of this host (${ctx.universes.join(', ') || 'no --dmx given'})`,
      );
    if (!ctx.groupExists(e.group)) throw new ValidationError(`${at}.group: no group ${e.group}`);
    const end = e.address + footprint(e.fixture) - 1;
    if (end > 512)
      throw new ValidationError(
        `${at}.address: a ${e.fixture} fixture (${footprint(e.fixture)} channels) at ${e.address} ends at ${end}, past 512`,
      );
    const before = seen.get(e.group);
    if (before !== undefined)
      throw new ValidationError(`${at}.group: group ${e.group} is patched twice (also fixtures[${before}])`);
    seen.set(e.group, i);
    entries.slice(0, i).forEach((o, j) => {
      if (o.universe !== e.universe) return;
      const oEnd = o.address + footprint(o.fixture) - 1;
      if (e.address <= oEnd && o.address <= end)
        throw new ValidationError(
          `${at}.address: ${e.address}–${end} overlaps fixtures[${j}] (group ${o.group}, ${o.address}–${oEnd}) on ${e.universe}`,
        );
    });
  });
}

/** The patch on disk (an unreadable file: an empty patch, said in the log). */
export class PatchFile {
  constructor(private readonly dataDir: string) {}

  async load(): Promise<{ entries: PatchEntry[]; problem: string | null }> {
    let text: string;
    try {
      text = await readFile(join(this.dataDir, FILE), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], problem: null };
      return { entries: [], problem: (err as Error).message };
    }
    try {
      const parsed = patchSchema.safeParse(JSON.parse(text));
      if (parsed.success) return { entries: parsed.data.fixtures, problem: null };
      const issue = parsed.error.issues[0];
      return { entries: [], problem: `${FILE}: ${issue?.path.join('.')}: ${issue?.message}` };
    } catch (err) {
      return { entries: [], problem: `${FILE}: ${(err as Error).message}` };
    }
  }

  save(entries: readonly PatchEntry[]): Promise<void> {
    return writeFileDurable(join(this.dataDir, FILE), JSON.stringify({ fixtures: entries }, null, 2) + '\n');
  }
}
