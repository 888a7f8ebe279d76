/**
 * The shared liveliness of a timer source (RotorHazard, FPVTrackside): events per minute
 * over 60 one-second buckets, "connected" for 10 minutes after the last event.
 */
import { describe, expect, it } from 'vitest';
import { CONNECTED_MS, SourceActivity } from '../../../src/services/integration/timers/source-activity.ts';

describe('source activity', () => {
  it('counts the events of the last 60 whole seconds and forgets older ones', () => {
    const a = new SourceActivity();
    const t0 = 1_700_000_000_000;
    expect(a.perMinute(t0)).toBe(0);
    expect(a.connected(t0)).toBe(false);
    expect(a.lastHeard).toBeNull();
    for (let i = 0; i < 100; i++) a.heard(t0 + i * 10); // 100 events/s for one second
    a.heard(t0 + 30_000);
    expect(a.perMinute(t0 + 30_000)).toBe(101);
    expect(a.lastHeard).toBe(t0 + 30_000);
    // The first second's bucket is 60 s old: gone; the later one stays.
    expect(a.perMinute(t0 + 60_000)).toBe(1);
    // A bucket reused a minute later starts afresh instead of adding to the old count.
    a.heard(t0 + 60_500);
    expect(a.perMinute(t0 + 60_500)).toBe(2);
    expect(a.perMinute(t0 + 200_000)).toBe(0);
  });

  it('is connected until ten minutes of silence', () => {
    const a = new SourceActivity();
    a.heard(1000);
    expect(a.connected(1000 + CONNECTED_MS - 1)).toBe(true);
    expect(a.connected(1000 + CONNECTED_MS)).toBe(false);
  });
});
