/**
 * The OSC address space (docs/operators/flags-and-osc.md): one decoded message → one
 * command, or why it is not one. Pure: no I/O, no state.
 *
 * Trigger addresses (blackout, flags, scene run/stop, group off) act on a press: a first
 * argument of 0 or false is a button's release (TouchOSC sends 1 on press, 0 on release)
 * and does nothing. Numbers may come as int, float or a numeric string (Companion sends
 * what its text field holds); they are rounded and must be in range.
 */
import { FLAG_ACTIONS, type FlagAction } from '../flags/index.ts';

export type OscArg = number | string | boolean | null | Uint8Array | bigint | object;

export type OscCommand =
  | { kind: 'blackout' }
  | { kind: 'flag'; action: FlagAction }
  | { kind: 'scene_run'; key: string }
  | { kind: 'scene_stop' }
  | { kind: 'group_preset'; group: number; preset: number; brightness: number }
  | { kind: 'group_color'; group: number; rgb: [number, number, number]; brightness: number }
  | { kind: 'group_off'; group: number }
  /** Feedback to this sender's address at `port` (absent: the port it sent from). */
  | { kind: 'subscribe'; port: number | null }
  | { kind: 'unsubscribe' }
  /** Send every feedback value now (a surface that just opened). */
  | { kind: 'refresh' };

export type OscParse =
  | { ok: true; command: OscCommand }
  /** A button's release: nothing to do, not an error. */
  | { ok: true; command: null }
  | { ok: false; reason: 'unknown_address' | 'bad_args'; detail: string };

export const OSC_ROOT = '/lightnet';
const SCENE_KEY = /^[A-Za-z0-9_-]{1,64}$/;

class ArgError extends Error {}

/** A number in [min, max] from an int, a float or a numeric string (rounded). */
function num(args: readonly OscArg[], i: number, name: string, min: number, max: number): number {
  const v = args[i];
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (!Number.isFinite(n)) throw new ArgError(`${name}: must be a number`);
  const r = Math.round(n);
  if (r < min || r > max) throw new ArgError(`${name}: must be between ${min} and ${max}`);
  return r;
}

const optNum = (args: readonly OscArg[], i: number, name: string, min: number, max: number, dflt: number) =>
  args.length > i ? num(args, i, name, min, max) : dflt;

/** A press, or a release (a first argument of 0 / false / "0"). */
const released = (args: readonly OscArg[]): boolean => {
  const v = args[0];
  return v === 0 || v === false || v === '0';
};

export function parseOsc(address: string, args: readonly OscArg[]): OscParse {
  if (address !== OSC_ROOT && !address.startsWith(`${OSC_ROOT}/`))
    return { ok: false, reason: 'unknown_address', detail: `${address}: not under ${OSC_ROOT}/` };
  const parts = address.slice(OSC_ROOT.length + 1).split('/');
  const press = (command: OscCommand): OscParse => ({ ok: true, command: released(args) ? null : command });
  const unknown: OscParse = { ok: false, reason: 'unknown_address', detail: `${address}: unknown address` };
  try {
    const [head, a, b, ...rest] = parts;
    if (head === 'blackout' && a === undefined) return press({ kind: 'blackout' });
    if (head === 'flag' && a !== undefined && b === undefined) {
      if (!(FLAG_ACTIONS as readonly string[]).includes(a))
        return {
          ok: false,
          reason: 'unknown_address',
          detail: `${address}: flag must be one of ${FLAG_ACTIONS.join(', ')}`,
        };
      return press({ kind: 'flag', action: a as FlagAction });
    }
    if (head === 'scene' && a === 'stop' && b === undefined) return press({ kind: 'scene_stop' });
    if (head === 'scene' && a !== undefined && b === 'run' && rest.length === 0) {
      if (!SCENE_KEY.test(a)) return { ok: false, reason: 'bad_args', detail: `${address}: not a scene key` };
      return press({ kind: 'scene_run', key: a });
    }
    if (head === 'group' && a !== undefined && b !== undefined && rest.length === 0) {
      if (!/^\d{1,3}$/.test(a) || Number(a) > 254)
        return { ok: false, reason: 'bad_args', detail: `${address}: group must be a number 0..254` };
      const group = Number(a);
      if (b === 'off') return press({ kind: 'group_off', group });
      if (b === 'preset')
        return {
          ok: true,
          command: {
            kind: 'group_preset',
            group,
            preset: num(args, 0, 'preset', 0, 255),
            brightness: optNum(args, 1, 'brightness', 0, 255, 255),
          },
        };
      if (b === 'color') {
        const rgb: [number, number, number] = [
          num(args, 0, 'r', 0, 255),
          num(args, 1, 'g', 0, 255),
          num(args, 2, 'b', 0, 255),
        ];
        return {
          ok: true,
          command: {
            kind: 'group_color',
            group,
            rgb,
            brightness: optNum(args, 3, 'brightness', 0, 255, 255),
          },
        };
      }
      return unknown;
    }
    if (head === 'subscribe' && a === undefined)
      return {
        ok: true,
        command: { kind: 'subscribe', port: args.length > 0 ? num(args, 0, 'port', 1, 65535) : null },
      };
    if (head === 'unsubscribe' && a === undefined) return { ok: true, command: { kind: 'unsubscribe' } };
    if (head === 'refresh' && a === undefined) return { ok: true, command: { kind: 'refresh' } };
    return unknown;
  } catch (err) {
    if (err instanceof ArgError)
      return { ok: false, reason: 'bad_args', detail: `${address}: ${err.message}` };
    throw err;
  }
}
