/**
 * USB link framing (wire-protocol §2): `00 | LEN | TYPE | DATA`, no stuffing, no checksum.
 * Two decoders: the robust host-side one (§2.5) and an exact model of the gateway's own
 * receive loop (§2.3), which the simulated gateway uses so that host mistakes (stray 0x00,
 * gaps inside a frame) have the same consequences as on real hardware.
 */
import { EV, IDENTIFY_PREFIX, type DecodedItem, type RawFrame } from './types.ts';

export function encodeFrame(type: number, data: Uint8Array = new Uint8Array(0)): Uint8Array {
  const len = 1 + data.length;
  if (len > 255) throw new RangeError(`frame LEN ${len} exceeds 255`);
  if (!Number.isInteger(type) || type < 0 || type > 255)
    throw new RangeError(`frame TYPE ${type} is not a byte`);
  const out = new Uint8Array(2 + len);
  out[0] = 0x00;
  out[1] = len;
  out[2] = type;
  out.set(data, 3);
  return out;
}

/** The gateway's unframed identify answer: prefix + "XX:XX:XX:XX:XX:XX" (36 ASCII bytes). */
export function encodeIdentifyAnswer(mac: string): Uint8Array {
  const hex = mac.replace(/[^0-9a-fA-F]/g, '').toUpperCase();
  if (hex.length !== 12)
    throw new RangeError(`identify MAC must have 12 hex digits (got ${JSON.stringify(mac)})`);
  const colon = hex.match(/../g)?.join(':') ?? '';
  return new TextEncoder().encode(IDENTIFY_PREFIX + colon);
}

const IDENT_PREFIX_BYTES = new TextEncoder().encode(IDENTIFY_PREFIX);
const IDENT_LEN = IDENT_PREFIX_BYTES.length + 17;

function isHexChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** Checks whether `w` (exactly IDENT_LEN bytes) is an identify answer; returns the MAC. */
function matchIdentify(w: readonly number[]): string | null {
  for (let i = 0; i < IDENT_PREFIX_BYTES.length; i++) if (w[i] !== IDENT_PREFIX_BYTES[i]) return null;
  const base = IDENT_PREFIX_BYTES.length;
  for (let i = 0; i < 17; i++) {
    const c = w[base + i] ?? -1;
    if (i % 3 === 2 ? c !== 0x3a : !isHexChar(c)) return null;
  }
  return String.fromCharCode(...w.slice(base)).toUpperCase();
}

/** Fixed DATA lengths of the gateway events (§4.2); F0 accepts any length. */
function eventDataOk(type: number, n: number): boolean | undefined {
  switch (type) {
    case EV.ERROR:
      return true;
    case EV.STATE_CHANGED:
    case EV.STATE_REPORT:
      return n === 1 || n === 3;
    case EV.TX_DONE:
      return n === 1;
    case EV.TX_REJECTED:
      return n === 2;
    case EV.RF_CHANGED:
      return n === 13;
    default:
      return undefined;
  }
}

/** Host-side plausibility check of a decoded frame (§2.5 "validate by TYPE"). */
export function hostFrameValid(type: number, data: Uint8Array): boolean {
  const ev = eventDataOk(type, data.length);
  if (ev !== undefined) return ev;
  // Anything else can only be a forwarded LoRa packet: Header7 + RSSI/SNR, TYPE duplicated.
  return data.length >= 10 && data[6] === type;
}

export interface HostFrameDecoderOptions {
  partialTimeoutMs?: number;
  maxLen?: number;
}

/**
 * Streaming host decoder. Never throws; accepts any chunking. Bytes of a rejected frame
 * candidate are re-scanned starting at the byte after its SOF, so a bogus `00 nn` in
 * garbage cannot permanently swallow a real frame that is already in the buffer.
 */
export class HostFrameDecoder {
  droppedBytes = 0;
  framesOk = 0;
  /** Internal faults swallowed by push() (must stay 0; exposed so tests can check it). */
  internalErrors = 0;
  private readonly timeoutMs: number;
  private readonly maxLen: number;
  /** Candidate frame bytes; when non-empty, cand[0] is the SOF 0x00. */
  private cand: number[] = [];
  private lastByteMs = 0;
  /** Recent contiguous non-zero hunted bytes, scanned for the unframed identify answer. */
  private ident: number[] = [];

  constructor(opts: HostFrameDecoderOptions = {}) {
    this.timeoutMs = opts.partialTimeoutMs ?? 50;
    this.maxLen = opts.maxLen ?? 64;
  }

  reset(): void {
    this.cand = [];
    this.ident = [];
  }

  push(chunk: Uint8Array, nowMs: number): DecodedItem[] {
    const out: DecodedItem[] = [];
    try {
      if (this.cand.length > 0 && nowMs - this.lastByteMs > this.timeoutMs) this.flushStale(out);
      if (chunk.length > 0) {
        this.lastByteMs = nowMs;
        this.process(Array.from(chunk), out);
      }
    } catch {
      // Defensive: a decoder bug must never take the link down; drop state and carry on.
      this.internalErrors++;
      this.droppedBytes += this.cand.length;
      this.reset();
    }
    return out;
  }

  /** A stale partial frame: re-scan its bytes, and discard whatever stays incomplete. */
  private flushStale(out: DecodedItem[]): void {
    while (this.cand.length > 0) {
      const rest = this.cand.slice(1);
      this.cand = [];
      this.droppedBytes++;
      this.process(rest, out);
    }
  }

  /**
   * Feeds bytes in stream order. A rejected candidate's bytes (after its SOF) are fed again
   * recursively before the rest of the input; nesting is bounded by maxLen.
   */
  private process(input: readonly number[], out: DecodedItem[]): void {
    for (const b of input) {
      if (this.cand.length === 0) {
        this.hunt(b, out);
        continue;
      }
      if (this.cand.length === 1 && b === 0x00) {
        // 0x00 in the LEN position: the earlier 0x00 was noise, this one is the SOF.
        this.droppedBytes++;
        continue;
      }
      this.cand.push(b);
      const len = this.cand[1] as number;
      if (len > this.maxLen) {
        this.process(this.reject(), out);
        continue;
      }
      if (this.cand.length < 2 + len) continue;
      const type = this.cand[2] as number;
      const data = Uint8Array.from(this.cand.slice(3));
      if (hostFrameValid(type, data)) {
        this.cand = [];
        this.framesOk++;
        out.push({ kind: 'frame', frame: { type, data } });
      } else {
        this.process(this.reject(), out);
      }
    }
  }

  /** Drops the candidate's SOF and returns the bytes after it for re-scanning. */
  private reject(): number[] {
    const rest = this.cand.slice(1);
    this.cand = [];
    this.droppedBytes++;
    return rest;
  }

  private hunt(b: number, out: DecodedItem[]): void {
    if (b === 0x00) {
      this.cand = [0x00];
      this.ident = [];
      return;
    }
    this.droppedBytes++;
    this.ident.push(b);
    if (this.ident.length > IDENT_LEN) this.ident.shift();
    if (this.ident.length === IDENT_LEN) {
      const mac = matchIdentify(this.ident);
      if (mac !== null) {
        this.droppedBytes -= IDENT_LEN;
        this.ident = [];
        out.push({ kind: 'identify', mac });
      }
    }
  }
}

/**
 * Exact model of the gateway's `recvSerialBytes` (§2.3): LEN 0 or > 254 abandons the frame
 * (the LEN byte is not re-examined), a partial frame is dropped after > 25 ms of silence.
 */
export class GatewayFrameDecoder {
  static readonly INTER_BYTE_TIMEOUT_MS = 25;
  private inFrame = false;
  private len = -1;
  private buf: number[] = [];
  private lastByteMs = 0;

  reset(): void {
    this.inFrame = false;
    this.len = -1;
    this.buf = [];
  }

  push(chunk: Uint8Array, nowMs: number): RawFrame[] {
    const out: RawFrame[] = [];
    if (this.inFrame && nowMs - this.lastByteMs > GatewayFrameDecoder.INTER_BYTE_TIMEOUT_MS) this.reset();
    if (chunk.length > 0) this.lastByteMs = nowMs;
    for (const b of chunk) {
      if (!this.inFrame) {
        if (b === 0x00) {
          this.inFrame = true;
          this.len = -1;
          this.buf = [];
        }
        continue;
      }
      if (this.len < 0) {
        if (b === 0 || b > 254) {
          this.reset();
          continue;
        }
        this.len = b;
        continue;
      }
      this.buf.push(b);
      if (this.buf.length === this.len) {
        out.push({ type: this.buf[0] as number, data: Uint8Array.from(this.buf.slice(1)) });
        this.reset();
      }
    }
    return out;
  }
}
