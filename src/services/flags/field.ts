/**
 * One look over the whole field, on every network: a CONTROL broadcast to all groups, sent
 * twice — without and with OFFSET_MODE — because a node in offset mode drops a frame whose
 * flag does not match its state (wire §8.11.1), and a flag must reach every node whatever
 * mode a scene left it in (as Blackout does). All networks are handed their frames in the
 * same turn; a network whose gateway is missing fails at once and is named.
 *
 * Red (urgent) is a safety send: its frames are repeated a little later unless a later command
 * went out (race/safety-repeats.ts). Each frame that leaves the antenna is told to `onSent` at
 * once — in the order the air carried it, as a control's rows are written — so what the rows
 * say follows the air and a later command's rows always win.
 */
import type { NetworkRouter } from '../../gateway/network-parts.ts';
import type { GatewayDriver, TxOutcome } from '../../gateway/types.ts';
import { FLAG, buildControlFlags } from '../../protocol/flags.ts';
import { BROADCAST, type M2NRequest, type Rgb } from '../../protocol/types.ts';
import { hexToRgb } from '../integration/laps/index.ts';
import type { SafetyCheck, SafetySender } from '../race/index.ts';
import type { FlagLook } from './looks.ts';

const ALL_GROUPS = 255;
const DEADLINE_MS = 10_000;

export interface FieldReport {
  /** Frames the gateways transmitted. */
  sent: number;
  frames: number;
  errors: string[];
}

/** The two frames of a look (the same fields, OFFSET_MODE off and on). */
export function lookFrames(look: FlagLook): M2NRequest[] {
  const color: Rgb = hexToRgb(look.color);
  const fields = { mode: look.effect, brightness: look.brightness, color1: color };
  const flags = buildControlFlags(0, look.brightness);
  return [
    { op: 'CONTROL', groupId: ALL_GROUPS, flags, fields },
    { op: 'CONTROL', groupId: ALL_GROUPS, flags: flags | FLAG.OFFSET_MODE, fields },
  ];
}

/** A frame of the look left the antenna (`network`: its network, when several run). */
export type OnFrameSent = (request: M2NRequest, network: number | undefined) => void;

export interface FieldSender {
  send(
    requests: readonly M2NRequest[],
    priority: 'urgent' | 'interactive',
    onSent?: OnFrameSent,
    /** An urgent look: whether a node's status reply shows it (a node that does not is re-sent it). */
    shows?: SafetyCheck['shows'],
  ): Promise<FieldReport>;
}

export function fieldSender(
  driver: GatewayDriver,
  router?: NetworkRouter,
  repeats?: SafetySender,
): FieldSender {
  /** One round: every frame to every network, each told to `tell` as it leaves the antenna. */
  async function round(
    requests: readonly M2NRequest[],
    priority: 'urgent' | 'interactive',
    tell: OnFrameSent | undefined,
  ): Promise<FieldReport> {
    const opts = { priority, deadlineMs: DEADLINE_MS };
    const all = (d: GatewayDriver, network?: number): Promise<TxOutcome[]> =>
      Promise.all(
        requests.map((r) =>
          d.send(BROADCAST, r, opts).then((o) => {
            if (o.ok) tell?.(r, network);
            return o;
          }),
        ),
      );
    const networks = router?.networks() ?? null;
    if (!networks || !router) {
      const outs = await all(driver);
      const errors = outs.flatMap((o) => (o.ok ? [] : [o.detail]));
      return { sent: outs.length - errors.length, frames: outs.length, errors };
    }
    const parts = await Promise.all(
      networks.map(async (n) => {
        const r = router.route(n.id);
        if (!r.ok) return { sent: 0, frames: requests.length, errors: [`${n.name}: ${r.error}`] };
        const outs = await all(r.driver, n.id);
        const errors = outs.flatMap((o) => (o.ok ? [] : [`${n.name}: ${o.detail}`]));
        return { sent: outs.length - errors.length, frames: outs.length, errors };
      }),
    );
    return {
      sent: parts.reduce((s, p) => s + p.sent, 0),
      frames: parts.reduce((s, p) => s + p.frames, 0),
      errors: parts.flatMap((p) => p.errors),
    };
  }

  return {
    send(requests, priority, onSent, shows) {
      if (priority !== 'urgent' || !repeats) return round(requests, priority, onSent);
      // Only the first round is told: a repeat shows nothing new (and is never sent after a
      // later command, whose rows it would otherwise overwrite).
      let first = true;
      const check: SafetyCheck | undefined = shows && {
        shows,
        resend: (addr) =>
          Promise.all(requests.map((r) => driver.send(addr, r, { priority, deadlineMs: DEADLINE_MS }))),
      };
      return repeats.send(
        'red flag',
        () => {
          const tell = first ? onSent : undefined;
          first = false;
          return round(requests, priority, tell);
        },
        check,
      );
    },
  };
}
