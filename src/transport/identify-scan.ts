import { GW_CMD, IDENTIFY_PREFIX } from '../protocol/types.ts';

/** `GW_CMD_IDENTIFY` as a USB frame: SOF, LEN = 1, TYPE = 0x01 (wire-protocol §3.1). */
export const IDENTIFY_REQUEST: Uint8Array = Uint8Array.of(0x00, 0x01, GW_CMD.IDENTIFY);

const MAC_LENGTH = 17;
const MAC_RE = /^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$/;

/** Length of the whole answer: prefix (19) + MAC (17) = 36 bytes. */
export const IDENTIFY_ANSWER_LENGTH = IDENTIFY_PREFIX.length + MAC_LENGTH;

/**
 * Finds the unframed identify answer (`RaceLink_Gateway_v4` + `XX:XX:XX:XX:XX:XX`) in a
 * byte stream: anywhere among boot garbage and event frames, split across any number of
 * chunks. Keeps at most one partial answer between pushes.
 */
export class IdentifyScanner {
  // Bytes as latin1 text: one char per byte, so indices are byte offsets.
  private buf = '';

  /** Feeds bytes; returns the gateway MAC (upper case) once a whole answer was seen. */
  push(chunk: Uint8Array): string | null {
    this.buf += Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
    for (;;) {
      const at = this.buf.indexOf(IDENTIFY_PREFIX);
      if (at < 0) {
        // Keep only what could still be the start of a prefix.
        this.buf = this.buf.slice(Math.max(0, this.buf.length - (IDENTIFY_PREFIX.length - 1)));
        return null;
      }
      const macStart = at + IDENTIFY_PREFIX.length;
      if (this.buf.length < macStart + MAC_LENGTH) {
        this.buf = this.buf.slice(at);
        return null;
      }
      const mac = this.buf.slice(macStart, macStart + MAC_LENGTH);
      if (MAC_RE.test(mac)) {
        this.buf = this.buf.slice(macStart + MAC_LENGTH);
        return mac.toUpperCase();
      }
      // A prefix followed by something that is not a MAC: look further on.
      this.buf = this.buf.slice(at + 1);
    }
  }

  reset(): void {
    this.buf = '';
  }
}
