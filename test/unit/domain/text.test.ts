import { describe, expect, it } from 'vitest';
import { checkName, codePointLength, nameProblem } from '../../../src/domain/text.ts';

describe('names people type', () => {
  it('counts code points, not UTF-16 units', () => {
    expect(codePointLength('🏁🏁')).toBe(2);
    expect(nameProblem('🏁'.repeat(64), 64)).toBeNull();
    expect(nameProblem('🏁'.repeat(65), 64)).toBe('at most 64 characters');
  });

  it.each([
    ['\u0000'],
    ['\u0007'],
    ['\t'],
    ['\u007f'],
    ['\u009b'],
    ['\u202a'],
    ['\u202e'],
    ['\u2066'],
    ['\u2069'],
    ['\u200f'],
    ['\ud800'],
    ['\udfff'],
  ])('refuses %j inside a name', (c) => {
    expect(nameProblem(`a${c}b`, 64)).not.toBeNull();
  });

  it('trims, refuses blanks and names the field', () => {
    expect(checkName('  Gate 1 ', 'name', 64)).toBe('Gate 1');
    expect(() => checkName('   ', 'label', 64)).toThrow('label: must not be empty');
    expect(() => checkName('x\u0000', 'name', 64)).toThrow('name: must not contain control characters');
    expect(checkName('Ziel – Süd ✓ 日本', 'name', 64)).toBe('Ziel – Süd ✓ 日本');
  });
});
