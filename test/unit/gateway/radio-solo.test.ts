import { describe, expect, it } from 'vitest';
import { Radio, networkLegs } from '../../../src/gateway/radio.ts';
import type { GatewayDriver, GatewayReadiness } from '../../../src/gateway/types.ts';
import { TypedEmitter } from '../../../src/util/typed-emitter.ts';
import type { GatewayDriverEvents } from '../../../src/gateway/types.ts';

/** Just enough of a driver: readiness, snapshots, send (records its calls). */
function fakeDriver(mac: string) {
  const events = new TypedEmitter<GatewayDriverEvents>();
  const sent: unknown[][] = [];
  const readiness: GatewayReadiness = {
    ready: true,
    last_error: null,
    failure_count: 0,
    transport: 'serial',
    port: '/dev/ttyACM0',
    gateway_mac: mac,
    next_retry_in_s: null,
  };
  const driver = {
    readiness: () => ({ ...readiness }),
    master: () => ({
      state: 'IDLE',
      state_byte: 0,
      state_metadata_ms: 0,
      last_event: null,
      last_event_ts: 0,
      last_error: null,
    }),
    stats: () => ({
      framesSent: 1,
      framesRejected: 0,
      framesTimedOut: 0,
      replies: 2,
      airtimeMs: 3,
      queueDepth: 0,
    }),
    on: (e: keyof GatewayDriverEvents, fn: (p: never) => void) => events.on(e, fn as never),
    send: (...a: unknown[]) => {
      sent.push(a);
      return Promise.resolve({ ok: true as const });
    },
  } as unknown as GatewayDriver;
  return { driver, sent, events };
}

describe('the Radio with one gateway', () => {
  const setup = () => {
    const f = fakeDriver('48:CA:43:10:20:30');
    const radio = new Radio([{ driver: f.driver, label: '/dev/ttyACM0' }], {
      networks: () => [{ id: 1, name: 'Network 1', gateway_mac: '48CA43102030' }],
      networkOf: () => 1,
      networksOfGroup: () => [1],
    });
    return { ...f, radio };
  };

  it('passes-everything-straight-through-while-the-gateway-serves-its-network', async () => {
    const { radio, driver, sent } = setup();
    radio.bind(0, 1);
    // Exactly the driver's answers: no aggregate fields.
    expect(radio.readiness()).toEqual(driver.readiness());
    expect(radio.master()).toEqual(driver.master());
    expect(radio.stats()).toEqual(driver.stats());
    expect(networkLegs(radio)).toBeNull();
    const out = await radio.send('ABCDEF', { kind: 'SYNC' } as never, {});
    expect(out).toEqual({ ok: true });
    expect(sent).toEqual([['ABCDEF', { kind: 'SYNC' }, {}]]);
  });

  it('before-the-gateway-identified-itself-its-own-answers-stand-as-always', () => {
    const { radio, driver } = setup();
    // Unplugged at start: not bound yet, not held: no aggregate fields, no invented parts.
    expect(radio.readiness()).toEqual(driver.readiness());
    expect(radio.master()).toEqual(driver.master());
  });

  it('a-held-gateway-carries-nothing-and-says-why', async () => {
    const { radio, sent } = setup();
    radio.bind(0, null, { networkId: null, reason: 'gateway 48CA43102130 belongs to no network' });
    const r = radio.readiness();
    expect(r.ready).toBe(false);
    expect(r.last_error).toMatch(/belongs to no network|not connected/);
    const out = await radio.send('ABCDEF', { kind: 'SYNC' } as never, {});
    expect(out.ok).toBe(false);
    expect(sent).toEqual([]);
  });
});
