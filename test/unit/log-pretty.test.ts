import { describe, expect, it } from 'vitest';
import { prettyLine } from '../../src/log-pretty.ts';

describe('pretty log lines', () => {
  it('turns a pino json line into time, level, module, message and fields', () => {
    const t = new Date(2026, 0, 2, 3, 4, 5).getTime();
    const line = JSON.stringify({
      level: 40,
      time: t,
      app: 'lightnet',
      mod: 'scenes',
      msg: 'scene action failed',
      index: 2,
      failures: ['x y'],
    });
    expect(prettyLine(line)).toBe('03:04:05 WARN  scenes  scene action failed  index=2 failures=["x y"]');
  });

  it('quotes strings with spaces, colours only when asked, passes non-json through', () => {
    const line = JSON.stringify({ level: 50, time: 0, msg: 'boom', err: 'no such port' });
    expect(prettyLine(line)).toMatch(/ERROR boom {2}err="no such port"$/);
    expect(prettyLine(line, true)).toContain('\x1b[31mERROR\x1b[0m');
    expect(prettyLine('not json')).toBe('not json');
  });
});
