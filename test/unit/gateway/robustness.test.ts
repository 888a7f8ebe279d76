import { afterEach, describe, expect, it, vi } from 'vitest';
import { createGatewayDriver } from '../../../src/gateway/driver.ts';
import type { DriverLog } from '../../../src/gateway/operations.ts';
import type { DriverOptions } from '../../../src/gateway/options.ts';
import { GatewayTxError } from '../../../src/gateway/errors.ts';
import { OPC, type N2MReply } from '../../../src/protocol/types.ts';
import { ack, FakeGateway, identifyReply, replyFrom, TX_CYCLE } from './fake-gateway.ts';
import { ManualClock } from './manual-clock.ts';

function recordingLog(): DriverLog & { errors: string[] } {
  const errors: string[] = [];
  return { errors, debug() {}, info() {}, warn() {}, error: (_o, msg) => void errors.push(msg ?? '') };
}

const status = (): N2MReply => ({
  kind: 'STATUS_REPLY',
  flags: 1,
  configByte: 0,
  effectId: 0,
  brightness: 10,
  vbatMv: 0,
  rssi: -70,
  snr: 8,
  legacy: false,
});

async function started(options: Partial<DriverOptions> = {}) {
  const clock = new ManualClock();
  const gw = new FakeGateway(clock);
  const log = recordingLog();
  const driver = createGatewayDriver({
    linkFactory: gw.endpoint.factory,
    clock,
    transport: 'sim',
    port: 'memory',
    log,
    options,
  });
  await clock.run(driver.start());
  return { clock, gw, driver, log };
}

describe('inbound observers that throw', () => {
  const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
  afterEach(() => warn.mockClear());

  it('a throwing packet listener is logged; other listeners, discovery and reply matching go on', async () => {
    const { clock, gw, driver, log } = await started();
    driver.on('packet', () => {
      throw new Error('listener bug');
    });
    const seen: string[] = [];
    driver.on('packet', (p) => seen.push(p.packet.sender));
    gw.onM2n = (f, g) => {
      g.emit(...TX_CYCLE);
      if (f.typeFull === OPC.SET_GROUP) g.later(100, replyFrom(f.receiver, ack(OPC.SET_GROUP)));
      if (f.typeFull === OPC.DEVICES) g.later(100, replyFrom('000001', identifyReply('000001')));
    };
    expect(await clock.run(driver.setGroup('AABBCC', 3))).toMatchObject({ ok: true, value: { ok: true } });
    const found = await clock.run(driver.discover({ groupId: 0, onReply: () => undefined }));
    expect(found.map((f) => f.addr)).toEqual(['000001']);
    expect(seen[0]).toBe('AABBCC');
    expect(seen).toContain('000001');
    expect(log.errors.length).toBeGreaterThanOrEqual(2);
    expect(log.errors.every((m) => m === 'driver event listener threw')).toBe(true);
    // Nothing reached the link's last-resort handler: the driver caught it.
    expect(warn).not.toHaveBeenCalled();
    expect(driver.readiness().ready).toBe(true);
  });

  it('a throwing master or readiness listener does not break the frame that caused it', async () => {
    const { clock, driver, log } = await started();
    driver.on('master', () => {
      throw new Error('master listener bug');
    });
    expect(await clock.run(driver.send('AABB01', { op: 'INDICATE', type: 4, durationSec: 5 }))).toEqual({
      ok: true,
    });
    expect(log.errors).toContain('driver event listener threw');
    expect(warn).not.toHaveBeenCalled();
  });
});

describe('stop() during an operation', () => {
  it('ends a discovery waiting for the air to calm down at once, as cancelled', async () => {
    const { clock, gw, driver } = await started({ discoveryMaxMs: 1000 });
    // A round of 1 s, while foreign IDENTIFY traffic keeps the air busy: between rounds the
    // discovery waits up to the nodes' 5 s give-up time.
    const chatter = (): void => {
      gw.emit(replyFrom('000009', identifyReply('000009', 0), 'FFFFFF'));
      clock.setTimeout(chatter, 300);
    };
    chatter();
    gw.onM2n = (f, g) => {
      g.emit(...TX_CYCLE);
      if (f.typeFull === OPC.DEVICES) g.later(80, replyFrom('000004', identifyReply('000004', 4)));
    };
    const outcome = driver.discover({ groupId: 4 }).then(
      () => null,
      (e: unknown) => e,
    );
    await clock.advance(2000); // round 1 is over, the pause before round 2 runs
    expect(gw.frames).toHaveLength(1);
    const t0 = clock.now();
    await driver.stop();
    const err = await clock.run(outcome, 10_000, 1);
    expect(err).toBeInstanceOf(GatewayTxError);
    expect((err as GatewayTxError).reason).toBe('cancelled');
    expect(clock.now() - t0).toBeLessThanOrEqual(5);
  });

  it('ends a status poll and its pauses at once', async () => {
    const { clock, gw, driver } = await started();
    gw.onM2n = (f, g) => {
      g.emit(...TX_CYCLE);
      if (f.receiver === 'FFFFFF') {
        // Replies keep coming (a busy channel), so the poll waits for quiet before each round.
        for (let i = 0; i < 20; i++) g.later(100 + 200 * i, replyFrom('000001', status()));
      }
    };
    const targets = ['000001', '000002', '000003'].map((addr) => ({ addr, groupId: 1 }));
    const outcome = driver.statusBroadcast({ groupId: 1, expected: 3, targets }).then(
      () => null,
      (e: unknown) => e,
    );
    await clock.advance(1500);
    const t0 = clock.now();
    await driver.stop();
    const err = await clock.run(outcome, 10_000, 1);
    expect(err).toBeInstanceOf(GatewayTxError);
    expect((err as GatewayTxError).reason).toBe('cancelled');
    expect(clock.now() - t0).toBeLessThanOrEqual(5);
  });
});
