/**
 * Blackout (race-day "all off"): the one action that must work whatever else is going
 * on. It stops the running scene and asks the running task to stop — both are
 * synchronous requests, so nothing queued by them can overtake what follows — then
 * broadcasts brightness 0 to every group at urgent priority, ahead of anything queued
 * (scene frames, lap flashes, bulk task traffic).
 *
 * Two frames go out: nodes in offset mode drop a PRESET whose OFFSET_MODE flag does not
 * match their state (wire §8.11.1), so one frame without and one with the flag reaches
 * every node whichever mode it was left in.
 *
 * The pair is repeated a little later (race/safety-repeats.ts) unless a later command went out
 * meanwhile: a node that missed the one broadcast still goes dark. The answer waits only for
 * the first pair.
 *
 * Several gateways: both frames go to EVERY network, whatever a scene's scope, all handed to
 * their gateways in the same turn (in parallel). A network whose gateway is missing fails
 * at once (`gateway_missing: <name>`) and is listed; the others go out regardless.
 */
import type { NetworkRouter } from '../../gateway/network-parts.ts';
import type { GatewayDriver, TxOutcome } from '../../gateway/types.ts';
import type { Logger } from '../../logger.ts';
import { FLAG } from '../../protocol/flags.ts';
import { BROADCAST } from '../../protocol/types.ts';
import type { Store } from '../../state/store.ts';
import type { SafetyCheck, SafetySender } from './safety-repeats.ts';

export interface BlackoutDeps {
  driver: GatewayDriver;
  /** Several gateways: every network's gateway (absent or one gateway: the driver). */
  router?: NetworkRouter;
  store: Store;
  log: Logger;
  /** Stops the running scene (no-op when none runs). */
  cancelScene(): { cancelled: boolean; scene: string | null };
  /** Asks the running task to stop; its name, or null when none runs. */
  cancelTask(): string | null;
  /** Drops waiting race-light flashes and makes their gates return to dark (absent: none). */
  stopFlashes?(): void;
  /** Records the last gateway-side event for the status bar. */
  note(event: string): void;
  /** Sends a round now and repeats it later (absent: once). */
  repeats?: SafetySender;
}

type NetworkPart = { network_id: number; name: string; sent: number; error: string | null };

export interface BlackoutReport {
  /** Off frames the gateway transmitted (of 2). */
  sent: number;
  frames: number;
  scene_cancelled: string | null;
  task_cancelled: string | null;
  errors: string[];
  /** Several gateways: each network's share (frames sent of 2, its error). */
  networks?: { network_id: number; name: string; sent: number; error: string | null }[];
}

const ALL_GROUPS = 255;
const DEADLINE_MS = 10_000;

export class BlackoutService {
  constructor(private readonly deps: BlackoutDeps) {}

  async blackout(): Promise<BlackoutReport> {
    const { driver, log } = this.deps;
    const scene = this.deps.cancelScene();
    const task = this.deps.cancelTask();
    this.deps.stopFlashes?.();
    const opts = { priority: 'urgent' as const, deadlineMs: DEADLINE_MS };
    const frame = (d: GatewayDriver, flags: number) =>
      d.send(BROADCAST, { op: 'PRESET', groupId: ALL_GROUPS, flags, presetId: 0, brightness: 0 }, opts);
    // Both frames are queued at once: the second does not wait for the first's outcome.
    const both = (d: GatewayDriver): Promise<TxOutcome[]> =>
      Promise.all([frame(d, 0), frame(d, FLAG.OFFSET_MODE)]);
    const networks = this.deps.router?.networks() ?? null;
    const base = { scene_cancelled: scene.cancelled ? scene.scene : null, task_cancelled: task };
    // A node whose status reply later says it is lit is sent the pair alone (through the
    // driver: with several gateways, the one of its network).
    const check: SafetyCheck = {
      shows: (reply) => reply.brightness === 0,
      resend: (addr) => Promise.all([0, FLAG.OFFSET_MODE].map((flags) => unicast(addr, flags))),
    };
    const unicast = (addr: string, flags: number) =>
      driver.send(addr, { op: 'PRESET', groupId: ALL_GROUPS, flags, presetId: 0, brightness: 0 }, opts);
    const once = <T>(round: () => Promise<T>): Promise<T> =>
      this.deps.repeats ? this.deps.repeats.send('blackout', round, check) : round();
    let report: BlackoutReport;
    if (!networks) {
      const outcomes = await once(() => both(driver));
      const errors = outcomes.flatMap((o) => (o.ok ? [] : [o.detail]));
      const sent = outcomes.length - errors.length;
      if (sent > 0) this.darken(null);
      report = { sent, frames: outcomes.length, ...base, errors };
    } else {
      const router = this.deps.router as NetworkRouter;
      const parts = await once(() =>
        Promise.all(
          networks.map(async (n): Promise<NetworkPart> => {
            const r = router.route(n.id);
            if (!r.ok) return { network_id: n.id, name: n.name, sent: 0, error: r.error };
            const outcomes = await both(r.driver);
            const bad = outcomes.find((o) => !o.ok);
            const sent = outcomes.filter((o) => o.ok).length;
            return {
              network_id: n.id,
              name: n.name,
              sent,
              error: bad && !bad.ok ? `${n.name}: ${bad.detail}` : null,
            };
          }),
        ),
      );
      const reached = parts.filter((p) => p.sent > 0).map((p) => p.network_id);
      if (reached.length > 0) this.darken(reached);
      report = {
        sent: parts.reduce((n, p) => n + p.sent, 0),
        frames: parts.length * 2,
        ...base,
        errors: parts.flatMap((p) => (p.error ? [p.error] : [])),
        networks: parts,
      };
    }
    log.warn(report, 'blackout');
    return report;
  }

  /** The device rows follow (only the networks reached, when several). */
  private darken(networks: readonly number[] | null): void {
    this.deps.store.mutate(['DEVICES'], (s) => {
      for (const d of s.devices) {
        if (networks && !networks.includes(d.network_id)) continue;
        d.brightness = 0;
        d.flags = 0;
      }
    });
    this.deps.note('BLACKOUT_SENT');
  }
}
