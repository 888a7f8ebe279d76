import { describe, expect, it } from 'vitest';
import { DEFAULT_DRIVER_OPTIONS, resolveDriverOptions } from '../../../src/gateway/options.ts';
import { REPLY_BODY, replyWindows, type ReplyKind } from '../../../src/gateway/reply-windows.ts';
import { loraParamsFromRf, packetAirtimeMs } from '../../../src/protocol/airtime.ts';
import { DEFAULT_RF, type RfConfig } from '../../../src/protocol/types.ts';

const at = (rf: Partial<RfConfig>) =>
  replyWindows(resolveDriverOptions(), loraParamsFromRf({ ...DEFAULT_RF, ...rf }));
const symbolMs = (sf: number, bwHz = 125_000): number => (2 ** sf * 1000) / bwHz;
/** Node CAD (4 symbols) + reply packet, straight from the airtime helpers. */
const slot = (kind: ReplyKind, rf: Partial<RfConfig>): number => {
  const full = { ...DEFAULT_RF, ...rf };
  return (
    4 * symbolMs(full.sf, full.bwKhzX10 * 100) + packetAirtimeMs(REPLY_BODY[kind], loraParamsFromRf(full))
  );
};
const growth = (kind: ReplyKind, rf: Partial<RfConfig>): number => slot(kind, rf) - slot(kind, {});

describe('reply windows at the active RF settings', () => {
  it('at SF7/125 kHz every window is exactly the §9.2 value', () => {
    const w = at({});
    expect(w.statusUnicastMs).toBe(1150);
    expect(w.setGroupTimeoutMs).toBe(1500);
    expect(w.configTimeoutMs).toBe(1500);
    expect(w.getConfigTimeoutMs).toBe(1500);
    expect(w.discoveryMaxMs).toBe(5000);
    expect(w.discoveryIdleMs).toBe(600);
    expect(w.statusIdleMs).toBe(600);
    expect(w.nodeBusyMs('identify')).toBe(5000);
    expect(w.unicastMs(6000, 'ack')).toBe(6000);
    for (let n = 0; n <= 40; n++) {
      expect(w.statusMaxMs(n)).toBe(Math.min(5000, 1000 + 150 * n));
      expect(w.streamMaxMs(n)).toBe(Math.min(6000, 1000 + 150 * Math.max(1, n)));
    }
  });

  it('faster settings never shrink a window below the §9.2 value', () => {
    const w = at({ bwKhzX10: 2500 });
    expect(growth('status', { bwKhzX10: 2500 })).toBeLessThan(0);
    expect(w.statusUnicastMs).toBe(1150);
    expect(w.discoveryIdleMs).toBe(600);
    expect(w.statusMaxMs(3)).toBe(1450);
  });

  it('at SF12/125 kHz the windows grow by the extra CAD + reply airtime', () => {
    const sf12 = { sf: 12 };
    const w = at(sf12);
    // The reply alone: ~1.16 s for a STATUS_REPLY, ~1.32 s for an IDENTIFY_REPLY.
    expect(packetAirtimeMs(8, loraParamsFromRf({ ...DEFAULT_RF, sf: 12 }))).toBeCloseTo(1155.072, 6);
    expect(w.statusUnicastMs).toBe(Math.ceil(1150 + 2 * growth('status', sf12)));
    expect(w.statusUnicastMs).toBe(3622);
    expect(w.setGroupTimeoutMs).toBe(3654);
    expect(w.configTimeoutMs).toBe(3654);
    expect(w.getConfigTimeoutMs).toBe(3982);
    expect(w.discoveryMaxMs).toBe(Math.ceil(5000 + growth('identify', sf12)));
    expect(w.discoveryIdleMs).toBe(Math.ceil(600 + 2 * growth('identify', sf12)));
    expect(w.statusIdleMs).toBe(3072);
    // One expected reply costs what a unicast poll does; the ceiling is bounded by the give-up.
    expect(w.statusMaxMs(1)).toBe(w.statusUnicastMs);
    expect(w.statusMaxMs(50)).toBe(Math.ceil(5000 + growth('status', sf12)));
    expect(w.streamMaxMs(1)).toBe(Math.ceil(1150 + 2 * growth('ack', sf12)));
    // A caller's override (an SF7 value) is stretched like the defaults.
    expect(w.unicastMs(6000, 'ack')).toBe(Math.ceil(6000 + 2 * growth('ack', sf12)));
  });

  it('idle gaps exceed one reply slot plus the longest LBT backoff at every spreading factor', () => {
    for (const sf of [7, 8, 9, 10, 11, 12]) {
      const w = at({ sf });
      // After a reply ends, the next node backs off ≤ 200 ms, runs its CAD, then sends.
      expect(w.discoveryIdleMs).toBeGreaterThan(200 + slot('identify', { sf }));
      expect(w.statusIdleMs).toBeGreaterThan(200 + slot('status', { sf }));
      // A unicast reply: node delay ≤ 300 ms, CAD, the reply, with room for one more packet.
      expect(w.statusUnicastMs).toBeGreaterThan(300 + 2 * slot('status', { sf }));
      expect(w.setGroupTimeoutMs).toBeGreaterThan(300 + 2 * slot('ack', { sf }));
    }
  });

  it('windows grow monotonically with the spreading factor', () => {
    const ws = [7, 8, 9, 10, 11, 12].map((sf) => at({ sf }));
    for (let i = 1; i < ws.length; i++) {
      const [a, b] = [ws[i - 1], ws[i]];
      if (!a || !b) throw new Error('unreachable');
      expect(b.statusUnicastMs).toBeGreaterThan(a.statusUnicastMs);
      expect(b.discoveryIdleMs).toBeGreaterThan(a.discoveryIdleMs);
      expect(b.discoveryMaxMs).toBeGreaterThan(a.discoveryMaxMs);
      expect(b.statusMaxMs(4)).toBeGreaterThan(a.statusMaxMs(4));
    }
  });

  it('the windows follow the option values they stretch', () => {
    const o = { ...DEFAULT_DRIVER_OPTIONS, statusUnicastMs: 2000, discoveryIdleMs: 900 };
    const p = loraParamsFromRf({ ...DEFAULT_RF, sf: 10 });
    const w = replyWindows(o, p);
    expect(w.statusUnicastMs).toBe(Math.ceil(2000 + 2 * growth('status', { sf: 10 })));
    expect(w.discoveryIdleMs).toBe(Math.ceil(900 + 2 * growth('identify', { sf: 10 })));
  });
});
