/** The data folder lock's liveness check and its take/release cycle (in this process). */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DataDirLock,
  DataDirLockedError,
  LOCK_FILE,
  ownerIsGone,
  type LockOwner,
} from '../../../src/state/data-lock.ts';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});
const tmp = async (): Promise<string> => {
  const d = await mkdtemp(join(tmpdir(), 'lightnet-lock-unit-'));
  dirs.push(d);
  return d;
};
const procStart = (): string | null => {
  try {
    const t = readFileSync(`/proc/${process.pid}/stat`, 'utf8');
    return t.slice(t.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
};
const me = (o: Partial<LockOwner> = {}): LockOwner => ({
  pid: process.pid,
  host: hostname(),
  port: 5077,
  started: new Date().toISOString(),
  bootId: null,
  procStart: procStart(),
  ...o,
});

describe('data folder lock', () => {
  it('a-live-owner-is-not-gone-a-reused-pid-or-another-boot-is', () => {
    expect(ownerIsGone(me())).toBe(false);
    if (procStart() !== null) expect(ownerIsGone(me({ procStart: '1' }))).toBe(true);
    if (procStart() !== null) expect(ownerIsGone(me({ bootId: 'another-boot' }))).toBe(true);
    // Another machine's lock cannot be checked: it counts as live.
    expect(ownerIsGone(me({ host: `${hostname()}-elsewhere`, pid: 999_999_999 }))).toBe(false);
  });

  it('a-held-lock-refuses-a-second-taker-and-release-frees-it', async () => {
    const dir = await tmp();
    const lock = await DataDirLock.acquire(dir);
    await lock.setPort(6001);
    const err = await DataDirLock.acquire(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataDirLockedError);
    expect((err as Error).message).toContain(`pid ${process.pid}, port 6001`);
    expect((err as Error).message).toContain(dir);
    await lock.release();
    const again = await DataDirLock.acquire(dir);
    await again.release();
  });

  it('a-stale-lock-is-taken-over-and-the-takeover-reported', async () => {
    const dir = await tmp();
    await writeFile(join(dir, LOCK_FILE), JSON.stringify(me({ procStart: '1', port: 1 })));
    const seen: (LockOwner | null)[] = [];
    const lock = await DataDirLock.acquire(dir, { onTakeover: (o) => seen.push(o) });
    expect(seen).toHaveLength(procStart() !== null ? 1 : 0);
    if (procStart() !== null) {
      expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({
        pid: process.pid,
        port: null,
      });
    }
    await lock.release();
  });
});
