/**
 * What the host keeps about second timers (`timers.json` in the data folder, written
 * durably): FPVTrackside's URL secret, made on first use so the operator can paste one URL
 * once, and the last Hello it sent (its timing topology and paths) — a later page shows
 * them after a host restart without waiting for FPVTrackside to restart too.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { writeFileDurable } from '../../../state/durable-write.ts';

const FILE = 'timers.json';

const fileSchema = z.object({
  fpvtrackside: z
    .object({
      token: z.string().min(16).max(128).nullable().default(null),
      hello: z.record(z.string(), z.unknown()).nullable().default(null),
      hello_epoch_ms: z.number().nullable().default(null),
    })
    .default({ token: null, hello: null, hello_epoch_ms: null }),
});
export type TimersData = z.infer<typeof fileSchema>;

export class TimersFile {
  private data: TimersData = fileSchema.parse({});
  /** The chain of writes (see update). */
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly dataDir: string) {}

  /** Absent: nothing yet. Unreadable: a problem to log, and a fresh start (a new token). */
  async load(): Promise<string | null> {
    let text: string;
    try {
      text = await readFile(join(this.dataDir, FILE), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      return (err as Error).message;
    }
    try {
      const parsed = fileSchema.safeParse(JSON.parse(text));
      if (parsed.success) {
        this.data = parsed.data;
        return null;
      }
      return `${FILE}: ${parsed.error.issues[0]?.message}`;
    } catch (err) {
      return `${FILE}: ${(err as Error).message}`;
    }
  }

  get(): TimersData {
    return this.data;
  }

  /** FPVTrackside's URL secret; made and on disk before it is returned the first time. */
  async ensureToken(): Promise<string> {
    await this.update((d) =>
      d.fpvtrackside.token
        ? null
        : { ...d, fpvtrackside: { ...d.fpvtrackside, token: randomBytes(18).toString('base64url') } },
    );
    return this.data.fpvtrackside.token as string;
  }

  /** A new secret replaces the old one (on disk first): the old URL answers 401 from then on. */
  async newToken(): Promise<string> {
    const token = randomBytes(18).toString('base64url');
    await this.update((d) => ({ ...d, fpvtrackside: { ...d.fpvtrackside, token } }));
    return token;
  }

  saveHello(hello: Record<string, unknown>, at: number): Promise<void> {
    return this.update((d) => ({ ...d, fpvtrackside: { ...d.fpvtrackside, hello, hello_epoch_ms: at } }));
  }

  /**
   * Changes run one after the other, each on what the previous one left, and take effect
   * only once on disk (a failed write changes nothing). `change` returns null: nothing to do.
   */
  private update(change: (d: TimersData) => TimersData | null): Promise<void> {
    const run = this.writing.then(async () => {
      const next = change(this.data);
      if (!next) return;
      await writeFileDurable(join(this.dataDir, FILE), JSON.stringify(next, null, 2) + '\n');
      this.data = next;
    });
    this.writing = run.catch(() => undefined);
    return run;
  }
}
