/**
 * Names and labels people type (device and group names, preset and scene labels): shown
 * in the UI, the log and on other operators' screens. Control characters (NUL, BEL, line
 * breaks, C1) and the bidirectional overrides and isolates (which make "evil.bin" read as
 * "nib.live") are refused, and so are lone UTF-16 surrogates, which no encoder can write
 * out. Lengths count code points, as a person counts characters (an emoji is one).
 */
import { ValidationError } from '../errors.ts';

// eslint-disable-next-line no-control-regex -- the point is to find control characters
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Characters as a person counts them (code points, not UTF-16 units). */
export const codePointLength = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/** Why this text cannot be a name, or null when it can. */
export function nameProblem(s: string, max: number): string | null {
  if (LONE_SURROGATE.test(s)) return 'must be valid Unicode text (a lone surrogate was found)';
  if (CONTROL.test(s)) return 'must not contain control characters';
  if (BIDI.test(s)) return 'must not contain text-direction control characters';
  if (codePointLength(s) > max) return `at most ${max} characters`;
  return null;
}

/** The trimmed text, or a ValidationError naming the field (blank names are refused). */
export function checkName(value: string, field: string, max: number): string {
  const clean = value.trim();
  if (!clean) throw new ValidationError(`${field}: must not be empty`);
  const problem = nameProblem(clean, max);
  if (problem) throw new ValidationError(`${field}: ${problem}`);
  return clean;
}

const LONE_SURROGATE_ALL = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
// eslint-disable-next-line no-control-regex -- removing control characters is the point
const UNSAFE_ALL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;

/**
 * Text from another program made fit for a name: control and text-direction characters
 * removed, then cut to `max` code points at a character boundary (a cut never splits an
 * emoji's surrogate pair, and prefers to end between whole graphemes: a flag or a family
 * emoji is kept whole or dropped whole). Says what it changed, for an import report.
 */
export function fitName(value: string, max: number): { text: string; cut: boolean; cleaned: boolean } {
  const clean = value.replace(UNSAFE_ALL, '').replace(LONE_SURROGATE_ALL, '').trim();
  const cleaned = clean !== value.trim();
  if (codePointLength(clean) <= max) return { text: clean, cut: false, cleaned };
  let out = '';
  let n = 0;
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(clean)) {
    const len = codePointLength(segment);
    if (n + len > max) break;
    out += segment;
    n += len;
  }
  // A single grapheme longer than the limit (pathological): fall back to code points.
  if (!out) out = Array.from(clean).slice(0, max).join('');
  return { text: out.trimEnd(), cut: true, cleaned };
}
