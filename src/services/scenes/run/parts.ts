/**
 * One action across several networks: each network's frames in order through its own
 * gateway, the networks in parallel; the action ends when every network is done (the
 * barrier before the next action). A network whose gateway is missing fails at once as
 * `degraded` naming it (`gateway_missing: Track B`) — never a wait — and, unlike a send
 * error, does not stop the scene: the other track goes on. So does one whose gateway an RF
 * task holds off its channel (`offchannel: the gateway of Track B is scanning channels …`).
 */
import type { NetworkRouter } from '../../../gateway/network-parts.ts';
import type { GatewayDriver } from '../../../gateway/types.ts';
import type { PlannedAction, PlannedFrame, PlannedPart } from '../plan/planner.ts';
import type { FrameError, NetworkPartResult } from './types.ts';

export interface PartsOutcome {
  state: 'ok' | 'error' | 'degraded' | 'cancelled';
  error: string | null;
  sent: PlannedFrame[];
  /** Send errors (they count for stop_on_error). */
  errors: string[];
  /** Networks that sent nothing on purpose or by absence. */
  degraded: string[];
  networks: NetworkPartResult[];
}

type SendFrame = (driver: GatewayDriver, f: PlannedFrame) => Promise<FrameError | null>;

async function runPart(
  part: PlannedPart,
  router: NetworkRouter,
  signal: AbortSignal,
  send: SendFrame,
  sent: PlannedFrame[],
): Promise<NetworkPartResult> {
  const base = { network_id: part.network, frames_planned: part.frames.length };
  if (part.degraded) return { ...base, ok: false, state: 'degraded', error: part.degraded, frames_sent: 0 };
  const route = router.route(part.network);
  if (!route.ok && part.frames.length > 0)
    return { ...base, ok: false, state: 'degraded', error: route.error, frames_sent: 0 };
  // Leased off its channel by an RF task (scan, rescue, migration): its share fails at once
  // with the lease's text, degraded like a missing gateway's (Blackout waits instead).
  const leased = route.ok && part.frames.length > 0 ? (route.driver.offchannel?.() ?? null) : null;
  if (leased !== null) return { ...base, ok: false, state: 'degraded', error: leased, frames_sent: 0 };
  let n = 0;
  const failures: string[] = [];
  let offchannel: string | null = null;
  for (const f of part.frames) {
    if (signal.aborted) return { ...base, ok: false, state: 'cancelled', error: 'cancelled', frames_sent: n };
    const err: FrameError | null = route.ok
      ? await send(route.driver, f)
      : { text: 'no route', offchannel: false };
    if (err === null) {
      n++;
      sent.push(f);
    } else if (err.offchannel) offchannel ??= err.text;
    else failures.push(f.part?.stage === 'offset' ? `offset packet: ${err.text}` : err.text);
  }
  // A lease taken mid-part: the frames after it were refused at once, not failed.
  if (offchannel !== null && failures.length === 0)
    return { ...base, ok: false, state: 'degraded', error: offchannel, frames_sent: n };
  if (failures.length === 0) return { ...base, ok: true, state: 'ok', error: null, frames_sent: n };
  return { ...base, ok: false, state: 'error', error: failures[0] ?? 'failed', frames_sent: n };
}

export async function runParts(
  a: PlannedAction,
  router: NetworkRouter,
  signal: AbortSignal,
  send: SendFrame,
): Promise<PartsOutcome> {
  const sent: PlannedFrame[] = [];
  const networks = await Promise.all((a.parts ?? []).map((p) => runPart(p, router, signal, send, sent)));
  const name = (id: number): string => router.networks()?.find((n) => n.id === id)?.name ?? `network ${id}`;
  const errors = networks.filter((n) => n.state === 'error').map((n) => `${name(n.network_id)}: ${n.error}`);
  const degraded = networks.filter((n) => n.state === 'degraded').map((n) => n.error ?? 'degraded');
  const cancelled = networks.some((n) => n.state === 'cancelled');
  const out = { sent, errors, degraded, networks };
  if (cancelled && errors.length === 0) return { ...out, state: 'cancelled', error: 'cancelled' };
  if (errors.length > 0) {
    const prefix = a.kind === 'offset_group' ? 'offset_group_partial_failure' : 'send_failed';
    return { ...out, state: 'error', error: `${prefix}: ${errors[0]}` };
  }
  if (degraded.length > 0) return { ...out, state: 'degraded', error: degraded.join('; ') };
  return { ...out, state: 'ok', error: null };
}
