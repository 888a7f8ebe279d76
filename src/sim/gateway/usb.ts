/**
 * The simulated gateway's USB side: at most one connected host link, and whether the USB
 * device is present at all. It disappears while the gateway reboots (native USB-CDC boards
 * re-enumerate) and while the "link drop" fault is active. Transports that serve the
 * gateway (memory endpoint, TCP server) watch `events` to refuse or break connections.
 */
import type { Link } from '../../transport/link.ts';
import { dropLink } from '../../transport/memory-link.ts';
import { TypedEmitter } from '../../util/typed-emitter.ts';

export interface UsbEvents extends Record<string, unknown> {
  /** The USB device appeared (true) or vanished (false; `err` is what the host should see). */
  presence: { present: boolean; err?: Error };
  attached: { link: Link };
  detached: { err?: Error };
}

export class UsbRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsbRefusedError';
  }
}

export class UsbPort {
  readonly events = new TypedEmitter<UsbEvents>();
  onBytes: (chunk: Uint8Array) => void = () => {};
  /** Called after a host link was attached (e.g. to emulate a reset-on-open). */
  onAttach: () => void = () => {};
  bytesOut = 0;
  bytesIn = 0;
  private link: Link | null = null;
  private unsubs: (() => void)[] = [];
  private faultAbsent = false;
  private rebootAbsent = false;

  get present(): boolean {
    return !this.faultAbsent && !this.rebootAbsent;
  }

  get attached(): boolean {
    return this.link !== null && this.link.isOpen;
  }

  /** Connects a host link (the device end of a pipe, a TCP socket adapter, …). */
  attach(link: Link): void {
    if (!this.present) throw new UsbRefusedError('gateway USB device is not present');
    if (this.attached) throw new UsbRefusedError('gateway USB port is already in use');
    this.detach();
    this.link = link;
    this.unsubs = [
      link.onData((chunk) => {
        this.bytesIn += chunk.length;
        this.onBytes(chunk);
      }),
      link.onClose((err) => {
        if (this.link === link) this.detach(err);
      }),
    ];
    this.events.emit('attached', { link });
    this.onAttach();
  }

  write(bytes: Uint8Array): void {
    const link = this.link;
    if (!link || !link.isOpen) return;
    this.bytesOut += bytes.length;
    // A host that stopped reading is not the gateway's problem: errors are swallowed.
    link.write(bytes).catch(() => {});
  }

  /** Fault injection: the USB cable is pulled (true) or plugged back (false). */
  setFaultAbsent(absent: boolean, err: Error = new Error('gateway USB link dropped')): void {
    this.setAbsent(() => (this.faultAbsent = absent), err);
  }

  /** The gateway reboots: its USB device vanishes until it is back up. */
  setRebootAbsent(absent: boolean, err: Error = new Error('gateway rebooted (USB re-enumerating)')): void {
    this.setAbsent(() => (this.rebootAbsent = absent), err);
  }

  private setAbsent(change: () => void, err: Error): void {
    const before = this.present;
    change();
    if (before === this.present) return;
    if (!this.present) {
      this.events.emit('presence', { present: false, err });
      // Fallback for links nobody else manages (plain memory pairs in tests).
      const link = this.link;
      if (link?.isOpen) {
        if (link.kind === 'memory') dropLink(link, err);
        else void link.close();
      }
      this.detach(err);
    } else {
      this.events.emit('presence', { present: true });
    }
  }

  private detach(err?: Error): void {
    for (const u of this.unsubs) u();
    this.unsubs = [];
    const had = this.link !== null;
    this.link = null;
    if (had) this.events.emit('detached', err ? { err } : {});
  }
}
