/**
 * One look over the whole field, on every network: a CONTROL broadcast to all groups, sent
 * twice — without and with OFFSET_MODE — because a node in offset mode drops a frame whose
 * flag does not match its state (wire §8.11.1), and a flag must reach every node whatever
 * mode a scene left it in (as Blackout does). All networks are handed their frames in the
 * same turn; a network whose gateway is missing fails at once and is named.
 */
import type { NetworkRouter } from '../../gateway/network-parts.ts';
import type { GatewayDriver, TxOutcome } from '../../gateway/types.ts';
import { FLAG, buildControlFlags } from '../../protocol/flags.ts';
import { BROADCAST, type M2NRequest, type Rgb } from '../../protocol/types.ts';
import { hexToRgb } from '../integration/laps/index.ts';
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

export interface FieldSender {
  send(requests: readonly M2NRequest[], priority: 'urgent' | 'interactive'): Promise<FieldReport>;
}

export function fieldSender(driver: GatewayDriver, router?: NetworkRouter): FieldSender {
  return {
    async send(requests, priority) {
      const opts = { priority, deadlineMs: DEADLINE_MS };
      const all = (d: GatewayDriver): Promise<TxOutcome[]> =>
        Promise.all(requests.map((r) => d.send(BROADCAST, r, opts)));
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
          const outs = await all(r.driver);
          const errors = outs.flatMap((o) => (o.ok ? [] : [`${n.name}: ${o.detail}`]));
          return { sent: outs.length - errors.length, frames: outs.length, errors };
        }),
      );
      return {
        sent: parts.reduce((s, p) => s + p.sent, 0),
        frames: parts.reduce((s, p) => s + p.frames, 0),
        errors: parts.flatMap((p) => p.errors),
      };
    },
  };
}
