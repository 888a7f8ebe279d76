/**
 * SteppedClock `holdDuringFs`: virtual time stands still while a file-system request is in
 * flight (a benchmark's fsync must not cost simulated seconds on a busy machine), and runs
 * on as soon as none is.
 */
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SteppedClock } from '../../../src/clock.ts';
import { testTempDir } from '../../temp-dir.ts';

async function fsyncs(dir: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const fh = await open(join(dir, `f${i}`), 'w');
    try {
      await fh.write(`write ${i}\n`);
      await fh.sync();
    } finally {
      await fh.close();
    }
  }
}

describe('SteppedClock holdDuringFs', () => {
  it('does not advance while the disk is busy, and advances again afterwards', async () => {
    // Without the hold, these 20 durable writes step the clock thousands of times.
    const dir = await testTempDir('lightnet-clock-');
    const clock = new SteppedClock(1, 0, { holdDuringFs: true }).start();
    try {
      // Between two awaited requests a continuation may let one turn through.
      const t0 = clock.now();
      await fsyncs(dir, 20);
      expect(clock.now() - t0).toBeLessThanOrEqual(20 * 4);
      const t1 = clock.now();
      await clock.sleep(50);
      expect(clock.now() - t1).toBe(50);
    } finally {
      clock.stop();
    }
  });
});
