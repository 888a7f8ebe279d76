import { describe, expect, it } from 'vitest';
import {
  defaultOverrides,
  parseStartblockRecord,
  readOption,
  writeValueOption,
} from '../../../src/sim/node/config.ts';

describe('node CONFIG options', () => {
  it('reads defaults packed like the write (u16 little-endian)', () => {
    const o = defaultOverrides();
    expect(readOption(0x05, o, null)).toEqual([75, 0, 0, 0]);
    expect(readOption(0x06, o, null)).toEqual([0, 0, 200, 0]);
    expect(readOption(0x07, o, null)).toEqual([0, 0, 0, 0]);
    expect(readOption(0x0a, o, null)).toEqual([0xbc, 0x02, 0, 0]);
  });

  it('method and unknown options are not readable; startblock options only on startblocks', () => {
    const o = defaultOverrides();
    for (const opt of [0x01, 0x02, 0x03, 0x04, 0x0f, 0x80, 0x81, 0x42])
      expect(readOption(opt, o, null)).toBeNull();
    expect(readOption(0x8c, o, null)).toBeNull();
    expect(readOption(0x8c, o, { slots: 1, firstSlot: 1 })).toEqual([1, 0, 0, 0]);
  });

  it('writes clamp where the firmware clamps', () => {
    const o = defaultOverrides();
    const sb = { slots: 1, firstSlot: 1 };
    expect(writeValueOption(0x05, [255, 0, 0, 0], o, null)).toBe(true);
    expect(o.fps).toBe(250);
    writeValueOption(0x07, [10, 0, 0x2c, 0x01], o, null);
    expect(o.seg1).toEqual({ start: 10, stop: 300 });
    writeValueOption(0x8c, [12, 0, 0, 0], o, sb);
    writeValueOption(0x8d, [0, 0, 0, 0], o, sb);
    expect(sb).toEqual({ slots: 8, firstSlot: 1 });
    expect(writeValueOption(0x8c, [2, 0, 0, 0], o, null)).toBe(false);
  });

  it('parses a startblock record v1 from the padded stream buffer', () => {
    const buf = Uint8Array.from([1, 2, 0x52, 0x31, 5, 0x41, 0x6c, 0x69, 0x63, 0x65, 0, 0, 0, 0, 0, 0]);
    expect(parseStartblockRecord(buf)).toEqual({ slot: 2, channel: 'R1', name: 'Alice' });
    expect(parseStartblockRecord(Uint8Array.from([2, 2, 0, 0, 0, 0, 0, 0]))).toBeNull();
  });
});
