/**
 * One device's signal and battery history in typed arrays: a ring of samples
 * (time, RSSI/SNR both ways, battery) merged into fixed time buckets, so memory per
 * device is bounded by the bucket count, not by how often the device is polled.
 * 12 bytes per sample (whole seconds, RSSI in dBm, SNR in quarter dB); storage grows
 * by doubling up to the capacity, so a device polled rarely costs little.
 */

/** Marks a value the sample did not carry (e.g. node-side fields of an ACK). */
export const MISSING = -32768;

export interface SampleInput {
  /** Unix seconds. */
  ts: number;
  host_rssi: number;
  host_snr: number;
  node_rssi?: number;
  node_snr?: number;
  voltage_mV?: number;
}

export interface SeriesJson {
  ts: number[];
  host_rssi: number[];
  host_snr: number[];
  node_rssi: (number | null)[];
  node_snr: (number | null)[];
  voltage_mV: (number | null)[];
}

/** Bytes one sample costs: ts (4) + two RSSI (2 × 2) + two SNR (2 × 1) + battery (2). */
export const BYTES_PER_SAMPLE = 12;
/** Marks a missing SNR in its 8-bit slot. */
const MISSING_SNR = -128;
const INITIAL = 32;

// SNR in quarter-dB steps (as the radio reports it) in 8 bits: -31.75 … +31.75 dB covers LoRa's range.
const snrIn = (v: number): number => Math.max(-127, Math.min(127, Math.round(v * 4)));
const i16 = (v: number): number => Math.max(-32767, Math.min(32767, Math.round(v)));

export class SampleRing {
  private ts: Uint32Array;
  private hostRssi: Int16Array;
  private hostSnr: Int8Array;
  private nodeRssi: Int16Array;
  private nodeSnr: Int8Array;
  private volt: Uint16Array;
  private head = 0;
  private count = 0;

  constructor(
    readonly capacity: number,
    /** Samples closer than this (seconds) to the newest are merged into it. */
    readonly bucketS: number,
  ) {
    const n = Math.min(INITIAL, capacity);
    this.ts = new Uint32Array(n);
    this.hostRssi = new Int16Array(n);
    this.hostSnr = new Int8Array(n);
    this.nodeRssi = new Int16Array(n);
    this.nodeSnr = new Int8Array(n);
    this.volt = new Uint16Array(n);
  }

  get length(): number {
    return this.count;
  }

  /** Bytes held by the typed arrays (allocated, not only used). */
  get bytes(): number {
    return this.ts.length * BYTES_PER_SAMPLE;
  }

  add(s: SampleInput): void {
    const last = this.count > 0 ? this.index(this.count - 1) : -1;
    let i: number;
    if (last >= 0 && s.ts - (this.ts[last] ?? 0) < this.bucketS) {
      i = last; // same bucket: the newest reading wins, node fields only when carried
    } else {
      if (this.count === this.ts.length && this.ts.length < this.capacity) this.grow();
      if (this.count < this.ts.length) {
        i = this.index(this.count);
        this.count++;
      } else {
        i = this.head;
        this.head = (this.head + 1) % this.ts.length;
      }
      this.nodeRssi[i] = MISSING;
      this.nodeSnr[i] = MISSING_SNR;
      this.volt[i] = 0;
    }
    this.ts[i] = Math.round(s.ts);
    this.hostRssi[i] = i16(s.host_rssi);
    this.hostSnr[i] = snrIn(s.host_snr);
    if (s.node_rssi !== undefined) this.nodeRssi[i] = i16(s.node_rssi);
    if (s.node_snr !== undefined) this.nodeSnr[i] = snrIn(s.node_snr);
    if (s.voltage_mV !== undefined) this.volt[i] = Math.max(0, Math.min(65535, Math.round(s.voltage_mV)));
  }

  /** Samples with ts >= sinceS, oldest first, as columns. */
  toJson(sinceS = 0): SeriesJson {
    const out: SeriesJson = {
      ts: [],
      host_rssi: [],
      host_snr: [],
      node_rssi: [],
      node_snr: [],
      voltage_mV: [],
    };
    for (let k = 0; k < this.count; k++) {
      const i = this.index(k);
      const t = this.ts[i] ?? 0;
      if (t < sinceS) continue;
      const nr = this.nodeRssi[i] ?? MISSING;
      const ns = this.nodeSnr[i] ?? MISSING_SNR;
      const v = this.volt[i] ?? 0;
      out.ts.push(t);
      out.host_rssi.push(this.hostRssi[i] ?? 0);
      out.host_snr.push((this.hostSnr[i] ?? 0) / 4);
      out.node_rssi.push(nr === MISSING ? null : nr);
      out.node_snr.push(ns === MISSING_SNR ? null : ns / 4);
      out.voltage_mV.push(v === 0 ? null : v);
    }
    return out;
  }

  /** Worst (lowest) values since sinceS, null when no sample carried them. */
  worst(sinceS = 0): {
    host_rssi: number | null;
    host_snr: number | null;
    node_rssi: number | null;
    node_snr: number | null;
  } {
    let hr: number | null = null;
    let hs: number | null = null;
    let nr: number | null = null;
    let ns: number | null = null;
    for (let k = 0; k < this.count; k++) {
      const i = this.index(k);
      if ((this.ts[i] ?? 0) < sinceS) continue;
      const a = this.hostRssi[i] ?? 0;
      const b = (this.hostSnr[i] ?? 0) / 4;
      const c = this.nodeRssi[i] ?? MISSING;
      const d = this.nodeSnr[i] ?? MISSING_SNR;
      hr = hr === null ? a : Math.min(hr, a);
      hs = hs === null ? b : Math.min(hs, b);
      if (c !== MISSING) nr = nr === null ? c : Math.min(nr, c);
      if (d !== MISSING_SNR) ns = ns === null ? d / 4 : Math.min(ns, d / 4);
    }
    return { host_rssi: hr, host_snr: hs, node_rssi: nr, node_snr: ns };
  }

  private index(k: number): number {
    return (this.head + k) % this.ts.length;
  }

  /** Doubles the arrays, unrolling the ring so the oldest sample sits at 0. */
  private grow(): void {
    const n = Math.min(this.capacity, this.ts.length * 2);
    const order = Array.from({ length: this.count }, (_, k) => this.index(k));
    const copy = <A extends Uint32Array | Int16Array | Int8Array | Uint16Array>(src: A, dst: A): A => {
      order.forEach((from, to) => (dst[to] = src[from] ?? 0));
      return dst;
    };
    this.ts = copy(this.ts, new Uint32Array(n));
    this.hostRssi = copy(this.hostRssi, new Int16Array(n));
    this.hostSnr = copy(this.hostSnr, new Int8Array(n));
    this.nodeRssi = copy(this.nodeRssi, new Int16Array(n));
    this.nodeSnr = copy(this.nodeSnr, new Int8Array(n));
    this.volt = copy(this.volt, new Uint16Array(n));
    this.head = 0;
  }
}
