/**
 * Temp folders for tests: each is removed when the test that made it ends — passed,
 * failed or timed out — so a run leaves no `lightnet-*` folders behind. Call it inside a
 * test (vitest's onTestFinished); a child process writing there must be stopped by the
 * test's own finally first (removal retries a busy folder a few times).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

export async function testTempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  onTestFinished(() => rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }));
  return dir;
}
