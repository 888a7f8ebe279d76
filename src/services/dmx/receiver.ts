/** What a DMX receiver hands the service, and how the host starts and stops one. */
import type { SourceFrame } from './merge.ts';
import type { BadPacket } from './service.ts';

export interface DmxSink {
  frame(key: string, f: SourceFrame & { terminated?: boolean }): void;
  bad(key: string | null, kind: BadPacket, detail: string): void;
}

export interface DmxReceiver {
  readonly protocol: 'sacn' | 'artnet';
  /** Binds; resolves with the port it listens on. */
  start(): Promise<number>;
  close(): Promise<void>;
}

/** A UDP payload larger than this is refused before decoding (sACN's largest is 638 bytes, Art-Net's 530). */
export const MAX_PACKET = 1024;
