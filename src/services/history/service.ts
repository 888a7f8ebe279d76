/**
 * Signal and battery history per device, heard from every forwarded reply: host-side
 * RSSI/SNR of each packet, node-side RSSI/SNR and battery of STATUS replies, an
 * online/offline timeline, and counters of replies and failed exchanges (a device in
 * a poll's scope that stayed silent, a lost link-test exchange). In memory only:
 * bounded per device (default 4 h at one sample per 15 s), gone after a restart.
 */
import type { Clock } from '../../clock.ts';
import type { GatewayDriver, InboundPacket } from '../../gateway/types.ts';
import type { Logger } from '../../logger.ts';
import type { Addr } from '../../protocol/types.ts';
import { SampleRing, type SeriesJson } from './ring.ts';

export interface HistoryOptions {
  /** Seconds per sample bucket (default 15). */
  bucketS: number;
  /** Samples kept per device (default 960: 4 h at 15 s). */
  capacity: number;
  /** Online/offline transitions kept per device. */
  timelineCapacity: number;
}

export const DEFAULT_HISTORY: HistoryOptions = { bucketS: 15, capacity: 960, timelineCapacity: 200 };

export interface Transition {
  /** Unix seconds. */
  ts: number;
  online: boolean;
}

export interface DeviceHistoryJson {
  addr: Addr;
  /** The host's clock now (unix seconds): the timeline's last state lasts until then. */
  now_ts: number;
  bucket_s: number;
  capacity: number;
  samples: SeriesJson;
  timeline: Transition[];
  replies: number;
  failures: number;
}

export interface LinkSummary {
  addr: Addr;
  samples: number;
  replies: number;
  failures: number;
  /** Worst values over the window. */
  worst: ReturnType<SampleRing['worst']>;
  /** Share of the window the device was known to be online (0..1), null when never heard. */
  online_ratio: number | null;
}

/** What the service needs from the device registry. */
export interface HistoryRegistry {
  find(addr: Addr): unknown;
  onSilent(fn: (addrs: readonly Addr[]) => void): () => void;
}

interface Track {
  ring: SampleRing;
  timeline: Transition[];
  online: boolean | null;
  replies: number;
  failures: number;
}

export class HistoryService {
  private readonly tracks = new Map<Addr, Track>();
  private readonly opts: HistoryOptions;

  constructor(
    private readonly deps: {
      /** Only the packet event is used. */
      driver: Pick<GatewayDriver, 'on'>;
      registry: HistoryRegistry;
      clock: Clock;
      log: Logger;
      options?: Partial<HistoryOptions>;
    },
  ) {
    this.opts = { ...DEFAULT_HISTORY, ...deps.options };
  }

  attach(): () => void {
    const offs = [
      this.deps.driver.on('packet', (p) => this.onPacket(p)),
      this.deps.registry.onSilent((addrs) => {
        for (const a of addrs) this.noteSilent(a);
      }),
    ];
    return () => offs.forEach((f) => f());
  }

  /** A lost exchange that does not by itself make the device offline (a link-test probe). */
  noteFailure(addr: Addr): void {
    this.track(addr).failures++;
  }

  /** A device a status poll asked and did not hear: a failed exchange, and offline. */
  private noteSilent(addr: Addr): void {
    const t = this.track(addr);
    t.failures++;
    if (t.online !== false) {
      this.transition(t, false);
      this.deps.log.debug({ device: addr, cat: 'radio' }, 'device offline: no reply to the status poll');
    }
  }

  history(addr: Addr, sinceS = 0): DeviceHistoryJson {
    const t = this.tracks.get(addr);
    return {
      addr,
      now_ts: this.deps.clock.now() / 1000,
      bucket_s: this.opts.bucketS,
      capacity: this.opts.capacity,
      samples: t ? t.ring.toJson(sinceS) : new SampleRing(1, 1).toJson(),
      timeline: t ? t.timeline.filter((x) => x.ts >= sinceS) : [],
      replies: t?.replies ?? 0,
      failures: t?.failures ?? 0,
    };
  }

  /** Per device: worst link values and counters over the last `windowS` seconds. */
  summary(windowS: number): LinkSummary[] {
    const now = this.deps.clock.now() / 1000;
    const since = now - windowS;
    const out: LinkSummary[] = [];
    for (const [addr, t] of this.tracks) {
      out.push({
        addr,
        samples: t.ring.length,
        replies: t.replies,
        failures: t.failures,
        worst: t.ring.worst(since),
        online_ratio: onlineRatio(t, since, now),
      });
    }
    return out;
  }

  /** Forgets devices' history (they were forgotten; a node that returns starts a new one). */
  drop(addrs: Iterable<Addr>): void {
    for (const a of addrs) this.tracks.delete(a);
  }

  /** Bytes held by every device's sample arrays. */
  memoryBytes(): number {
    let n = 0;
    for (const t of this.tracks.values()) n += t.ring.bytes + t.timeline.length * 24;
    return n;
  }

  private onPacket(p: InboundPacket): void {
    const r = p.reply;
    if (!r) return;
    const addr = p.packet.sender;
    if (!this.deps.registry.find(addr)) return;
    const t = this.track(addr);
    t.replies++;
    const ts = this.deps.clock.now() / 1000;
    if (r.kind === 'STATUS_REPLY') {
      t.ring.add({
        ts,
        host_rssi: p.rssi,
        host_snr: p.snr,
        node_rssi: r.rssi,
        node_snr: r.snr,
        voltage_mV: r.vbatMv,
      });
    } else {
      t.ring.add({ ts, host_rssi: p.rssi, host_snr: p.snr });
    }
    if (t.online !== true) {
      if (t.online === false)
        this.deps.log.debug({ device: addr, cat: 'radio', rssi: p.rssi }, 'device back online');
      this.transition(t, true);
    }
  }

  private transition(t: Track, online: boolean): void {
    t.online = online;
    t.timeline.push({ ts: this.deps.clock.now() / 1000, online });
    if (t.timeline.length > this.opts.timelineCapacity) t.timeline.shift();
  }

  private track(addr: Addr): Track {
    let t = this.tracks.get(addr);
    if (!t) {
      t = {
        ring: new SampleRing(this.opts.capacity, this.opts.bucketS),
        timeline: [],
        online: null,
        replies: 0,
        failures: 0,
      };
      this.tracks.set(addr, t);
    }
    return t;
  }
}

function onlineRatio(t: Track, since: number, now: number): number | null {
  if (t.timeline.length === 0 || now <= since) return null;
  let onlineS = 0;
  // The state at `since` is the last transition before it (unknown before the first).
  let state: boolean | null = null;
  let from = since;
  for (const x of t.timeline) {
    if (x.ts <= since) {
      state = x.online;
      continue;
    }
    if (state) onlineS += x.ts - from;
    state = x.online;
    from = x.ts;
  }
  if (state) onlineS += now - from;
  const first = t.timeline[0]?.ts ?? since;
  const span = now - Math.max(since, first);
  return span > 0 ? Math.min(1, onlineS / span) : state ? 1 : 0;
}
