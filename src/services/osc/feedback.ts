/**
 * What a control surface shows (OSC feedback): the flag that is up, the running scene, each
 * group's name, brightness and on/off. Values are recomputed when the host says something
 * changed (a short coalescing delay: a status poll changes many rows at once) and only the
 * values that differ from the last ones sent go out.
 */
import type { FlagState } from '../flags/index.ts';
import { FLAGS } from '../flags/index.ts';
import type { OscFeedbackSource, OscMessage } from './server.ts';

export interface FeedbackDeps {
  flag(): FlagState;
  runningScene(): string | null;
  groups(): readonly { id: number; name: string }[];
  devices(): readonly { groupId: number; brightness: number }[];
  /** Who holds what, as extra feedback values (the command path's owners), if known. */
  extra?(): OscMessage[];
  /** Calls back when any of the above may have changed; returns the unsubscribe. */
  watch(changed: () => void): () => void;
  setTimer(fn: () => void, ms: number): { cancel(): void };
}

const COALESCE_MS = 50;

export function feedbackValues(d: FeedbackDeps): OscMessage[] {
  const f = d.flag();
  const out: OscMessage[] = [
    ['/lightnet/flag', f.flag ?? 'none'],
    ...FLAGS.map((x): OscMessage => [`/lightnet/flag/${x}`, f.flag === x ? 1 : 0]),
    ['/lightnet/flag/source', f.source ?? ''],
    ['/lightnet/scene/running', d.runningScene() ?? ''],
  ];
  const bri = new Map<number, number>();
  for (const dev of d.devices()) bri.set(dev.groupId, Math.max(bri.get(dev.groupId) ?? 0, dev.brightness));
  for (const g of d.groups()) {
    const b = bri.get(g.id) ?? 0;
    out.push(
      [`/lightnet/group/${g.id}/name`, g.name],
      [`/lightnet/group/${g.id}/brightness`, b],
      [`/lightnet/group/${g.id}/on`, b > 0 ? 1 : 0],
    );
  }
  if (d.extra) out.push(...d.extra());
  return out;
}

export class OscFeedback implements OscFeedbackSource {
  private last = new Map<string, string>();
  private readonly listeners = new Set<(changed: OscMessage[]) => void>();
  private timer: { cancel(): void } | null = null;
  private stopWatch: (() => void) | null = null;

  constructor(private readonly d: FeedbackDeps) {}

  /** Every value now (a subscriber's first view); what counts as changed is not touched. */
  all(): OscMessage[] {
    return feedbackValues(this.d);
  }

  onChange(fn: (changed: OscMessage[]) => void): () => void {
    this.listeners.add(fn);
    if (!this.stopWatch) {
      this.remember(feedbackValues(this.d));
      this.stopWatch = this.d.watch(() => this.schedule());
    }
    return () => {
      this.listeners.delete(fn);
      if (this.listeners.size === 0) {
        this.stopWatch?.();
        this.stopWatch = null;
        this.timer?.cancel();
        this.timer = null;
      }
    };
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = this.d.setTimer(() => {
      this.timer = null;
      const values = feedbackValues(this.d);
      const changed = values.filter(([a, ...args]) => this.last.get(a) !== JSON.stringify(args));
      this.remember(values);
      if (changed.length > 0) for (const fn of this.listeners) fn(changed);
    }, COALESCE_MS);
  }

  private remember(values: OscMessage[]): void {
    this.last = new Map(values.map(([a, ...args]) => [a, JSON.stringify(args)]));
  }
}
