/**
 * The Race lights page's form: the PUT body it builds from what is typed, and the host's
 * 400 mapped back to the field on the page (the host numbers the rows it was sent, the page
 * shows seats 1–8).
 */
import { describe, expect, it } from 'vitest';
import { bodyOf, draftOf, fieldLabel, fieldOfError, unchosenGates } from '../../ui/src/racelights/draft.ts';
import type { Settings } from '../../ui/src/racelights/types.ts';

const settings: Settings = {
  enabled: true,
  all_seats_gate: { kind: 'group', value: 2 },
  seats: [{ seat: 4, gate: { kind: 'device', value: 'A1B2C3' }, color: '#ff0000' }],
  timing_systems: [{ index: 1, gate: { kind: 'broadcast' } }],
  finish_gate: null,
  flash: { effect: 84, length_ms: 800, brightness: 255, holeshot: true },
  start_lead_ms: null,
  phases: { staging: { enabled: true, scene: null }, countdown: { enabled: false, scene: 'beeps' } },
};

describe('race lights page form', () => {
  it('round-trips-the-settings-and-sends-only-seats-with-a-gate-or-colour', () => {
    const { body, seatAt } = bodyOf(draftOf(settings));
    expect(body).toEqual(settings);
    expect(seatAt).toEqual([4]);
  });

  it('sends-what-was-typed-for-the-host-to-judge', () => {
    const d = draftOf(settings);
    (d.seats[1] as { gate: { kind: string; value: string } }).gate = { kind: 'group', value: '99' };
    d.flash.length_ms = 'abc';
    const { body, seatAt } = bodyOf(d);
    expect(seatAt).toEqual([1, 4]);
    expect((body.seats as unknown[])[0]).toEqual({
      seat: 1,
      gate: { kind: 'group', value: 99 },
      color: null,
    });
    expect((body.flash as { length_ms: unknown }).length_ms).toBe('abc');
  });

  it('maps-the-hosts-error-to-the-field-on-the-page', () => {
    const seatAt = [1, 4];
    expect(fieldOfError('seats[0].gate: no group 99', seatAt)).toEqual({
      key: 'seat.1.gate',
      message: 'no group 99',
    });
    expect(fieldOfError('seats[1].gate.value: must be a device address (6 hex digits)', seatAt).key).toBe(
      'seat.4.gate',
    );
    expect(fieldOfError('seats[1].color: must be a colour like #ff0000', seatAt).key).toBe('seat.4.color');
    expect(fieldOfError('timing_systems[0].index: timing system listed twice', seatAt).key).toBe(
      'ts.0.index',
    );
    expect(fieldOfError('all_seats_gate.value: must be <= 254', seatAt).key).toBe('all_seats_gate');
    expect(fieldOfError('phases.countdown.scene: no scene beeps', seatAt).key).toBe('phases.countdown.scene');
    expect(fieldOfError('Connection to host lost', seatAt)).toEqual({
      key: null,
      message: 'Connection to host lost',
    });
    expect(fieldLabel('seat.1.gate')).toBe('Seat 2 gate');
    expect(fieldLabel('phases.crash_out.scene')).toBe('Phase crash out');
  });

  it('names the gates set to a group or device with none chosen, in words, in page order', () => {
    const d = draftOf(settings);
    expect(unchosenGates(d)).toEqual([]);
    d.all_seats_gate = { kind: 'group', value: '' };
    (d.seats[2] as (typeof d.seats)[number]).gate = { kind: 'device', value: ' ' };
    (d.timing_systems[0] as (typeof d.timing_systems)[number]).gate = { kind: 'group', value: '' };
    expect(unchosenGates(d)).toEqual([
      { key: 'all_seats_gate', message: "Choose a group for 'Gate of all seats'" },
      { key: 'seat.2.gate', message: "Choose a device for 'Seat 3'" },
      { key: 'ts.0.gate', message: "Choose a group for 'Timing system 1'" },
    ]);
  });
});
