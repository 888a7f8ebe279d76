import { describe, expect, it } from 'vitest';
import {
  heatBodySchema,
  heatSlots,
  raceChannel,
  type Heat,
} from '../../../src/services/integration/index.ts';
import { startblockName } from '../../../src/services/scenes/plan/fields.ts';
import type { PlanDevice } from '../../../src/services/scenes/plan/planner.ts';
import { planScene } from '../../../src/services/scenes/plan/scene.ts';

const heat = (seats: unknown[]): Heat => ({
  ...heatBodySchema.parse({ heat_id: 1, seats }),
  source: 'rotorhazard',
  received_at_ms: 0,
});

describe('heat from a timing application', () => {
  it('race-channel-is-band-letter-and-channel-else-dashes', () => {
    expect(raceChannel({ band: 'R', channel: 1 })).toBe('R1');
    expect(raceChannel({ band: 'f', channel: 8 })).toBe('F8');
    expect(raceChannel({ band: null, channel: 3 })).toBe('--');
    expect(raceChannel({ band: 'R', channel: null })).toBe('--');
    expect(raceChannel({ band: 'R', channel: 0 })).toBe('--');
  });

  it('seats-become-one-based-display-slots-and-seats-beyond-eight-are-dropped', () => {
    const h = heat([
      { seat: 2, callsign: 'C', band: 'E', channel: 2 },
      { seat: 0, callsign: 'A', band: 'R', channel: 1 },
      { seat: 8, callsign: 'Ninth' },
    ]);
    expect(heatSlots(h)).toEqual([
      { slot: 1, callsign: 'A', racechannel: 'R1' },
      { slot: 3, callsign: 'C', racechannel: 'E2' },
    ]);
    expect(heatSlots(null)).toEqual([]);
  });

  it('start-block-names-drop-accents-instead-of-blanking-letters', () => {
    expect(startblockName('Jäger')).toBe('JAGER');
    expect(startblockName('Straße Zoë')).toBe('STRASSE ZOE');
    expect(startblockName('a/b')).toBe('A B');
  });

  it('planner-fills-current-heat-startblock-records-and-keeps-an-explicit-list', () => {
    const devices: PlanDevice[] = [
      {
        addr: 'A00001',
        groupId: 1,
        groupPending: false,
        brightness: 128,
        startblock: { first: 1, slots: 2 },
      },
    ];
    const ctx = {
      devices,
      optimize: true,
      preset: () => undefined,
      heatSlots: heatSlots(heat([{ seat: 0, callsign: 'Ace', band: 'R', channel: 1 }])),
    };
    const [a] = planScene(
      [{ kind: 'startblock', target: { kind: 'broadcast' }, params: { fn_key: 'startblock_control' } }],
      ctx,
    );
    const payloads = (a?.frames ?? []).map((f) =>
      f.request.op === 'STREAM' ? Array.from(f.request.payload) : [],
    );
    // ver, slot, 'R','1', len 3, 'ACE'
    expect(payloads[0]).toEqual([1, 1, 82, 49, 3, 65, 67, 69]);
    // Slot 2 has no seat: cleared.
    expect(payloads[1]).toEqual([1, 2, 45, 45, 0]);
    const [b] = planScene(
      [
        {
          kind: 'startblock',
          target: { kind: 'broadcast' },
          params: {
            fn_key: 'startblock_control',
            startblock_use_current_heat: false,
            startblock_slot_list: [{ slot: 2, callsign: 'X', racechannel: 'A1' }],
          },
        },
      ],
      ctx,
    );
    const explicit = (b?.frames ?? []).map((f) =>
      f.request.op === 'STREAM' ? Array.from(f.request.payload) : [],
    );
    expect(explicit[0]).toEqual([1, 1, 45, 45, 0]);
    expect(explicit[1]).toEqual([1, 2, 65, 49, 1, 88]);
  });
});
