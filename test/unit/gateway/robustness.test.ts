import { afterEach, describe, expect, it, vi } from 'vitest';
import { createGatewayDriver } from '../../../src/gateway/driver.ts';
import type { DriverLog } from '../../../src/gateway/operations.ts';
import { OPC } from '../../../src/protocol/types.ts';
import { ack, FakeGateway, identifyReply, replyFrom, TX_CYCLE } from './fake-gateway.ts';
import { ManualClock } from './manual-clock.ts';

function recordingLog(): DriverLog & { errors: string[] } {
  const errors: string[] = [];
  return { errors, debug() {}, info() {}, warn() {}, error: (_o, msg) => void errors.push(msg ?? '') };
}

async function started() {
  const clock = new ManualClock();
  const gw = new FakeGateway(clock);
  const log = recordingLog();
  const driver = createGatewayDriver({
    linkFactory: gw.endpoint.factory,
    clock,
    transport: 'sim',
    port: 'memory',
    log,
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
