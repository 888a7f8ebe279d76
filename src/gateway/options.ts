/**
 * Every timeout, window and retry count of the driver, in one place. All values are
 * virtual milliseconds (they go through the Clock), so a scaled test clock shrinks
 * them all alike. Sources: wire-protocol.md §4.4 and §9.2 (host v0.1.5 constants),
 * host-behaviour.md §3.6 and §3.9, decisions.md §6.
 *
 * Reply windows and the active RF settings: every reply window below is the §9.2 value,
 * which the original host sized for SF7/125 kHz (a reply takes 41–51 ms on air there). At
 * slower settings the driver stretches each one (reply-windows.ts) by the extra radio time
 * of the replies it must cover, where one reply "slot" is the node's 4-symbol CAD plus the
 * reply packet and G = slot(active) − slot(SF7/125 kHz, CR 4/5, preamble 8), never < 0:
 *   - unicast per-attempt windows (status, SET_GROUP, CONFIG, GET_CONFIG, caller
 *     overrides too) and idle gaps: value + 2·G (the reply itself, plus one more packet of
 *     the same size: a collided reply, or a foreign packet the node's LBT backs off from);
 *   - discovery ceiling: value + G (nodes give up replies they could not start within 5 s,
 *     a firmware constant, so only the last reply's extra airtime is added);
 *   - status / STREAM ceilings: min(max + G, base + G + n·(perNode + G)) (every expected
 *     reply needs its own slot; n = 1 gives the unicast window).
 * The fixed parts (node delay 50–300 ms, USB, margins) do not grow: multiplying whole
 * windows by the airtime ratio (×25 at SF12) would make a silent node cost ~29 s per poll.
 * At SF7/125 kHz G = 0, so the windows are exactly the §9.2 values. Windows at 125 kHz
 * (ms, rounded up; SF7 → SF10 → SF12): status unicast 1150 → 1775 → 3622; SET_GROUP /
 * CONFIG per attempt 1500 → 2053 → 3654; GET_CONFIG 1500 → 2053 → 3982; discovery max
 * 5000 → 5307 → 6395, idle 600 → 1214 → 3389; status idle 600 → 1225 → 3072; status
 * max(n) min(5000, 1000 + 150n) → min(5313, 1313 + 462.1n) → min(6236, 2236 + 1385.7n);
 * STREAM ACK max(n) min(6000, 1000 + 150n) → min(6277, 1277 + 426.2n) → min(7077, 2077 +
 * 1227n), plus the later fragments' airtime.
 */
export interface DriverOptions {
  // ── One frame in flight ───────────────────────────────────────────────────────
  /**
   * Wait for EV_TX_DONE / EV_TX_REJECTED after writing an M2N frame (§4.4: 2.0 s). This is
   * the floor: a frame whose airtime at the active RF settings (all STREAM fragments
   * included) is long gets 2 × airtime + 500 ms instead (see rf.ts).
   */
  outcomeGuardMs: number;
  /**
   * A TX_DONE that arrives before the gateway announced the TX state for our frame may
   * belong to an autosync that started just before our write. We hold it this long: if
   * the gateway then enters TX (our frame starting), the held TX_DONE was not ours.
   */
  outcomeConfirmMs: number;
  /** Extra writes of a frame the gateway rejected with TX_REJECT_TXPENDING (§4.4 recommends 1-2). */
  txPendingRetries: number;
  /** Pause before re-writing a TXPENDING-rejected frame. */
  txPendingGapMs: number;
  /**
   * Before writing, wait while the mirrored gateway state is TX (autosync, stream
   * fragments), at most this long; a stale TX mirror is then treated as idle. This is the
   * floor: at slow RF settings the bound is twice the airtime of a full 16-fragment STREAM.
   */
  busyWaitMaxMs: number;
  /** Default deadline of an unsent interactive item (control, indicate, scenes). */
  interactiveDeadlineMs: number;
  /** Default deadline of an unsent bulk item (discovery, status, group pushes). */
  bulkDeadlineMs: number;

  // ── USB-only gateway commands ─────────────────────────────────────────────────
  /** GW_CMD_STATE_REQUEST → EV_STATE_REPORT (§3.2: 0.5 s). */
  stateQueryMs: number;
  /** GW_CMD_GET/SET_RF_CONFIG → EV_RF_CHANGED (answered at once by the gateway). */
  gatewayRfMs: number;
  /**
   * Link-alive check: after this long without a byte from the gateway a state query is
   * sent (0 disables the check). A frozen gateway is declared lost after `aliveMisses`
   * unanswered queries: about aliveCheckMs × aliveMisses + stateQueryMs.
   */
  aliveCheckMs: number;
  aliveMisses: number;

  // ── Discovery (DEVICES broadcast) ─────────────────────────────────────────────
  /** Hard ceiling of one collection round, from the broadcast's TX_DONE (§9.2: 5 s; + G). */
  discoveryMaxMs: number;
  /** A round ends this long after its last IDENTIFY reply (§9.2: 0.6 s; + 2·G). */
  discoveryIdleMs: number;
  /**
   * Rounds are repeated while rounds bring nodes not seen before; this bounds it.
   * Replies collide on the air, so one window never proves the fleet is complete.
   */
  discoveryMaxRounds: number;
  /**
   * Discovery ends after this many consecutive rounds without a new node. Weak nodes lose
   * most overlaps to stronger ones, so a quiet round is no proof. Measured on the simulated
   * 24-node test fleet: ending on a quiet round in which every known node was heard missed
   * its weakest node in 4 of 30 runs; three quiet rounds found every node in 30 of 30.
   * This counts only rounds that had replies: a round without any IDENTIFY traffic at all
   * ends the discovery at once (an empty or fully configured fleet costs one window).
   */
  discoveryQuietRounds: number;
  /** Pause between rounds so that nodes still holding a reply are listening again. */
  discoveryRoundGapMs: number;
  /**
   * Boot announcements (unsolicited IDENTIFY to FFFFFF, see announcements.ts) count as
   * discovered if heard during the discovery itself or at most this long before it
   * started; 0 disables the look-back. Kept short (60 s): an announcement proves the node
   * was there when it booted, not that it still is, and a discovery result should mean
   * "in range now". 60 s covers a fleet switched on just before the operator starts
   * discovery (both announcements go out within ~5 s of boot, §8.6).
   */
  discoveryAnnouncementMaxAgeMs: number;

  /**
   * A node abandons a reply it could not send within this time (§8.5: 5 s) and does not
   * listen until then; follow-up requests wait (bounded by this + G, as a reply started
   * just in time still takes its airtime) for the air to calm down.
   */
  nodeGiveUpMs: number;

  // ── Status poll ───────────────────────────────────────────────────────────────
  /** Broadcast poll: idle window after the last reply (§9.2: 0.6 s; + 2·G). */
  statusIdleMs: number;
  /**
   * Broadcast poll ceiling = min(statusMaxMs, statusBaseMs + statusPerNodeMs · expected)
   * at SF7/125 kHz; min(max + G, base + G + (perNode + G) · expected) at the active settings.
   */
  statusMaxMs: number;
  statusBaseMs: number;
  statusPerNodeMs: number;
  /** Unicast poll of one device (§9.2: 1.15 s, no retry; + 2·G). */
  statusUnicastMs: number;
  /**
   * Broadcast poll rounds: while fewer than `expected` answered and the last round brought
   * a new responder, the poll is repeated (collided replies get another chance).
   */
  statusMaxRounds: number;
  /**
   * Known targets still missing after the rounds are polled by unicast if at most this many
   * remain (a switched-off device costs statusUnicastMs each).
   */
  statusFollowUpMax: number;
  /**
   * Follow-up polls in flight at once. Above 1 the reply windows overlap: faster with
   * switched-off devices, but the gateway (no LBT) then transmits over replies and the
   * simulated 200-node fleet loses a few percent of them; 1 keeps the air clean.
   */
  statusFollowUpConcurrency: number;

  // ── Acknowledged unicasts ─────────────────────────────────────────────────────
  /** SET_GROUP: per-attempt ACK wait and attempts (§9.2: 1.5 s × 3; + 2·G per attempt). */
  setGroupTimeoutMs: number;
  setGroupAttempts: number;
  /** Pause between attempts of every retried request (§9.2: 0.1 s). */
  retryGapMs: number;
  /**
   * CONFIG: per-attempt ACK wait and attempts (§9.2: 1.5 s × 3; + 2·G per attempt). Callers
   * may override the wait; an override is an SF7/125 kHz value and is stretched alike.
   */
  configTimeoutMs: number;
  configAttempts: number;
  /** GET_CONFIG: per-attempt reply wait and attempts (newer host: 1.5 s, operator retries; + 2·G). */
  getConfigTimeoutMs: number;
  getConfigAttempts: number;
  /**
   * STREAM: ACK ceiling = min(streamMaxMs, streamBaseMs + streamPerTargetMs · n) per attempt
   * at SF7/125 kHz, stretched like the status ceiling; later fragments' airtime is added.
   */
  streamMaxMs: number;
  streamBaseMs: number;
  streamPerTargetMs: number;
  streamAttempts: number;

  // ── Link ──────────────────────────────────────────────────────────────────────
  /** Reconnect backoff: first delay, doubled after every failed attempt up to the max. */
  reconnectInitialMs: number;
  reconnectMaxMs: number;
  /**
   * A flapping link: more than `unstableLosses` link losses within `unstableWindowMs` make
   * it unstable (banner; 0 disables); each reconnect then waits at least
   * `unstableReconnectMs` until a whole window passes without a loss.
   */
  unstableLosses: number;
  unstableWindowMs: number;
  unstableReconnectMs: number;
  /** After opening the port: let a resetting board boot and its noise pass (§2.1: ≥ 0.5 s). */
  identifySettleMs: number;
  /** Wait for the unframed identify answer after each probe. */
  identifyAnswerMs: number;
  /** Identify probes per connect attempt. */
  identifyAttempts: number;
  /** Pause between identify probes (§3.1 recommends a retry after ~1 s). */
  identifyRetryGapMs: number;
}

export const DEFAULT_DRIVER_OPTIONS: Readonly<DriverOptions> = Object.freeze({
  outcomeGuardMs: 2000,
  outcomeConfirmMs: 30,
  txPendingRetries: 2,
  txPendingGapMs: 100,
  busyWaitMaxMs: 1500,
  interactiveDeadlineMs: 5000,
  bulkDeadlineMs: 30_000,

  stateQueryMs: 500,
  gatewayRfMs: 1000,
  aliveCheckMs: 2000,
  aliveMisses: 2,

  discoveryMaxMs: 5000,
  discoveryIdleMs: 600,
  discoveryMaxRounds: 12,
  discoveryQuietRounds: 3,
  discoveryRoundGapMs: 100,
  discoveryAnnouncementMaxAgeMs: 60_000,

  nodeGiveUpMs: 5000,

  statusIdleMs: 600,
  statusMaxMs: 5000,
  statusBaseMs: 1000,
  statusPerNodeMs: 150,
  statusUnicastMs: 1150,
  statusMaxRounds: 6,
  statusFollowUpMax: 32,
  statusFollowUpConcurrency: 1,

  setGroupTimeoutMs: 1500,
  setGroupAttempts: 3,
  retryGapMs: 100,
  configTimeoutMs: 1500,
  configAttempts: 3,
  getConfigTimeoutMs: 1500,
  getConfigAttempts: 1,
  streamMaxMs: 6000,
  streamBaseMs: 1000,
  streamPerTargetMs: 150,
  streamAttempts: 3,

  reconnectInitialMs: 1000,
  reconnectMaxMs: 15_000,
  unstableLosses: 3,
  unstableWindowMs: 60_000,
  unstableReconnectMs: 10_000,
  identifySettleMs: 500,
  identifyAnswerMs: 300,
  identifyAttempts: 3,
  identifyRetryGapMs: 1000,
});

/** Merges overrides into the defaults and rejects values that would break the driver. */
export function resolveDriverOptions(overrides: Partial<DriverOptions> = {}): DriverOptions {
  const merged: DriverOptions = { ...DEFAULT_DRIVER_OPTIONS, ...overrides };
  for (const [key, value] of Object.entries(merged)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new RangeError(`driver option ${key} must be a finite number >= 0, got ${String(value)}`);
    }
  }
  for (const key of [
    'setGroupAttempts',
    'configAttempts',
    'getConfigAttempts',
    'streamAttempts',
    'identifyAttempts',
    'discoveryMaxRounds',
    'discoveryQuietRounds',
    'statusMaxRounds',
    'statusFollowUpConcurrency',
    'aliveMisses',
  ] as const) {
    if (!Number.isInteger(merged[key]) || merged[key] < 1) {
      throw new RangeError(`driver option ${key} must be an integer >= 1`);
    }
  }
  if (merged.reconnectMaxMs < merged.reconnectInitialMs) {
    throw new RangeError('driver option reconnectMaxMs must be >= reconnectInitialMs');
  }
  return merged;
}
