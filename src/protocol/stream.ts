/** OPC_STREAM fragmentation (gateway side) and reassembly (node side), §6.7. */
import { checkInt } from './bytes.ts';

export const STREAM_START = 0x80;
export const STREAM_STOP = 0x40;
export const STREAM_MAX_PAYLOAD = 128;

/** Splits a 1..128-byte logical payload into 9-byte P_Stream bodies (ctrl + 8 data). */
export function fragmentStream(payload: Uint8Array): Uint8Array[] {
  checkInt('payload length', payload.length, 1, STREAM_MAX_PAYLOAD);
  const k = Math.ceil(payload.length / 8);
  const out: Uint8Array[] = [];
  for (let i = 0; i < k; i++) {
    const body = new Uint8Array(9); // zero-padded
    body[0] = (i === 0 ? STREAM_START : 0) | (i === k - 1 ? STREAM_STOP : 0) | (k - 1 - i);
    body.set(payload.subarray(i * 8, i * 8 + 8), 1);
    out.push(body);
  }
  return out;
}

/**
 * Node-side reassembly (`handleStreamPacket`). Erroneous fragments are ignored and leave
 * the reassembly state untouched; a START always restarts. Returns the padded buffer
 * (8·k bytes) when a STOP completes a valid sequence, otherwise null.
 */
export class StreamReassembler {
  private active = false;
  private lastLeft = 0;
  private parts: Uint8Array[] = [];
  /** Number of fragments ignored as errors (for diagnostics/tests). */
  errors = 0;

  get inProgress(): boolean {
    return this.active;
  }

  reset(): void {
    this.active = false;
    this.parts = [];
    this.lastLeft = 0;
  }

  push(body: Uint8Array): Uint8Array | null {
    if (body.length !== 9) return this.error();
    const ctrl = body[0] as number;
    const start = (ctrl & STREAM_START) !== 0;
    const stop = (ctrl & STREAM_STOP) !== 0;
    const left = ctrl & 0x3f;
    if (left >= 16) return this.error();
    if (start && stop && left !== 0) return this.error();
    if (start && !stop && left === 0) return this.error();
    const data = body.slice(1);
    if (start) {
      this.parts = [data];
      this.lastLeft = left;
      this.active = true;
      return stop ? this.complete() : null;
    }
    if (!this.active) return this.error();
    if (stop) {
      if (left !== 0 || this.lastLeft !== 1) return this.error();
      this.parts.push(data);
      return this.complete();
    }
    if (left !== this.lastLeft - 1) return this.error();
    this.parts.push(data);
    this.lastLeft = left;
    return null;
  }

  private error(): null {
    this.errors++;
    return null;
  }

  private complete(): Uint8Array {
    const out = new Uint8Array(this.parts.length * 8);
    this.parts.forEach((p, i) => out.set(p, i * 8));
    this.reset();
    return out;
  }
}
