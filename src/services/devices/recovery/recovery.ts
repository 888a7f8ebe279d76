/**
 * Field recovery ("race morning"): a node comes up in group 0 with no master after every
 * boot and ignores everything but DEVICES and SET_GROUP until a master binds it (§8.1–§8.3).
 * The host knows every node's MAC and group, so it restores known nodes instead of
 * rediscovering them: they become `rejoining` and are swept with unicast SET_GROUP to
 * their stored group (sweep.ts) until each answers or its time budget is spent.
 *
 * Triggers: the first gateway connection after start and every reconnect (known nodes
 * not heard lately), a burst of boot announcements (a field power-up: every known node
 * not confirmed since), a status poll that leaves several known nodes silent (those), a
 * single announcement (that node, restored at once), and the operator (task.ts).
 * While a node is rejoining, a status poll does not mark it offline; when its budget is
 * spent it goes offline with a reason that says so. The episode's score and its progress
 * events are episode.ts's.
 */
import type { Clock } from '../../../clock.ts';
import type { EventBus } from '../../../events.ts';
import type { GatewayDriver } from '../../../gateway/types.ts';
import type { Logger } from '../../../logger.ts';
import type { Addr } from '../../../protocol/types.ts';
import type { Store } from '../../../state/store.ts';
import type { Device } from '../../../domain/model.ts';
import type { DeviceRegistry, HeardNote } from '../registry/registry.ts';
import { RecoveryEpisode } from './episode.ts';
import { NetworkSweeps } from './per-network.ts';
import {
  DEFAULT_RECOVERY_OPTIONS,
  type RecoveryOptions,
  type RecoveryProgress,
  type RecoveryTrigger,
  type RejoinEntry,
} from './types.ts';

export * from './types.ts';

/** Power-on to the first boot announcement: boot ~0.8 s + 1 s (§8.6), with a margin. */
const BOOT_TO_ANNOUNCE_MS = 3000;

export interface RecoveryDeps {
  driver: GatewayDriver;
  registry: DeviceRegistry;
  store: Store;
  clock: Clock;
  bus: EventBus;
  log: Logger;
}

export class RecoveryService {
  readonly opts: RecoveryOptions;
  private readonly entries = new Map<Addr, RejoinEntry>();
  /** Clock ms of the last reply proving the node bound (STATUS, SET_GROUP ACK, right group). */
  private readonly boundAt = new Map<Addr, number>();
  private readonly sweep: NetworkSweeps;
  private readonly episode: RecoveryEpisode;
  private announcements: number[] = [];
  private readonly cooldown = new Map<Addr, number>();
  /** Nodes an RF task rebinds itself (claim): rejoining, but not swept meanwhile. */
  private readonly claims = new Set<Addr>();
  private immediateRunning = 0;
  private connectedOnce = false;
  private wasReady = false;

  constructor(
    private readonly deps: RecoveryDeps,
    opts: Partial<RecoveryOptions> = {},
  ) {
    this.opts = { ...DEFAULT_RECOVERY_OPTIONS, ...opts };
    this.episode = new RecoveryEpisode({
      clock: deps.clock,
      bus: deps.bus,
      log: deps.log,
      budgetMs: this.opts.budgetMs,
      lingerMs: this.opts.burstWindowMs,
      rejoining: () => this.entries.size,
    });
    this.sweep = new NetworkSweeps({
      clock: deps.clock,
      driver: deps.driver,
      log: deps.log,
      opts: this.opts,
      networkOf: (a) => deps.registry.find(a)?.network_id ?? null,
      host: {
        entries: () => this.entries.values(),
        has: (a) => this.entries.has(a),
        groupOf: (a) => {
          const g = deps.registry.find(a)?.groupId;
          return g === undefined || g === 0 ? null : g;
        },
        lastSeen: (a) => deps.registry.find(a)?.last_seen_ts ?? 0,
        restored: (a, g) => this.resolve(a, 'restored', g),
        giveUp: (e) => this.giveUp(e),
        forget: (a) => this.drop([a]),
        claimed: (a) => this.claims.has(a),
      },
    });
  }

  /** Hooks into the registry and the driver; call before the driver starts. */
  attach(): () => void {
    const { registry, driver } = this.deps;
    registry.rejoin = {
      isRejoining: (a) => this.entries.has(a),
      filterOffline: (addrs) => this.filterOffline(addrs),
      restore: (a, g) => this.onAnnounced(a, g),
    };
    const offHeard = registry.onHeard((n) => this.onHeard(n));
    const offReady = driver.on('readiness', (r) => {
      if (r.ready && !this.wasReady) this.onConnected();
      this.wasReady = r.ready;
    });
    if (driver.readiness().ready) this.onConnected();
    return () => {
      offHeard();
      offReady();
      registry.rejoin = null;
    };
  }

  async stop(): Promise<void> {
    this.episode.stop();
    await this.sweep.stop();
  }

  progress(): RecoveryProgress {
    return this.episode.progress();
  }

  isRejoining(addr: Addr): boolean {
    return this.entries.has(addr);
  }

  /** Why the node is (still) rejoining: what started it and the last failed try. */
  entry(addr: Addr): Readonly<RejoinEntry> | undefined {
    return this.entries.get(addr);
  }

  /**
   * Makes nodes rejoining (known, stored group ≠ 0) and starts or wakes the sweep. Nodes
   * already rejoining keep their entry. Returns the addresses added.
   */
  add(
    addrs: Iterable<Addr>,
    trigger: RecoveryTrigger,
    opts: { settle?: boolean; renew?: boolean } = {},
  ): Addr[] {
    const { registry, clock, store } = this.deps;
    // Discovery re-homes the nodes it finds itself; only the operator overrides that.
    if (registry.discoveryRunning && trigger !== 'manual') return [];
    const now = clock.now();
    const added: Device[] = [];
    let renewed = 0;
    for (const a of addrs) {
      const d = registry.find(a);
      if (!d || d.groupId === 0) continue;
      const old = this.entries.get(a);
      if (old) {
        // A power-up seen now: what the node did while it was dark says nothing any more.
        if (opts.renew && old.since < now - this.opts.burstWindowMs) {
          Object.assign(old, {
            trigger,
            since: now,
            deadline: now + this.opts.budgetMs,
            passes: 0,
            nextAt: now,
          });
          renewed++;
        }
        continue;
      }
      if (this.entries.size === 0 && !this.episode.active) this.episode.begin(trigger);
      this.entries.set(a, {
        addr: a,
        trigger,
        since: now,
        deadline: now + this.opts.budgetMs,
        passes: 0,
        tries: 0,
        nextAt: now,
        inFlight: false,
        lastError: null,
      });
      added.push(d);
    }
    if (renewed > 0) this.sweep.kick(false, true);
    if (added.length === 0) return [];
    this.episode.added(added.length);
    store.changed(['DEVICES'], 'lazy', added);
    this.deps.log.info(
      { trigger, nodes: added.length, rejoining: this.entries.size },
      'restoring known nodes',
    );
    this.episode.publish();
    this.sweep.kick(opts.settle ?? true, renewed > 0);
    return added.map((d) => d.addr);
  }

  /**
   * An RF migration rebinds its moved nodes with one targeted SET_GROUP pass: while it
   * runs, the sweep leaves these nodes alone (their entries stay: a status poll does not
   * call them offline, and any proof of binding still resolves them). The returned release
   * hands whoever is still rejoining to the sweep.
   */
  claim(addrs: Iterable<Addr>): () => void {
    const mine = [...addrs].filter((a) => !this.claims.has(a));
    for (const a of mine) this.claims.add(a);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const a of mine) this.claims.delete(a);
      if (mine.some((a) => this.entries.has(a))) this.sweep.kick(false, true);
    };
  }

  /** Drops nodes from the recovery without a verdict (a cancelled manual restore). */
  drop(addrs: Iterable<Addr>): void {
    const changed: Device[] = [];
    for (const a of addrs) {
      if (!this.entries.delete(a)) continue;
      this.episode.added(-1);
      const d = this.deps.registry.find(a);
      if (d) changed.push(d);
    }
    if (changed.length) this.deps.store.changed(['DEVICES'], 'lazy', changed);
    this.episode.endIfIdle();
    this.episode.publish();
  }

  /** Known nodes with a stored group that have not proved themselves bound since `sinceMs`. */
  unconfirmedSince(sinceMs: number): Addr[] {
    return this.deps.registry
      .all()
      .filter((d) => d.groupId !== 0 && (this.boundAt.get(d.addr) ?? -Infinity) < sinceMs)
      .map((d) => d.addr);
  }

  private onConnected(): void {
    const now = this.deps.clock.now();
    if (!this.connectedOnce) {
      this.connectedOnce = true;
      this.add(this.unconfirmedSince(Infinity), 'start');
    } else this.add(this.unconfirmedSince(now - this.opts.reconnectFreshMs), 'gateway_reconnect');
  }

  private onHeard(n: HeardNote): void {
    const now = this.deps.clock.now();
    const stored = this.deps.registry.find(n.addr)?.groupId;
    const bound =
      n.kind === 'STATUS_REPLY' ||
      (n.kind === 'ACK' && n.ackOf === 0x02 && n.ok === true) ||
      (n.kind === 'IDENTIFY_REPLY' && !n.announcement && n.groupId !== 0 && n.groupId === stored);
    if (bound) {
      this.boundAt.set(n.addr, now);
      if (this.entries.has(n.addr)) this.resolve(n.addr, 'restored', stored ?? 0);
      return;
    }
    if (n.kind === 'IDENTIFY_REPLY' && n.announcement) {
      this.announcements = this.announcements.filter((t) => now - t < this.opts.burstWindowMs);
      this.announcements.push(now);
      if (this.announcements.length >= this.opts.burstCount) {
        // A field power-up: most announcements collide, so every node not confirmed
        // since the burst began is presumed rebooted, heard or not.
        const since = this.announcements[0] ?? now;
        this.announcements = [];
        // A node announces ~1.8 s after power-on (§8.6): anything confirmed before that
        // moment may have rebooted since.
        this.add(this.unconfirmedSince(since - BOOT_TO_ANNOUNCE_MS), 'boot_announcements', {
          renew: true,
        });
      }
    }
  }

  /** A known node announced itself unbound: restore it at once (and keep it rejoining). */
  private onAnnounced(addr: Addr, groupId: number): void {
    const { driver, clock, registry, log } = this.deps;
    if (groupId !== 0) this.add([addr], 'announcement', { settle: false });
    const now = clock.now();
    const known = this.entries.get(addr);
    // It is alive now: whatever time it spent dark does not count against its budget.
    if (known) known.deadline = Math.max(known.deadline, now + this.opts.budgetMs);
    if (now - (this.cooldown.get(addr) ?? -Infinity) < this.opts.immediateCooldownMs) return;
    if (this.immediateRunning >= this.opts.immediateParallel) return;
    const e = this.entries.get(addr);
    if (e?.inFlight) return;
    this.cooldown.set(addr, now);
    this.immediateRunning++;
    if (e) e.inFlight = true;
    void driver
      .setGroup(addr, groupId, { priority: 'bulk', attempts: 2, timeoutMs: this.opts.attemptTimeoutMs })
      .then((r) => {
        if (r.ok && r.value.ok) {
          if (groupId === 0) registry.recordGroup(addr, 0, false);
          else this.resolve(addr, 'restored', groupId);
          log.debug({ addr, groupId }, 'restored group on announcing node');
        } else if (e) e.lastError = r.ok ? 'refused' : r.detail;
      })
      .finally(() => {
        this.immediateRunning--;
        if (e) e.inFlight = false;
      });
  }

  private filterOffline(addrs: readonly Addr[]): readonly Addr[] {
    const rest = addrs.filter((a) => !this.entries.has(a));
    const candidates = rest.filter((a) => (this.deps.registry.find(a)?.groupId ?? 0) !== 0);
    if (candidates.length < this.opts.pollSilentMin) return rest;
    // Many silent at once looks like a power cut, not many broken gates: restore them.
    const taken = new Set(this.add(candidates, 'status_poll', { settle: false }));
    return rest.filter((a) => !taken.has(a));
  }

  private resolve(addr: Addr, _how: 'restored', groupId: number): void {
    if (!this.entries.delete(addr)) return;
    const { registry, store } = this.deps;
    this.boundAt.set(addr, this.deps.clock.now());
    this.episode.restored();
    registry.recordGroup(addr, groupId, false);
    const d = registry.find(addr);
    if (d) store.changed(['DEVICES'], 'lazy', [d]);
    this.episode.endIfIdle();
    this.episode.publish();
  }

  private giveUp(e: RejoinEntry): void {
    if (!this.entries.delete(e.addr)) return;
    const { registry, store, log } = this.deps;
    this.episode.failed();
    const secs = Math.round(this.opts.budgetMs / 1000);
    const reason =
      `did not answer ${e.tries} group restore${e.tries === 1 ? '' : 's'} (SET_GROUP) within ${secs} s` +
      ` after ${e.trigger.replace('_', ' ')}: powered off, out of range or on another channel`;
    const d = registry.find(e.addr);
    if (d) {
      registry.recordGroup(e.addr, d.groupId, true);
      registry.markOffline([e.addr], reason, { force: true });
      store.changed(['DEVICES'], 'lazy', [d]);
    }
    log.warn({ addr: e.addr, tries: e.tries, last: e.lastError }, 'node did not rejoin: offline');
    this.episode.endIfIdle();
    this.episode.publish();
  }
}
