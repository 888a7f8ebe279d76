/**
 * DMX in (issue 38): universes from the receivers are merged per source priority, read
 * through the patch into one look per group, and only changed looks go to the radio — paced
 * to a share of each network's air, one frame in flight per network, the newest look always
 * last (trailing edge). Every command is admitted by the command path as source `dmx` (live,
 * 70): a red flag, a race look, the operator's take-over and Blackout outrank it. A universe
 * silent for the live timeout (3 s) lets go of its groups: the last look stays on the nodes
 * until someone else sends one.
 *
 * Pure of I/O: the receivers, the radio and the path come in as interfaces (DmxOutput), the
 * clock and timers too, so the whole behaviour runs on a fake clock in unit tests.
 */
import { CommandRefusedError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import {
  commandFor,
  FIXTURES,
  footprint,
  lookOf,
  sameLook,
  type DmxLook,
  type FixtureKind,
  type GroupCommand,
} from './channel-map.ts';
import { SourceMerge, type SourceFrame } from './merge.ts';
import { checkPatch, type PatchEntry, type PatchFile } from './patch.ts';
import type { UniverseSpec } from '../../domain/dmx-universes.ts';

export const DMX_SOURCE = 'dmx';
/** The share of each network's air DMX may use: the rest stays for polls, flags and the race. */
export const AIR_SHARE = 0.3;
/** A universe is `live` while a packet came within this; then `holding` until the live timeout. */
const LIVE_MS = 1000;
/** Errors and refusals are logged at most this often per universe (a flood must not flood the log). */
const LOG_EVERY_MS = 5000;

export interface DmxOutput {
  /** Admits `dmx` on these groups (held until released); throws CommandRefusedError. */
  admit(groups: readonly number[], action: string): void;
  /** Lets go of a group (the stream stopped). */
  release(group: number): void;
  /** Sends one command to a group; resolves when the gateway transmitted it (or failed). */
  send(
    group: number,
    cmd: GroupCommand,
    signal: AbortSignal,
  ): Promise<{ ok: true } | { ok: false; error: string }>;
  /** The network a group's frames go out on (its air is budgeted apart from the others'). */
  networkOf(group: number): string;
  /** What one command costs on that network's air, in ms. */
  airtimeMs(group: number, cmd: GroupCommand): number;
  effectExists(id: number): boolean;
  groupExists(id: number): boolean;
  /** A group's name for the operator's eyes (errors say which group by name). */
  groupLabel(id: number): string;
  /** The path's live timeout (ms of silence before a live source lets go). */
  liveTimeoutMs(): number;
}

export type BadPacket = 'malformed' | 'oversized' | 'unknown_universe' | 'preview';
export type StreamState = 'idle' | 'live' | 'holding' | 'released';

export interface UniverseCounters {
  packets: number;
  frames_changed: number;
  commands_sent: number;
  /** Looks replaced by a newer one before the air had room for them. */
  dropped_for_rate: number;
  refused: { held: number; rate_limited: number; disabled: number };
  send_failed: number;
  malformed: number;
  oversized: number;
  preview: number;
}

export interface UniverseView extends UniverseCounters {
  key: string;
  protocol: UniverseSpec['protocol'];
  state: StreamState;
  /** ms since the last packet, or null. */
  last_packet_ms_ago: number | null;
  sources: number;
  last_source: { name: string; id: string; priority: number } | null;
  last_error: string | null;
  /** ms since the last error, or null. */
  last_error_ms_ago: number | null;
  /** True once a later command for this universe was accepted: the error is history, not now. */
  last_error_past: boolean;
  values: number[];
}

export interface DmxView {
  universes: UniverseView[];
  /** Each fixture kind's channel names, in order. */
  fixture_kinds: Record<FixtureKind, readonly string[]>;
  fixtures: (PatchEntry & { channels: readonly string[]; footprint: number; holding: boolean })[];
  /** Packets for no configured universe, or not decodable at all. */
  unmatched: { unknown_universe: number; malformed: number; oversized: number };
  air: { share: number; per_network_ms_per_s: number };
  ports: Record<string, number>;
}

interface Universe {
  spec: UniverseSpec;
  merge: SourceMerge;
  values: Uint8Array;
  counters: UniverseCounters;
  lastPacketAt: number | null;
  lastSource: UniverseView['last_source'];
  lastError: { text: string; at: number; past: boolean } | null;
  lastLogAt: number;
  released: boolean;
  timer: { clear(): void } | null;
}

interface Network {
  tokens: number;
  at: number;
  busy: boolean;
}

export interface DmxServiceDeps {
  universes: readonly UniverseSpec[];
  output: DmxOutput;
  log: Logger;
  now(): number;
  setTimer(fn: () => void, ms: number): { clear(): void };
  file?: PatchFile;
}

const emptyCounters = (): UniverseCounters => ({
  packets: 0,
  frames_changed: 0,
  commands_sent: 0,
  dropped_for_rate: 0,
  refused: { held: 0, rate_limited: 0, disabled: 0 },
  send_failed: 0,
  malformed: 0,
  oversized: 0,
  preview: 0,
});

export class DmxService {
  private readonly universes = new Map<string, Universe>();
  private patch: PatchEntry[] = [];
  /** What each patched group should show (from the console), and what it shows (null: unknown). */
  private readonly wanted = new Map<number, DmxLook>();
  private readonly shown = new Map<number, DmxLook>();
  /** Groups whose wanted look is not on air yet, oldest change first. */
  private readonly dirty = new Map<number, string>();
  /** Groups the path granted us (released when the stream stops). */
  private readonly held = new Set<number>();
  private readonly networks = new Map<string, Network>();
  private readonly unmatched = { unknown_universe: 0, malformed: 0, oversized: 0 };
  private era = new AbortController();
  private wake: { clear(): void } | null = null;
  private ports: Record<string, number> = {};
  private stopped = false;

  constructor(private readonly d: DmxServiceDeps) {
    for (const spec of d.universes)
      this.universes.set(spec.key, {
        spec,
        merge: new SourceMerge(),
        values: new Uint8Array(512),
        counters: emptyCounters(),
        lastPacketAt: null,
        lastSource: null,
        lastError: null,
        lastLogAt: -Infinity,
        released: false,
        timer: null,
      });
  }

  async load(): Promise<void> {
    if (!this.d.file) return;
    const { entries, problem } = await this.d.file.load();
    if (problem) this.d.log.warn({ problem }, 'DMX patch unreadable: starting with an empty patch');
    // A group deleted since, or a universe no longer given with --dmx: kept on disk, not used.
    this.patch = entries;
  }

  patchEntries(): PatchEntry[] {
    return this.patch.map((e) => ({ ...e }));
  }

  /** Checks and saves a whole new patch (on disk before it takes effect). */
  async setPatch(entries: PatchEntry[]): Promise<PatchEntry[]> {
    checkPatch(entries, {
      universes: [...this.universes.keys()],
      groupExists: (id) => this.d.output.groupExists(id),
    });
    await this.d.file?.save(entries);
    const before = new Set(this.patch.map((e) => e.group));
    this.patch = entries.map((e) => ({ ...e }));
    const now = new Set(this.patch.map((e) => e.group));
    for (const g of before) {
      if (now.has(g)) continue;
      this.wanted.delete(g);
      this.shown.delete(g);
      this.dirty.delete(g);
      if (this.held.delete(g)) this.d.output.release(g);
    }
    // A moved fixture reads its new channels at once (the console may not send a change soon).
    for (const u of this.universes.values()) if (u.lastPacketAt !== null && !u.released) this.apply(u);
    this.d.log.info({ fixtures: this.patch.length }, 'DMX patch changed');
    return this.patchEntries();
  }

  setPorts(ports: Record<string, number>): void {
    this.ports = { ...ports };
  }

  /** A decoded frame from a receiver. */
  frame(key: string, f: SourceFrame & { terminated?: boolean }): void {
    if (this.stopped) return;
    const u = this.universes.get(key);
    if (!u) {
      this.unmatched.unknown_universe++;
      return;
    }
    const now = this.d.now();
    u.counters.packets++;
    u.lastPacketAt = now;
    u.released = false;
    u.lastSource = { name: f.name, id: f.id, priority: f.priority };
    if (f.terminated) u.merge.drop(f.id);
    else u.merge.put({ ...f, at: now });
    this.armSilence(u);
    this.apply(u);
  }

  /** A packet that was refused before it became a frame. */
  bad(key: string | null, kind: BadPacket, detail: string): void {
    const u = key ? this.universes.get(key) : undefined;
    if (!u) {
      if (kind === 'unknown_universe') this.unmatched.unknown_universe++;
      else if (kind === 'oversized') this.unmatched.oversized++;
      else this.unmatched.malformed++;
      return;
    }
    if (kind === 'preview') u.counters.preview++;
    else if (kind === 'oversized') u.counters.oversized++;
    else u.counters.malformed++;
    if (kind !== 'preview') this.noteError(u, detail);
  }

  /** A red flag or Blackout went out: what DMX queued must not land after it, and the nodes' look is theirs. */
  interrupted(): void {
    this.era.abort();
    this.era = new AbortController();
    this.dirty.clear();
    this.shown.clear();
    this.held.clear();
  }

  /** The path took a group from us (a higher source, Blackout): its look on the nodes is unknown now. */
  lost(group: number): void {
    this.held.delete(group);
    this.shown.delete(group);
  }

  heldGroups(): ReadonlySet<number> {
    return this.held;
  }

  view(): DmxView {
    const now = this.d.now();
    return {
      universes: [...this.universes.values()].map((u) => ({
        key: u.spec.key,
        protocol: u.spec.protocol,
        state: this.state(u, now),
        last_packet_ms_ago: u.lastPacketAt === null ? null : now - u.lastPacketAt,
        sources: u.merge.live(now),
        last_source: u.lastSource,
        last_error: u.lastError?.text ?? null,
        last_error_ms_ago: u.lastError ? now - u.lastError.at : null,
        last_error_past: u.lastError?.past ?? false,
        ...structuredClone(u.counters),
        values: [...u.values],
      })),
      fixtures: this.patch.map((e) => ({
        ...e,
        channels: FIXTURES[e.fixture],
        footprint: footprint(e.fixture),
        holding: this.held.has(e.group),
      })),
      fixture_kinds: FIXTURES,
      unmatched: { ...this.unmatched },
      air: { share: AIR_SHARE, per_network_ms_per_s: AIR_SHARE * 1000 },
      ports: { ...this.ports },
    };
  }

  stop(): void {
    this.stopped = true;
    this.era.abort();
    this.wake?.clear();
    for (const u of this.universes.values()) u.timer?.clear();
  }

  private state(u: Universe, now: number): StreamState {
    if (u.lastPacketAt === null) return 'idle';
    if (u.released) return 'released';
    return now - u.lastPacketAt < LIVE_MS ? 'live' : 'holding';
  }

  /** The merged frame through the patch: changed looks become dirty. */
  private apply(u: Universe): void {
    const merged = u.merge.merged(this.d.now());
    if (!merged) return; // every source terminated or lost: hold the last look
    if (!equal(merged.values, u.values)) {
      u.counters.frames_changed++;
      u.values = merged.values.slice(0, 512);
      if (u.values.length < 512) {
        const full = new Uint8Array(512);
        full.set(u.values);
        u.values = full;
      }
    }
    for (const e of this.patch) {
      if (e.universe !== u.spec.key) continue;
      const prev = this.wanted.get(e.group) ?? null;
      const next = lookOf(u.values, e.address, e.fixture, (id) => this.d.output.effectExists(id), prev);
      if (prev && sameLook(prev, next)) continue;
      this.wanted.set(e.group, next);
      if (this.dirty.has(e.group)) u.counters.dropped_for_rate++;
      else this.dirty.set(e.group, u.spec.key);
    }
    this.pump();
  }

  /** Sends what the air has room for: per network, one frame at a time, within its share. */
  private pump(): void {
    if (this.stopped) return;
    this.wake?.clear();
    this.wake = null;
    const now = this.d.now();
    let wait = Infinity;
    for (const [group, key] of this.dirty) {
      const want = this.wanted.get(group);
      const u = this.universes.get(key);
      if (!want || !u) {
        this.dirty.delete(group);
        continue;
      }
      const cmd = commandFor(this.shown.get(group) ?? null, want);
      if (!cmd) {
        this.dirty.delete(group);
        this.shown.set(group, want);
        continue;
      }
      const netId = this.d.output.networkOf(group);
      const net = this.network(netId, now);
      if (net.busy) continue;
      const cost = this.d.output.airtimeMs(group, cmd);
      if (net.tokens < cost) {
        wait = Math.min(wait, ((cost - net.tokens) / (AIR_SHARE * 1000)) * 1000);
        continue;
      }
      this.dirty.delete(group);
      try {
        this.d.output.admit([group], `dmx ${key}`);
      } catch (err) {
        this.refused(u, group, err);
        continue;
      }
      this.held.add(group);
      // Admitted: an older refusal or failure on this universe is no longer what happens now.
      if (u.lastError) u.lastError.past = true;
      net.tokens -= cost;
      net.busy = true;
      const era = this.era;
      void this.d.output
        .send(group, cmd, era.signal)
        .then(
          (r) => {
            if (era.signal.aborted) return;
            if (r.ok) {
              u.counters.commands_sent++;
              this.shown.set(group, want);
            } else {
              u.counters.send_failed++;
              this.shown.delete(group);
              this.noteError(u, this.aboutGroup(group, r.error));
            }
          },
          (err: unknown) => {
            u.counters.send_failed++;
            this.shown.delete(group);
            this.noteError(u, this.aboutGroup(group, (err as Error).message));
          },
        )
        .finally(() => {
          net.busy = false;
          // A change that came while this frame was on its way is dirty already: its turn now.
          this.pump();
        });
    }
    if (Number.isFinite(wait)) this.wake = this.d.setTimer(() => this.pump(), Math.max(1, Math.ceil(wait)));
  }

  private network(id: string, now: number): Network {
    const budget = AIR_SHARE * 1000; // air-ms per second, and the burst
    let n = this.networks.get(id);
    if (!n) this.networks.set(id, (n = { tokens: budget, at: now, busy: false }));
    n.tokens = Math.min(budget, n.tokens + ((now - n.at) * budget) / 1000);
    n.at = now;
    return n;
  }

  private refused(u: Universe, group: number, err: unknown): void {
    this.shown.delete(group);
    this.held.delete(group);
    if (!(err instanceof CommandRefusedError)) {
      u.counters.send_failed++;
      this.noteError(u, this.aboutGroup(group, (err as Error).message));
      return;
    }
    if (err.status === 409) u.counters.refused.held++;
    else if (err.status === 429) u.counters.refused.rate_limited++;
    else u.counters.refused.disabled++;
    this.noteError(u, this.aboutGroup(group, err.message));
  }

  /** Lets go of a universe's groups once it has been silent for the live timeout. */
  private armSilence(u: Universe): void {
    if (u.timer) return;
    const check = (): void => {
      u.timer = null;
      if (this.stopped || u.lastPacketAt === null) return;
      const left = u.lastPacketAt + this.d.output.liveTimeoutMs() - this.d.now();
      if (left > 0) {
        u.timer = this.d.setTimer(check, left);
        return;
      }
      u.released = true;
      for (const e of this.patch) {
        if (e.universe !== u.spec.key) continue;
        this.dirty.delete(e.group);
        if (this.held.delete(e.group)) this.d.output.release(e.group);
      }
      this.d.log.info(
        { universe: u.spec.key },
        'DMX stream stopped: its groups are released (the last look stays)',
      );
    };
    u.timer = this.d.setTimer(check, this.d.output.liveTimeoutMs());
  }

  /**
   * The group named once, by its name: the path's refusals already begin with `group N`
   * (`group 1 is held by …`), so that is replaced rather than prefixed again.
   */
  private aboutGroup(group: number, message: string): string {
    const label = this.d.output.groupLabel(group);
    // The path names a group it knows the name of itself ("Gates (group 1) is held …").
    if (message.startsWith(`${label} (group ${group}) `)) return message;
    const id = `group ${group} `;
    return message.startsWith(id) ? `${label} ${message.slice(id.length)}` : `${label}: ${message}`;
  }

  private noteError(u: Universe, detail: string): void {
    const now = this.d.now();
    u.lastError = { text: detail, at: now, past: false };
    if (now - u.lastLogAt < LOG_EVERY_MS) return;
    u.lastLogAt = now;
    this.d.log.info({ universe: u.spec.key, detail }, 'DMX input problem');
  }
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return false;
  return true;
}
