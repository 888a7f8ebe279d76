/**
 * The command path's service: the holds table, the sources and their settings, the rate
 * limit and the external-command log around the pure decision. It never sends anything:
 * callers ask it (`admit`/`run`), then call the existing senders. Owner changes are told
 * to subscribers (the SSE stream) so no view goes stale.
 */
import { CommandRefusedError, ValidationError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import { decide, release, releaseTicket } from './decide.ts';
import { TokenBuckets } from './rate-limit.ts';
import { refusalText, takeOverRefusal, type RefusalContext } from './refusal.ts';
import {
  applyPatch,
  defaultCommandPathSettings,
  type CommandPathFile,
  type CommandPathPatch,
  type CommandPathSettings,
} from './settings.ts';
import { ALWAYS_ON, BLACKOUT_SOURCE, BUILTIN_SOURCES, OPERATOR_SOURCE, type SourceInfo } from './sources.ts';
import { sameTarget, targetJson, targetLabel, type TargetJson } from './targets.ts';
import { DEFAULT_CLASS_PRIORITY, type Hold, type HoldMode, type SourceClass, type Target } from './types.ts';

/** One light command as a caller hands it to the path. */
export interface Command {
  /** A known source's id (`ui`, `rotorhazard`, `osc`, …). */
  source: string;
  /** What it aims at; a device's group is looked up by the path. Empty: aims at nothing (always admitted). */
  targets: readonly TargetJson[];
  /** For the Log and the owners view: `control`, `scene start`, `flash`, `look race_start`. */
  action: string;
  /** Default: `live` for live sources, `none` for the others. */
  hold?: HoldMode;
}

/** An admitted command: its ticket ends a `run` hold. */
export interface Admitted {
  ticket: number;
  source: SourceInfo;
  priority: number;
}

export type CommandResult = 'accepted' | 'refused' | 'rate_limited' | 'disabled';

export interface HolderView {
  target: TargetJson;
  target_label: string;
  source: string;
  source_label: string;
  source_class: SourceClass;
  priority: number;
  mode: Exclude<HoldMode, 'none'>;
  since_epoch_ms: number;
  /** Live holds: ms until it lapses without another command; else null. */
  timeout_left_ms: number | null;
  action: string;
}

export interface SourceView {
  id: string;
  label: string;
  source_class: SourceClass;
  external: boolean;
  enabled: boolean;
  /** The effective priority (override, else the class's). */
  priority: number;
  /** The override in the settings, or null (the class's priority). */
  priority_override: number | null;
  counts: Record<CommandResult, number>;
}

export interface OwnersView {
  owners: HolderView[];
  sources: SourceView[];
  take_over_priority: number;
  live_timeout_ms: number;
}

export interface CommandPathDeps {
  log: Logger;
  /** Epoch ms (wall time: live timeouts follow the desk's clock, not a simulator's). */
  now(): number;
  /** The group a device is in now (null: unknown device or none). */
  groupOf(addr: string): number | null;
  /** A group's name for the words of a refusal (null: unknown, the number alone). */
  groupName?: (id: number) => string | null;
  /** Holds `fn` until `ms` have passed (the wake-up that clears a lapsed live hold). */
  setTimer(fn: () => void, ms: number): { clear(): void };
  file?: CommandPathFile;
}

/** A rate-limited source's Log line at most this often (a flood must not flood the Log too). */
const RATE_LOG_EVERY_MS = 1000;
const RANK_BYPASSING_BUCKETS: ReadonlySet<SourceClass> = new Set(['blackout', 'safety', 'race']);

export class CommandPathService {
  private holds: Hold[] = [];
  private tickets = 0;
  private current: CommandPathSettings = defaultCommandPathSettings();
  private readonly sourcesById = new Map<string, SourceInfo>();
  private readonly counts = new Map<string, Record<CommandResult, number>>();
  private readonly buckets = new TokenBuckets();
  private readonly rateLogged = new Map<string, { at: number; suppressed: number }>();
  private readonly listeners = new Set<(v: OwnersView) => void>();
  private timer: { clear(): void } | null = null;

  constructor(private readonly deps: CommandPathDeps) {
    for (const s of BUILTIN_SOURCES) this.sourcesById.set(s.id, s);
  }

  async load(): Promise<void> {
    if (!this.deps.file) return;
    const { settings, problem } = await this.deps.file.load();
    if (problem) this.deps.log.warn({ problem }, 'command path settings unreadable: using the defaults');
    this.current = settings;
  }

  /** Adds an adapter's source (OSC, a Stream Deck bridge…). Re-registering an id replaces it. */
  registerSource(s: SourceInfo): void {
    this.sourcesById.set(s.id, s);
  }

  source(id: string): SourceInfo | undefined {
    return this.sourcesById.get(id);
  }

  /** The effective priority of a source: its override, else its class's (Blackout: always 100). */
  priorityOf(id: string): number {
    const s = this.sourcesById.get(id);
    if (!s) return 0;
    if (s.sourceClass === 'blackout') return DEFAULT_CLASS_PRIORITY.blackout;
    return this.current.sources[id]?.priority ?? this.current.priorities[s.sourceClass];
  }

  enabled(id: string): boolean {
    return ALWAYS_ON.has(id) || (this.current.sources[id]?.enabled ?? true);
  }

  /**
   * Decides one command. Admitted: its holds are in the table and it may go out now.
   * Refused: throws CommandRefusedError (409 held, 429 rate-limited, 403 switched off) and
   * nothing changed. External sources' commands are written to the Log either way.
   */
  admit(cmd: Command): Admitted {
    const src = this.sourcesById.get(cmd.source);
    if (!src) throw new ValidationError(`source: unknown command source '${cmd.source}'`);
    const now = this.deps.now();
    const targets = cmd.targets.map((t) => this.resolve(t));
    // Only a Log line or a refusal needs the words: the UI's accepted commands skip them.
    const label = (): string => (targets.length ? targets.map(targetLabel).join(', ') : 'nothing');
    if (!this.enabled(src.id)) {
      const error = `source ${src.id} is switched off in the settings`;
      this.note(src, 'disabled', label, cmd.action, error);
      throw new CommandRefusedError(403, error, { source: src.id });
    }
    const priority = this.priorityOf(src.id);
    if (src.external && !RANK_BYPASSING_BUCKETS.has(src.sourceClass)) {
      const r = this.current.rate_limit;
      if (!this.buckets.take(src.id, { perSecond: r.per_second, burst: r.burst }, now)) {
        const error = `source ${src.id}: rate limit (${r.per_second}/s, burst ${r.burst}) exceeded`;
        this.note(src, 'rate_limited', label, cmd.action, error, now);
        throw new CommandRefusedError(429, error, { source: src.id });
      }
    }
    const ticket = ++this.tickets;
    const hold = cmd.hold ?? (src.sourceClass === 'live' ? 'live' : 'none');
    const d = decide(this.holds, {
      source: src.id,
      sourceClass: src.sourceClass,
      priority,
      targets,
      hold,
      liveTimeoutMs: this.current.live_timeout_ms,
      action: cmd.action,
      now,
      ticket,
    });
    if (!d.ok) {
      const h = d.holder;
      const holder = this.view(h, now);
      const error = refusalText(d.target, h, this.refusalContext(src.id, now));
      this.note(src, 'refused', label, cmd.action, error);
      throw new CommandRefusedError(409, error, { holder, source: src.id });
    }
    this.holds = d.holds;
    for (const h of d.dropped)
      this.deps.log.info(
        { source: h.source, target: targetLabel(h.target), by: src.id },
        'command path: hold taken away by a higher priority',
      );
    this.note(src, 'accepted', label, cmd.action, null);
    if (d.changed) this.changed();
    return { ticket, source: src, priority };
  }

  /**
   * Admits the command, then runs `send`. A `run` hold lasts until `send` settles. Refused:
   * throws before `send` is called.
   */
  async run<T>(cmd: Command, send: (a: Admitted) => Promise<T>): Promise<T> {
    const a = this.admit(cmd);
    try {
      return await send(a);
    } finally {
      if ((cmd.hold ?? 'none') === 'run') this.end(a.ticket);
    }
  }

  /** Ends a command's `run` holds (a later command's holds on the same targets stay). */
  end(ticket: number): void {
    const r = releaseTicket(this.holds, ticket);
    if (r.released.length === 0) return;
    this.holds = r.holds;
    this.changed();
  }

  /** Releases `source`'s holds on `target` (all its holds when absent); how many were released. */
  release(source: string, target?: TargetJson): number {
    const r = release(this.holds, source, target ? this.resolve(target) : undefined);
    if (r.released.length === 0) return 0;
    this.holds = r.holds;
    this.changed();
    return r.released.length;
  }

  /** Blackout: every hold is dropped (it outranks them all), logged. */
  blackout(): void {
    this.admit({ source: BLACKOUT_SOURCE, targets: [{ kind: 'all' }], action: 'blackout' });
  }

  /** The operator holds `target` at the take-over priority until handing it back. */
  takeOver(target: TargetJson): HolderView {
    const now = this.deps.now();
    const t = this.resolve(target);
    const d = decide(this.holds, {
      source: OPERATOR_SOURCE,
      sourceClass: 'operator',
      priority: this.current.take_over_priority,
      targets: [t],
      hold: 'until-release',
      liveTimeoutMs: this.current.live_timeout_ms,
      action: 'take over',
      now,
      ticket: ++this.tickets,
    });
    if (!d.ok) {
      const h = d.holder;
      throw new CommandRefusedError(409, takeOverRefusal(t, h, this.refusalContext(OPERATOR_SOURCE, now)), {
        holder: this.view(h, now),
      });
    }
    this.holds = d.holds;
    for (const h of d.dropped)
      this.deps.log.info(
        { source: h.source, target: targetLabel(h.target) },
        'command path: the operator took over',
      );
    this.changed();
    const mine = this.holds.find((h) => h.source === OPERATOR_SOURCE && sameTarget(h.target, t));
    return this.view(mine as Hold, now);
  }

  private refusalContext(requester: string, now: number): RefusalContext {
    return {
      labelOf: (id) => this.sourcesById.get(id)?.label ?? id,
      groupName: (id) => this.deps.groupName?.(id) ?? null,
      requester,
      takeOverPriority: this.current.take_over_priority,
      now,
    };
  }

  /** The operator hands `target` back: its hold goes; the next command of any source may take it. */
  handBack(target: TargetJson): number {
    const n = this.release(OPERATOR_SOURCE, target);
    if (n > 0) this.deps.log.info({ target: targetLabel(this.resolve(target)) }, 'command path: handed back');
    return n;
  }

  /** Who holds what (lapsed live holds left out), and each source's settings and counts. */
  owners(): OwnersView {
    const now = this.deps.now();
    return {
      owners: this.holds
        .filter((h) => h.expiresAt === null || h.expiresAt > now)
        .map((h) => this.view(h, now)),
      sources: [...this.sourcesById.values()].map((s) => ({
        id: s.id,
        label: s.label,
        source_class: s.sourceClass,
        external: s.external,
        enabled: this.enabled(s.id),
        priority: this.priorityOf(s.id),
        priority_override: this.current.sources[s.id]?.priority ?? null,
        counts: { ...this.countsOf(s.id) },
      })),
      take_over_priority: this.current.take_over_priority,
      live_timeout_ms: this.current.live_timeout_ms,
    };
  }

  settings(): CommandPathSettings {
    return structuredClone(this.current);
  }

  /**
   * Applies a validated patch; on disk before it takes effect (a failed write changes nothing).
   * 400 naming the field for an unknown source or switching off the operator or Blackout.
   */
  async updateSettings(p: CommandPathPatch): Promise<CommandPathSettings> {
    const fields = ['priorities', 'take_over_priority', 'live_timeout_ms', 'rate_limit', 'sources'] as const;
    if (!fields.some((f) => p[f] !== undefined))
      throw new ValidationError(`body: no setting given (expected ${fields.join(', ')})`);
    for (const [id, v] of Object.entries(p.sources ?? {})) {
      if (!this.sourcesById.has(id)) throw new ValidationError(`sources.${id}: unknown command source`);
      if (ALWAYS_ON.has(id) && v.enabled === false)
        throw new ValidationError(`sources.${id}.enabled: ${id} cannot be switched off`);
      if (id === BLACKOUT_SOURCE && v.priority != null)
        throw new ValidationError(`sources.${id}.priority: Blackout is always 100`);
    }
    const next = applyPatch(this.current, p);
    await this.deps.file?.save(next);
    const rateChanged = JSON.stringify(next.rate_limit) !== JSON.stringify(this.current.rate_limit);
    this.current = next;
    if (rateChanged) this.buckets.reset();
    // A switched-off source lets go of what it held.
    for (const [id, v] of Object.entries(next.sources))
      if (!v.enabled) this.holds = release(this.holds, id).holds;
    this.deps.log.info({ settings: next }, 'command path settings changed');
    this.changed();
    return this.settings();
  }

  /** Told of every owners change (and each lapse of a live hold). */
  subscribe(fn: (v: OwnersView) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  stop(): void {
    this.timer?.clear();
    this.timer = null;
    this.listeners.clear();
  }

  private resolve(t: TargetJson): Target {
    if (t.kind === 'device') return { kind: 'device', addr: t.addr, group: this.deps.groupOf(t.addr) };
    return t.kind === 'group' ? { kind: 'group', id: t.id } : { kind: 'all' };
  }

  private view(h: Hold, now: number): HolderView {
    return {
      target: targetJson(h.target),
      target_label: targetLabel(h.target),
      source: h.source,
      source_label: this.sourcesById.get(h.source)?.label ?? h.source,
      source_class: h.sourceClass,
      priority: h.priority,
      mode: h.mode,
      since_epoch_ms: h.since,
      timeout_left_ms: h.expiresAt === null ? null : Math.max(0, h.expiresAt - now),
      action: h.action,
    };
  }

  private countsOf(id: string): Record<CommandResult, number> {
    let c = this.counts.get(id);
    if (!c) this.counts.set(id, (c = { accepted: 0, refused: 0, rate_limited: 0, disabled: 0 }));
    return c;
  }

  /** Counts every command; writes one Log line per external one (the UI's own stay quiet). */
  private note(
    src: SourceInfo,
    result: CommandResult,
    target: () => string,
    action: string,
    reason: string | null,
    now?: number,
  ): void {
    this.countsOf(src.id)[result]++;
    if (!src.external) return;
    const line = { source: src.id, target: target(), action, result, ...(reason ? { reason } : {}) };
    if (result === 'accepted') return this.deps.log.debug(line, 'external command');
    if (result !== 'rate_limited' || now === undefined) return this.deps.log.info(line, 'external command');
    // A flood: the first refusal of each second is written, with how many were not.
    const r = this.rateLogged.get(src.id);
    if (r && now - r.at < RATE_LOG_EVERY_MS) {
      r.suppressed++;
      return;
    }
    this.rateLogged.set(src.id, { at: now, suppressed: 0 });
    this.deps.log.info({ ...line, not_logged_since: r?.suppressed ?? 0 }, 'external command');
  }

  private changed(): void {
    this.schedule();
    if (this.listeners.size === 0) return;
    const v = this.owners();
    for (const fn of this.listeners) fn(v);
  }

  /** Wakes at the next live hold's lapse, so the owners view changes without a command. */
  private schedule(): void {
    this.timer?.clear();
    this.timer = null;
    const next = Math.min(...this.holds.map((h) => h.expiresAt ?? Infinity));
    if (!Number.isFinite(next)) return;
    this.timer = this.deps.setTimer(
      () => {
        this.timer = null;
        const now = this.deps.now();
        const before = this.holds.length;
        this.holds = this.holds.filter((h) => h.expiresAt === null || h.expiresAt > now);
        if (this.holds.length !== before) this.changed();
        else this.schedule();
      },
      Math.max(1, next - this.deps.now()),
    );
  }
}
