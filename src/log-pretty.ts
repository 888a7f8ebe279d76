/**
 * Log lines for a person at a terminal: `12:04:31 INFO  scenes  scene run ended  ok=true`.
 * pino writes JSON; when stdout is a TTY the host hands pino this stream instead, so a
 * service manager or a pipe still gets one JSON object per line.
 */
const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO ',
  40: 'WARN ',
  50: 'ERROR',
  60: 'FATAL',
};
const COLOURS: Record<number, string> = { 20: '\x1b[90m', 40: '\x1b[33m', 50: '\x1b[31m', 60: '\x1b[31m' };
const SKIP = new Set(['level', 'time', 'msg', 'app', 'mod', 'pid', 'hostname']);

const show = (v: unknown): string =>
  typeof v === 'string' ? (/\s/.test(v) || v === '' ? JSON.stringify(v) : v) : JSON.stringify(v);

/** One pino JSON line → one readable line (a line that is not JSON passes through). */
export function prettyLine(line: string, colour = false): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const level = typeof o.level === 'number' ? o.level : 30;
  const t = typeof o.time === 'number' ? new Date(o.time) : new Date();
  const hh = [t.getHours(), t.getMinutes(), t.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
  const fields = Object.entries(o)
    .filter(([k]) => !SKIP.has(k))
    .map(([k, v]) => `${k}=${show(v)}`)
    .join(' ');
  const mod = typeof o.mod === 'string' ? `${o.mod.padEnd(7)} ` : '';
  const lvl = LEVELS[level] ?? String(level);
  const head = colour && COLOURS[level] ? `${COLOURS[level]}${lvl}\x1b[0m` : lvl;
  return `${hh} ${head} ${mod}${String(o.msg ?? '')}${fields ? `  ${fields}` : ''}`;
}

/** A pino destination that prints pretty lines to `out` (process.stdout by default). */
export function prettyStream(out: NodeJS.WriteStream = process.stdout): { write(chunk: string): void } {
  const colour = out.isTTY === true && !process.env.NO_COLOR;
  return {
    write(chunk: string) {
      for (const line of chunk.split('\n')) if (line) out.write(prettyLine(line, colour) + '\n');
    },
  };
}
