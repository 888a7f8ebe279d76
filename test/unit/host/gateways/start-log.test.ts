/**
 * The start log says once that the simulator is used: with no gateway answering at start,
 * the fallback's own line is the only one (it used to be followed by a second).
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { SteppedClock } from '../../../../src/clock.ts';
import { chooseGateways } from '../../../../src/host/gateways/choose.ts';
import { testConfig } from '../../../integration/harness.ts';

function memoryLogger(): { log: pino.Logger; lines: () => { level: number; msg: string }[] } {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const log = pino({ level: 'info' }, sink);
  const lines = () =>
    chunks
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { level: number; msg: string });
  return { log, lines };
}

describe('the start log on the simulator', () => {
  it('says-once-that-no-gateway-answered-and-the-simulator-is-used', async () => {
    const { log, lines } = memoryLogger();
    const cfg = testConfig('/nonexistent', { gateway: { kind: 'auto' } });
    const clock = new SteppedClock(1, 0);
    const gws = await chooseGateways(cfg, log, clock, undefined, {
      candidates: () => Promise.resolve([]),
    });
    try {
      expect(gws.map((g) => g.transport)).toEqual(['sim']);
      const sim = lines().filter((l) => /SIMULATED/.test(l.msg));
      expect(sim.map((l) => l.msg)).toEqual([
        'no gateway answered the identify ping: using the SIMULATED gateway and fleet',
      ]);
      expect(sim[0]!.level).toBe(40);
    } finally {
      for (const g of gws) g.sim?.stop();
    }
  });
});
