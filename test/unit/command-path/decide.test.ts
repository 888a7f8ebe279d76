/**
 * The command path's decision, alone: higher priority always wins, a release frees, a lapse
 * frees, a refused command changes nothing, and targets overlap as all ⊃ group ⊃ device.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decide, release, releaseTicket } from '../../../src/services/command-path/decide.ts';
import { overlaps } from '../../../src/services/command-path/targets.ts';
import type { Hold, HoldMode, Intent, Target } from '../../../src/services/command-path/types.ts';

const all: Target = { kind: 'all' };
const group = (id: number): Target => ({ kind: 'group', id });
const device = (addr: string, g: number | null): Target => ({ kind: 'device', addr, group: g });

let tickets = 0;
const intent = (o: Partial<Intent> & Pick<Intent, 'source' | 'priority' | 'targets'>): Intent => ({
  sourceClass: 'live',
  hold: 'until-release',
  liveTimeoutMs: 3000,
  action: 'control',
  now: 1000,
  ticket: ++tickets,
  ...o,
});

const take = (table: Hold[], i: Intent): Hold[] => {
  const d = decide(table, i);
  if (!d.ok) throw new Error(`refused: ${JSON.stringify(d.holder)}`);
  return d.holds;
};

describe('target overlap', () => {
  it('all covers everything; a group covers its devices; devices only themselves', () => {
    expect(overlaps(all, group(3))).toBe(true);
    expect(overlaps(all, device('AA', null))).toBe(true);
    expect(overlaps(group(3), group(3))).toBe(true);
    expect(overlaps(group(3), group(4))).toBe(false);
    expect(overlaps(group(3), device('AA', 3))).toBe(true);
    expect(overlaps(device('AA', 3), group(3))).toBe(true);
    expect(overlaps(group(3), device('AA', 4))).toBe(false);
    expect(overlaps(group(3), device('AA', null))).toBe(false);
    expect(overlaps(device('AA', 3), device('AA', 4))).toBe(true);
    expect(overlaps(device('AA', 3), device('BB', 3))).toBe(false);
  });
});

describe('decide', () => {
  it('refuses a lower priority on a held group with the holder, and on a device in it', () => {
    const table = take([], intent({ source: 'ui', priority: 85, targets: [group(2)] }));
    const d = decide(
      table,
      intent({ source: 'rotorhazard', priority: 80, targets: [group(2)], hold: 'none' }),
    );
    expect(d.ok).toBe(false);
    if (!d.ok) expect(d.holder).toMatchObject({ source: 'ui', priority: 85, target: group(2) });
    const dev = decide(table, intent({ source: 'osc', priority: 70, targets: [device('AB', 2)] }));
    expect(dev.ok).toBe(false);
    // Another group is free.
    expect(decide(table, intent({ source: 'osc', priority: 70, targets: [group(5)] })).ok).toBe(true);
  });

  it('refuses the whole command when one of its targets is held (never half-applied)', () => {
    const table = take([], intent({ source: 'ui', priority: 85, targets: [device('BB', 1)] }));
    const d = decide(
      table,
      intent({ source: 'osc', priority: 70, targets: [device('AA', 1), device('BB', 1)] }),
    );
    expect(d.ok).toBe(false);
    if (!d.ok) expect(d.target).toEqual(device('BB', 1));
  });

  it('equal priority: the holder keeps it; the same source always passes', () => {
    const table = take([], intent({ source: 'osc', priority: 70, targets: [group(1)] }));
    expect(decide(table, intent({ source: 'deck', priority: 70, targets: [group(1)] })).ok).toBe(false);
    expect(decide(table, intent({ source: 'osc', priority: 20, targets: [group(1)] })).ok).toBe(true);
  });

  it('a live hold lapses after its timeout and then frees the target', () => {
    const table = take(
      [],
      intent({ source: 'osc', priority: 70, targets: [group(1)], hold: 'live', now: 0 }),
    );
    expect(decide(table, intent({ source: 'ui', priority: 60, targets: [group(1)], now: 2999 })).ok).toBe(
      false,
    );
    const d = decide(
      table,
      intent({ source: 'ui', priority: 60, targets: [group(1)], hold: 'none', now: 3000 }),
    );
    expect(d.ok).toBe(true);
    if (d.ok) {
      expect(d.holds).toEqual([]);
      expect(d.lapsed).toHaveLength(1);
    }
  });

  it('a live hold is refreshed by its source, keeping its since', () => {
    let table = take([], intent({ source: 'osc', priority: 70, targets: [group(1)], hold: 'live', now: 0 }));
    table = take(
      table,
      intent({ source: 'osc', priority: 70, targets: [group(1)], hold: 'live', now: 2500 }),
    );
    expect(table).toHaveLength(1);
    expect(table[0]).toMatchObject({ since: 0, expiresAt: 5500 });
  });

  it('blackout over all drops every lower hold', () => {
    let table = take([], intent({ source: 'ui', priority: 85, targets: [group(1)] }));
    table = take(table, intent({ source: 'osc', priority: 70, targets: [device('AA', 2)], hold: 'live' }));
    const d = decide(table, intent({ source: 'blackout', priority: 100, targets: [all], hold: 'none' }));
    expect(d.ok && d.holds).toEqual([]);
    expect(d.ok && d.dropped.map((h) => h.source).sort()).toEqual(['osc', 'ui']);
  });

  it('an explicit hold is not demoted by its own plain or live command', () => {
    let table = take([], intent({ source: 'ui', priority: 85, targets: [group(1)] }));
    table = take(table, intent({ source: 'ui', priority: 60, targets: [group(1)], hold: 'live' }));
    expect(table[0]).toMatchObject({ priority: 85, mode: 'until-release', expiresAt: null });
  });

  it('releaseTicket frees only the holds that command set', () => {
    const a = intent({ source: 'rh', priority: 80, targets: [group(1)], hold: 'run' });
    let table = take([], a);
    const b = intent({ source: 'rh', priority: 80, targets: [group(2)], hold: 'run' });
    table = take(table, b);
    expect(releaseTicket(table, a.ticket).holds.map((h) => h.target)).toEqual([group(2)]);
  });
});

// ---- properties ----
const targetArb: fc.Arbitrary<Target> = fc.oneof(
  fc.constant(all),
  fc.integer({ min: 0, max: 3 }).map(group),
  fc
    .tuple(fc.constantFrom('AA', 'BB', 'CC'), fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }))
    .map(([a, g]) => device(a, g)),
);
const modeArb: fc.Arbitrary<HoldMode> = fc.constantFrom('none', 'live', 'run', 'until-release');
const intentArb = fc.record({
  source: fc.constantFrom('ui', 'osc', 'rh', 'deck', 'show'),
  priority: fc.integer({ min: 1, max: 100 }),
  targets: fc.array(targetArb, { minLength: 1, maxLength: 3 }),
  hold: modeArb,
  now: fc.integer({ min: 0, max: 10_000 }),
});
const tableArb = fc.array(intentArb, { maxLength: 8 }).map((xs) => {
  let table: Hold[] = [];
  for (const x of xs.sort((a, b) => a.now - b.now)) {
    const d = decide(table, intent(x));
    if (d.ok) table = d.holds;
  }
  return table;
});

describe('decide properties', () => {
  it('a command above every overlapping hold of others is always accepted', () => {
    fc.assert(
      fc.property(tableArb, intentArb, (table, x) => {
        const i = intent({ ...x, now: 10_000 });
        const top = Math.max(
          0,
          ...table
            .filter((h) => h.source !== i.source && i.targets.some((t) => overlaps(h.target, t)))
            .map((h) => h.priority),
        );
        if (i.priority > top) expect(decide(table, i).ok).toBe(true);
      }),
    );
  });

  it('refused ⇔ another live hold at ≥ priority overlaps; a refusal leaves the table as it was', () => {
    fc.assert(
      fc.property(tableArb, intentArb, (table, x) => {
        const i = intent({ ...x, now: 10_000 });
        const before = structuredClone(table);
        const d = decide(table, i);
        const blocked = table.some(
          (h) =>
            h.source !== i.source &&
            h.priority >= i.priority &&
            (h.expiresAt === null || h.expiresAt > i.now) &&
            i.targets.some((t) => overlaps(h.target, t)),
        );
        expect(d.ok).toBe(!blocked);
        expect(table).toEqual(before);
        if (!d.ok) expect(d.holder.priority).toBeGreaterThanOrEqual(i.priority);
      }),
    );
  });

  it('after a release, the released source blocks nothing', () => {
    fc.assert(
      fc.property(
        tableArb,
        intentArb,
        fc.constantFrom('ui', 'osc', 'rh', 'deck', 'show'),
        (table, x, who) => {
          const freed = release(table, who).holds;
          const i = intent({ ...x, now: 10_000 });
          const d = decide(freed, i);
          if (!d.ok) expect(d.holder.source).not.toBe(who);
        },
      ),
    );
  });

  it('once every live hold has lapsed, only explicit holds can refuse', () => {
    fc.assert(
      fc.property(tableArb, intentArb, (table, x) => {
        const i = intent({ ...x, now: 1_000_000 });
        const d = decide(table, i);
        if (!d.ok) expect(d.holder.expiresAt).toBeNull();
      }),
    );
  });

  it('an accepted command leaves no other source holding an overlapping target', () => {
    fc.assert(
      fc.property(tableArb, intentArb, (table, x) => {
        const i = intent({ ...x, now: 10_000 });
        const d = decide(table, i);
        if (!d.ok) return;
        for (const h of d.holds)
          if (h.source !== i.source) expect(i.targets.some((t) => overlaps(h.target, t))).toBe(false);
      }),
    );
  });
});
