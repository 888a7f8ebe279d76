import { describe, expect, it } from 'vitest';
import {
  ago,
  refusalText,
  takeOverRefusal,
  type RefusalContext,
} from '../../../src/services/command-path/refusal.ts';
import type { Hold } from '../../../src/services/command-path/types.ts';

const NOW = 1_800_000_000_000;
const LABELS: Record<string, string> = { fpvtrackside: 'FPVTrackside', live: 'Live control' };
const ctx = (requester: string): RefusalContext => ({
  labelOf: (id) => LABELS[id] ?? id,
  requester,
  takeOverPriority: 85,
  now: NOW,
});
const hold = (h: Partial<Hold>): Hold => ({
  target: { kind: 'all' },
  source: 'flag',
  sourceClass: 'safety',
  priority: 90,
  mode: 'until-release',
  since: NOW - 12_000,
  expiresAt: null,
  action: 'flag red (ui)',
  ticket: 1,
  ...h,
});

describe('refusal words', () => {
  it('names the flag, a relative time and the way out, target first', () => {
    expect(refusalText({ kind: 'group', id: 1 }, hold({}), ctx('ui'))).toBe(
      'group 1 is held by the red flag (priority 90) for the last 12 s, as part of all — clear the flag first',
    );
  });

  it("a race look: the source's label and class; the operator may take over, others wait", () => {
    const h = hold({
      target: { kind: 'group', id: 2 },
      source: 'fpvtrackside',
      sourceClass: 'race',
      priority: 80,
      mode: 'run',
      since: NOW - 3_000,
      action: 'scene race-lights-start',
    });
    expect(refusalText({ kind: 'group', id: 2 }, h, ctx('ui'))).toBe(
      'group 2 is held by FPVTrackside (race, 80) for the last 3 s — Take over to change it, or wait for the scene race-lights-start to end',
    );
    expect(refusalText({ kind: 'group', id: 2 }, h, ctx('live'))).toBe(
      'group 2 is held by FPVTrackside (race, 80) for the last 3 s — wait for the scene race-lights-start to end',
    );
  });

  it("the operator's take-over and a live source say how they end", () => {
    const taken = hold({
      source: 'ui',
      sourceClass: 'operator',
      priority: 85,
      action: 'take over',
      since: NOW - 75_000,
    });
    expect(refusalText({ kind: 'all' }, taken, ctx('rotorhazard'))).toBe(
      "all is held by the operator's take-over (priority 85) for the last 1 min 15 s — wait until the operator hands it back",
    );
    const live = hold({
      source: 'live',
      sourceClass: 'live',
      priority: 70,
      mode: 'live',
      since: NOW - 400,
      expiresAt: NOW + 2_600,
      action: 'control',
    });
    expect(refusalText({ kind: 'all' }, live, ctx('show'))).toBe(
      'all is held by Live control (live, 70) for the last 1 s — wait until it goes quiet (free in 3 s without new commands)',
    );
  });

  it('names a group by its name where the host knows it; the time is time held so far', () => {
    const names = (id: number) => (id === 1 ? 'Start Gate' : null);
    const live = hold({
      target: { kind: 'group', id: 1 },
      source: 'live',
      sourceClass: 'live',
      priority: 70,
      mode: 'live',
      since: NOW - 14_000,
      expiresAt: NOW + 3_000,
      action: 'control',
    });
    expect(refusalText({ kind: 'group', id: 1 }, live, { ...ctx('show'), groupName: names })).toBe(
      'Start Gate (group 1) is held by Live control (live, 70) for the last 14 s — wait until it goes quiet (free in 3 s without new commands)',
    );
    expect(
      refusalText({ kind: 'group', id: 2 }, hold({ target: { kind: 'group', id: 1 } }), {
        ...ctx('ui'),
        groupName: names,
      }),
    ).toBe(
      'group 2 is held by the red flag (priority 90) for the last 12 s, as part of Start Gate (group 1) — clear the flag first',
    );
  });

  it('a take-over refused by the red flag', () => {
    expect(takeOverRefusal({ kind: 'group', id: 4 }, hold({}), ctx('ui'))).toBe(
      'target: group 4 is held by the red flag (priority 90) for the last 12 s, above the take-over priority (85) — clear the flag first',
    );
  });

  it('durations read as a person would say them', () => {
    expect([ago(0), ago(59_400), ago(60_000), ago(3_600_000), ago(3_660_000)]).toEqual([
      '1 s',
      '59 s',
      '1 min',
      '1 h',
      '1 h 1 min',
    ]);
  });
});
