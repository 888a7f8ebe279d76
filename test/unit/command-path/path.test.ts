/**
 * The command path's service around the decision: race commands draw from no bucket while a
 * flooding source is rate-limited; a live hold lapses by itself and tells subscribers; a source
 * switched off lets go; take over is refused under a safety hold; run holds end with the run.
 */
import { describe, expect, it } from 'vitest';
import { CommandRefusedError } from '../../../src/errors.ts';
import { silentLogger } from '../../../src/logger.ts';
import { CommandPathService, type OwnersView } from '../../../src/services/command-path/index.ts';

function rig() {
  let now = 1_000_000;
  const timers: { at: number; fn: () => void; dead: boolean }[] = [];
  const path = new CommandPathService({
    log: silentLogger(),
    now: () => now,
    groupOf: (addr) => (addr === 'AAAAAA' ? 1 : null),
    setTimer: (fn, ms) => {
      const t = { at: now + ms, fn, dead: false };
      timers.push(t);
      return { clear: () => (t.dead = true) };
    },
  });
  const advance = (ms: number): void => {
    now += ms;
    for (const t of timers.filter((x) => !x.dead && x.at <= now)) {
      t.dead = true;
      t.fn();
    }
  };
  return { path, advance };
}

const status = (fn: () => unknown): number | 'ok' => {
  try {
    fn();
    return 'ok';
  } catch (err) {
    if (err instanceof CommandRefusedError) return err.status;
    throw err;
  }
};

describe('command path service', () => {
  it('rate-limits a flooding live source while race commands pass', async () => {
    const { path } = rig();
    await path.updateSettings({ rate_limit: { per_second: 1, burst: 3 } });
    const live = () => path.admit({ source: 'live', targets: [{ kind: 'group', id: 5 }], action: 'control' });
    expect([1, 2, 3, 4, 5].map(() => status(live))).toEqual(['ok', 'ok', 'ok', 429, 429]);
    for (let i = 0; i < 50; i++)
      expect(
        status(() =>
          path.admit({ source: 'rotorhazard', targets: [{ kind: 'group', id: 2 }], action: 'lap flash' }),
        ),
      ).toBe('ok');
    expect(path.owners().sources.find((s) => s.id === 'live')?.counts).toMatchObject({
      accepted: 3,
      rate_limited: 2,
    });
  });

  it('a live hold lapses by itself after the timeout and subscribers hear it', () => {
    const { path, advance } = rig();
    const seen: OwnersView[] = [];
    path.subscribe((v) => seen.push(v));
    path.admit({ source: 'live', targets: [{ kind: 'device', addr: 'AAAAAA' }], action: 'control' });
    expect(seen.at(-1)?.owners[0]).toMatchObject({ source: 'live', mode: 'live', timeout_left_ms: 3000 });
    // The device is in group 1: the operator's command to group 1 is refused meanwhile.
    expect(status(() => path.admit({ source: 'ui', targets: [{ kind: 'group', id: 1 }], action: 'c' }))).toBe(
      409,
    );
    advance(2000);
    path.admit({ source: 'live', targets: [{ kind: 'device', addr: 'AAAAAA' }], action: 'control' });
    advance(2000);
    expect(path.owners().owners).toHaveLength(1);
    advance(1001);
    expect(seen.at(-1)?.owners).toEqual([]);
    expect(status(() => path.admit({ source: 'ui', targets: [{ kind: 'group', id: 1 }], action: 'c' }))).toBe(
      'ok',
    );
  });

  it('a source switched off lets go of its holds and is refused 403', async () => {
    const { path } = rig();
    path.admit({ source: 'live', targets: [{ kind: 'all' }], action: 'control' });
    await path.updateSettings({ sources: { live: { enabled: false } } });
    expect(path.owners().owners).toEqual([]);
    expect(status(() => path.admit({ source: 'live', targets: [{ kind: 'all' }], action: 'c' }))).toBe(403);
  });

  it('take over is refused under a safety hold; a run hold ends with its run', async () => {
    const { path } = rig();
    path.registerSource({
      id: 'red-flag',
      sourceClass: 'safety',
      label: 'Red flag',
      external: false,
      http: false,
    });
    path.admit({ source: 'red-flag', targets: [{ kind: 'all' }], action: 'flag', hold: 'until-release' });
    expect(status(() => path.takeOver({ kind: 'group', id: 3 }))).toBe(409);
    expect(path.release('red-flag')).toBe(1);
    let inside: number | null = null;
    await path.run(
      { source: 'rotorhazard', targets: [{ kind: 'group', id: 3 }], action: 'look', hold: 'run' },
      async () => {
        inside = path.owners().owners.length;
      },
    );
    expect(inside).toBe(1);
    expect(path.owners().owners).toEqual([]);
  });

  it('blackout drops every hold, the take-over too', () => {
    const { path } = rig();
    path.takeOver({ kind: 'group', id: 1 });
    path.admit({ source: 'live', targets: [{ kind: 'group', id: 2 }], action: 'c' });
    path.blackout();
    expect(path.owners().owners).toEqual([]);
  });
});
