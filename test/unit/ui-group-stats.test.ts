import { describe, expect, it } from 'vitest';
import { groupStatsOf } from '../../ui/src/common/group-stats.ts';
import { capsSummary, deviceKind } from '../../ui/src/format.ts';

const LED = ['LED'];
const START = ['LED', 'STARTBLOCK'];
const member = (caps: string[], online = true) => ({
  groupId: 0,
  online,
  network_id: 1,
  dev_type_caps: caps,
});

describe("a group's summary line", () => {
  it('counts-a-start-block-once-so-the-kinds-add-up-to-the-members', () => {
    // The newcomer's group: 11 devices, 2 of them start blocks (which have LEDs too).
    const list = [...Array.from({ length: 9 }, () => member(LED)), member(START), member(START, false)];
    const s = groupStatsOf(list).get(0)!;
    expect(s.total).toBe(11);
    expect(s.online).toBe(10);
    expect(capsSummary(s.kinds)).toBe('9 LED · 2 STARTBLOCK');
    expect(Object.values(s.kinds).reduce((a, b) => a + b, 0)).toBe(s.total);
    // Capabilities still say which groups can run a start-block action (and light LEDs).
    expect(s.caps).toEqual({ LED: 11, STARTBLOCK: 2 });
  });

  it('names-a-device-by-its-most-specific-capability', () => {
    expect(deviceKind(['LED'])).toBe('LED');
    expect(deviceKind(['LED', 'STARTBLOCK'])).toBe('STARTBLOCK');
    expect(deviceKind(['STARTBLOCK', 'LED'])).toBe('STARTBLOCK');
    expect(deviceKind([])).toBeNull();
  });
});
