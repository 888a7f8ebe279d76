/** Pure accumulation of one device's link-test exchanges into loss, round trip and signal ranges. */

export interface Range {
  min: number;
  max: number;
}

export interface LinkTestDeviceResult {
  addr: string;
  name: string;
  sent: number;
  received: number;
  loss_pct: number;
  rtt_ms: { min: number; avg: number; max: number } | null;
  host_rssi: Range | null;
  host_snr: Range | null;
  node_rssi: Range | null;
  node_snr: Range | null;
}

/** The task's result (contract shape; the web UI imports these types). */
export interface LinkTestResult {
  count: number;
  devices: LinkTestDeviceResult[];
}

export interface Probe {
  rttMs: number;
  hostRssi: number;
  hostSnr: number;
  nodeRssi: number;
  nodeSnr: number;
}

const widen = (r: Range | null, v: number): Range =>
  r ? { min: Math.min(r.min, v), max: Math.max(r.max, v) } : { min: v, max: v };

export class LinkStats {
  private sent = 0;
  private rtts: number[] = [];
  private hr: Range | null = null;
  private hs: Range | null = null;
  private nr: Range | null = null;
  private ns: Range | null = null;

  constructor(
    readonly addr: string,
    readonly name: string,
  ) {}

  lost(): void {
    this.sent++;
  }

  heard(p: Probe): void {
    this.sent++;
    this.rtts.push(p.rttMs);
    this.hr = widen(this.hr, p.hostRssi);
    this.hs = widen(this.hs, p.hostSnr);
    this.nr = widen(this.nr, p.nodeRssi);
    this.ns = widen(this.ns, p.nodeSnr);
  }

  result(): LinkTestDeviceResult {
    const n = this.rtts.length;
    const sum = this.rtts.reduce((a, b) => a + b, 0);
    return {
      addr: this.addr,
      name: this.name,
      sent: this.sent,
      received: n,
      loss_pct: this.sent === 0 ? 0 : Math.round(((this.sent - n) / this.sent) * 1000) / 10,
      rtt_ms:
        n === 0
          ? null
          : {
              min: Math.round(Math.min(...this.rtts)),
              avg: Math.round(sum / n),
              max: Math.round(Math.max(...this.rtts)),
            },
      host_rssi: this.hr,
      host_snr: this.hs,
      node_rssi: this.nr,
      node_snr: this.ns,
    };
  }
}
