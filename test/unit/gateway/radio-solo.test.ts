import { describe, expect, it } from 'vitest';
import { Radio, networkLegs } from '../../../src/gateway/radio/radio.ts';
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
      hasDevices: () => true,
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

describe('the Radio with a spare gateway (in no network)', () => {
  const setup = (networks: { id: number; name: string; gateway_mac: string | null }[], withDevices = [1]) => {
    const a = fakeDriver('48:CA:43:10:20:30');
    const b = fakeDriver('48:CA:43:10:21:30');
    const radio = new Radio(
      [
        { driver: a.driver, label: 'sim:0' },
        { driver: b.driver, label: 'sim:1' },
      ],
      {
        networks: () => networks,
        hasDevices: (id) => withDevices.includes(id),
        networkOf: () => 1,
        networksOfGroup: () => [1],
      },
    );
    return { radio, a, b };
  };
  const spare = {
    networkId: null,
    reason: 'gateway 48CA43102130 on sim:1 belongs to no network (assign it)',
  };

  it('a-working-network-stays-ready-beside-an-unassigned-gateway', () => {
    const { radio } = setup([{ id: 1, name: 'Network 1', gateway_mac: '48CA43102030' }]);
    radio.bind(0, 1);
    radio.bind(1, null, spare);
    const r = radio.readiness() as ReturnType<Radio['readiness']> & Record<string, unknown>;
    expect(r).toMatchObject({
      ready: true,
      last_error: null,
      gateway_mac: '48:CA:43:10:20:30',
      networks_ready: 1,
      networks_total: 1,
    });
    // Listed with no network and why it carries nothing: what it is, not what the fleet is.
    expect(r.gateways).toEqual([
      expect.objectContaining({ network_id: 1, network: 'Network 1', ready: true }),
      expect.objectContaining({
        network_id: null,
        network: 'gateway on sim:1',
        ready: false,
        last_error: spare.reason,
      }),
    ]);
    const m = radio.master() as ReturnType<Radio['master']> & { networks: { network_id: number | null }[] };
    expect(m.state).toBe('IDLE');
    expect(m.networks.map((x) => x.network_id)).toEqual([1]);
  });

  it('the-spare-listed-first-does-not-stand-for-the-fleet', () => {
    const { radio } = setup([{ id: 1, name: 'Network 1', gateway_mac: '48CA43102130' }]);
    radio.bind(0, null, { ...spare, reason: 'gateway 48CA43102030 on sim:0 belongs to no network' });
    radio.bind(1, 1);
    expect(radio.readiness()).toMatchObject({
      ready: true,
      port: '/dev/ttyACM0',
      gateway_mac: '48:CA:43:10:21:30',
    });
  });

  it('a-swapped-board-still-leaves-its-network-down-naming-the-network', () => {
    // Network 1's board is gone; the new one (sim:1) is in no network, sim:0 serves nothing either.
    const { radio } = setup([{ id: 1, name: 'Network 1', gateway_mac: 'AABBCCDDEEFF' }]);
    radio.bind(0, null, { ...spare, reason: 'gateway 48CA43102030 on sim:0 belongs to no network' });
    radio.bind(1, null, spare);
    const r = radio.readiness();
    expect(r).toMatchObject({ ready: false, last_error: 'Network 1: gateway AABBCCDDEEFF not connected' });
    expect(radio.master().state).toBe('UNKNOWN');
  });

  it('a-network-whose-gateway-was-released-is-down-while-it-has-devices', () => {
    const { radio } = setup(
      [
        { id: 1, name: 'Network 1', gateway_mac: '48CA43102030' },
        { id: 2, name: 'Network 2', gateway_mac: null },
        { id: 3, name: 'Pit', gateway_mac: null },
      ],
      [1, 2],
    );
    radio.bind(0, 1);
    radio.bind(1, null, spare);
    // Network 2 lost its gateway and its devices with it; the empty Pit waits for one, harmlessly.
    expect(radio.readiness()).toMatchObject({
      ready: false,
      last_error: 'Network 2: no gateway assigned',
      networks_ready: 1,
      networks_total: 2,
    });
  });

  it('with-no-network-served-the-spares-are-all-there-is', () => {
    const { radio } = setup([{ id: 1, name: 'Network 1', gateway_mac: null }], []);
    radio.bind(0, null, { ...spare, reason: 'gateway 48CA43102030 on sim:0 belongs to no network' });
    radio.bind(1, null, spare);
    expect(radio.readiness()).toMatchObject({
      ready: false,
      last_error: 'gateway on sim:0: gateway 48CA43102030 on sim:0 belongs to no network',
    });
  });
});
