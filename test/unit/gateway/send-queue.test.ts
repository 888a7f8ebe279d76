import { describe, expect, it } from 'vitest';
import { TX_REJECT } from '../../../src/protocol/types.ts';
import { TX_CYCLE } from './fake-gateway.ts';
import { rig } from './setup.ts';

const CONTROL = { op: 'CONTROL', groupId: 1, flags: 0x05, fields: { brightness: 10 } } as const;
const INDICATE = { op: 'INDICATE', type: 4, durationSec: 5 } as const;

describe('send queue: one frame in flight', () => {
  it('resolves ok on the TX cycle and counts the frame and its airtime', async () => {
    const { clock, driver, gw } = await rig();
    const out = await clock.run(driver.send('FFFFFF', CONTROL));
    expect(out).toEqual({ ok: true });
    expect(gw.frames).toHaveLength(1);
    const s = driver.stats();
    expect(s.framesSent).toBe(1);
    expect(s.airtimeMs).toBeGreaterThan(36);
  });

  it('writes the next frame only after the previous outcome', async () => {
    const { clock, driver, gw } = await rig();
    gw.onM2n = (_f, g) => g.later(100, ...TX_CYCLE);
    const a = driver.send('FFFFFF', CONTROL);
    const b = driver.send('AABBCC', INDICATE);
    await clock.advance(50);
    expect(gw.frames).toHaveLength(1);
    await clock.advance(60);
    expect(gw.frames).toHaveLength(2);
    expect(await clock.run(Promise.all([a, b]))).toEqual([{ ok: true }, { ok: true }]);
  });

  it('retries a TXPENDING rejection after the gap and then succeeds', async () => {
    const { clock, driver, gw } = await rig();
    let n = 0;
    gw.onM2n = (f, g) => {
      if (n++ === 0) g.emit({ kind: 'tx_rejected', typeFull: f.typeFull, reason: TX_REJECT.TXPENDING });
      else g.emit(...TX_CYCLE);
    };
    expect(await clock.run(driver.send('FFFFFF', CONTROL))).toEqual({ ok: true });
    expect(gw.frames).toHaveLength(2);
    expect(driver.diagnostics().txPendingRetries).toBe(1);
  });

  it('does not re-send a TXPENDING-rejected SYNC: the gateway sends it itself', async () => {
    const { clock, driver, gw } = await rig();
    gw.onM2n = (f, g) => {
      // An autosync holds the slot: reject now, its TX_DONE follows, then the SYNC retry.
      g.emit({ kind: 'state', report: false, state: 1, metadataMs: 0 });
      g.emit({ kind: 'tx_rejected', typeFull: f.typeFull, reason: TX_REJECT.TXPENDING });
      g.later(30, { kind: 'tx_done' }, { kind: 'state', report: false, state: 0, metadataMs: 0 });
      g.later(32, ...TX_CYCLE);
    };
    let doneAt = 0;
    const t0 = clock.now();
    const p = driver.send('FFFFFF', { op: 'SYNC', ts24: 0, brightness: 0, flags: 1 }).then((o) => {
      doneAt = clock.now();
      return o;
    });
    expect(await clock.run(p, 5000, 1)).toEqual({ ok: true });
    expect(gw.frames).toHaveLength(1);
    expect(doneAt - t0).toBeGreaterThanOrEqual(32);
    expect(driver.diagnostics().txPendingRetries).toBe(0);
  });

  it('reports a rejection after the TXPENDING retries are used up', async () => {
    const { clock, driver, gw } = await rig({ txPendingRetries: 1 });
    gw.onM2n = (f, g) => g.emit({ kind: 'tx_rejected', typeFull: f.typeFull, reason: TX_REJECT.TXPENDING });
    const out = await clock.run(driver.send('FFFFFF', CONTROL));
    expect(out).toMatchObject({ ok: false, reason: 'rejected' });
    expect(out.ok ? '' : out.detail).toContain('txPending');
    expect(gw.frames).toHaveLength(2);
    expect(driver.stats().framesRejected).toBe(1);
  });

  it('ignores a rejection that echoes another type and times out after the guard', async () => {
    const { clock, driver, gw } = await rig();
    gw.onM2n = (_f, g) => g.emit({ kind: 'tx_rejected', typeFull: 0x06, reason: TX_REJECT.TXPENDING });
    const t0 = clock.now();
    const out = await clock.run(driver.send('FFFFFF', CONTROL));
    expect(out).toMatchObject({ ok: false, reason: 'timeout' });
    expect(clock.now() - t0).toBeGreaterThanOrEqual(2000);
    expect(driver.stats().framesTimedOut).toBe(1);
    expect(driver.diagnostics().orphanTxRejected).toBe(1);
  });

  it('ignores TX_DONE when nothing is in flight (autosync)', async () => {
    const { clock, driver, gw } = await rig();
    gw.emit(...TX_CYCLE);
    await clock.advance(10);
    expect(driver.diagnostics().orphanTxDone).toBe(1);
    expect(await clock.run(driver.send('FFFFFF', CONTROL))).toEqual({ ok: true });
  });

  it('does not take an autosync TX_DONE that precedes our TX start as our outcome', async () => {
    const { clock, driver, gw } = await rig();
    // The autosync's TX_DONE arrives right after our write, then our own cycle 200 ms later.
    gw.onM2n = (_f, g) => {
      g.emit({ kind: 'tx_done' }, { kind: 'state', report: false, state: 0, metadataMs: 0 });
      g.later(5, { kind: 'state', report: false, state: 1, metadataMs: 0 });
      g.later(200, { kind: 'tx_done' }, { kind: 'state', report: false, state: 0, metadataMs: 0 });
    };
    let resolvedAt = 0;
    const p = driver.send('FFFFFF', CONTROL).then((o) => ((resolvedAt = clock.now()), o));
    const t0 = clock.now();
    expect(await clock.run(p, 5000, 1)).toEqual({ ok: true });
    expect(resolvedAt - t0).toBeGreaterThanOrEqual(200);
  });

  it('accepts a TX_DONE whose TX-start event was lost, after the confirm hold', async () => {
    const { clock, driver, gw } = await rig();
    gw.onM2n = (_f, g) => g.emit({ kind: 'tx_done' });
    const t0 = clock.now();
    expect(await clock.run(driver.send('FFFFFF', CONTROL), 5000, 1)).toEqual({ ok: true });
    expect(clock.now() - t0).toBeLessThan(200);
  });

  it('waits while the gateway reports TX before writing', async () => {
    const { clock, driver, gw } = await rig();
    gw.emit({ kind: 'state', report: false, state: 1, metadataMs: 0 });
    await clock.advance(1);
    const p = driver.send('FFFFFF', CONTROL);
    await clock.advance(100);
    expect(gw.frames).toHaveLength(0);
    gw.emit({ kind: 'tx_done' }, { kind: 'state', report: false, state: 0, metadataMs: 0 });
    expect(await clock.run(p)).toEqual({ ok: true });
    expect(gw.frames).toHaveLength(1);
  });
});

describe('send queue: priority, deadlines, cancellation, validation', () => {
  it('sends interactive frames before queued bulk frames', async () => {
    const { clock, driver, gw } = await rig();
    gw.onM2n = (_f, g) => g.later(50, ...TX_CYCLE);
    const sends = [
      driver.send('AABB01', INDICATE, { priority: 'bulk' }),
      driver.send('AABB02', INDICATE, { priority: 'bulk' }),
      driver.send('AABB03', INDICATE, { priority: 'bulk' }),
      driver.send('AABB04', INDICATE, { priority: 'interactive' }),
    ];
    await clock.run(Promise.all(sends));
    expect(gw.frames.map((f) => f.receiver)).toEqual(['AABB01', 'AABB04', 'AABB02', 'AABB03']);
  });

  it('counts for each priority only the queued frames that would go before it', async () => {
    const { clock, driver, gw } = await rig();
    gw.onM2n = (_f, g) => g.later(50, ...TX_CYCLE);
    const sends = [
      driver.send('AABB01', INDICATE, { priority: 'bulk' }), // in flight: not queued
      driver.send('AABB02', INDICATE, { priority: 'bulk' }),
      driver.send('AABB03', INDICATE, { priority: 'bulk' }),
      driver.send('AABB04', INDICATE, { priority: 'interactive' }),
      driver.send('AABB05', INDICATE, { priority: 'urgent' }),
    ];
    await clock.advance(1);
    expect(driver.stats().queueDepth).toBe(4);
    // A lap flash (interactive) waits behind the urgent and the interactive frame only.
    expect(driver.queuedAhead!('urgent')).toBe(1);
    expect(driver.queuedAhead!('interactive')).toBe(2);
    expect(driver.queuedAhead!('bulk')).toBe(4);
    await clock.run(Promise.all(sends));
    expect(driver.queuedAhead!('bulk')).toBe(0);
  });

  it('holds bulk frames while a hold is on (armed race start); urgent/interactive go on', async () => {
    const { clock, driver, gw } = await rig();
    gw.onM2n = (_f, g) => g.later(50, ...TX_CYCLE);
    const release = driver.hold!('bulk');
    const bulk = [
      driver.send('AABB01', INDICATE, { priority: 'bulk' }),
      driver.send('AABB02', INDICATE, { priority: 'bulk' }),
    ];
    const urgent = driver.send('AABB03', INDICATE, { priority: 'urgent' });
    expect(await clock.run(urgent)).toEqual({ ok: true });
    await clock.advance(1000);
    // The slot stays idle for the trigger: no bulk frame was written.
    expect(gw.frames.map((f) => f.receiver)).toEqual(['AABB03']);
    release();
    release(); // idempotent
    expect(await clock.run(Promise.all(bulk))).toEqual([{ ok: true }, { ok: true }]);
    expect(gw.frames.map((f) => f.receiver)).toEqual(['AABB03', 'AABB01', 'AABB02']);
  });

  it('sends urgent frames (blackout, race start) before queued interactive ones', async () => {
    const { clock, driver, gw } = await rig();
    gw.onM2n = (_f, g) => g.later(50, ...TX_CYCLE);
    const sends = [
      driver.send('AABB01', INDICATE, { priority: 'interactive' }),
      driver.send('AABB02', INDICATE, { priority: 'interactive' }),
      driver.send('AABB03', INDICATE, { priority: 'bulk' }),
      driver.send('AABB04', INDICATE, { priority: 'urgent' }),
    ];
    await clock.run(Promise.all(sends));
    expect(gw.frames.map((f) => f.receiver)).toEqual(['AABB01', 'AABB04', 'AABB02', 'AABB03']);
  });

  it('drops an unsent item at its deadline', async () => {
    const { clock, driver, gw } = await rig();
    gw.onM2n = (_f, g) => g.later(1000, ...TX_CYCLE);
    const first = driver.send('AABB01', INDICATE);
    const late = driver.send('AABB02', INDICATE, { deadlineMs: 300 });
    const [a, b] = await clock.run(Promise.all([first, late]));
    expect(a).toEqual({ ok: true });
    expect(b).toMatchObject({ ok: false, reason: 'deadline' });
    expect(gw.frames).toHaveLength(1);
  });

  it('drops an item whose deadline passed while the gateway stayed busy', async () => {
    const { clock, driver, gw } = await rig();
    gw.emit({ kind: 'state', report: false, state: 1, metadataMs: 0 });
    await clock.advance(1);
    const out = await clock.run(driver.send('AABB01', INDICATE, { deadlineMs: 300 }));
    expect(out).toMatchObject({ ok: false, reason: 'deadline' });
    expect(gw.frames).toHaveLength(0);
    // The stale TX state is no longer trusted: the next frame goes out at once.
    expect(await clock.run(driver.send('AABB02', INDICATE))).toEqual({ ok: true });
  });

  it('cancels a queued item through its signal', async () => {
    const { clock, driver, gw } = await rig();
    gw.onM2n = (_f, g) => g.later(500, ...TX_CYCLE);
    const ac = new AbortController();
    const first = driver.send('AABB01', INDICATE);
    const second = driver.send('AABB02', INDICATE, { signal: ac.signal });
    await clock.advance(10);
    ac.abort();
    const [, b] = await clock.run(Promise.all([first, second]));
    expect(b).toMatchObject({ ok: false, reason: 'cancelled' });
    expect(gw.frames).toHaveLength(1);
  });

  it('refuses invalid bodies and broadcast CONFIG without writing anything', async () => {
    const { clock, driver, gw } = await rig();
    const bad = await clock.run(driver.send('AABBCC', { op: 'INDICATE', type: 300, durationSec: 1 }));
    expect(bad).toMatchObject({ ok: false, reason: 'invalid' });
    const badAddr = await clock.run(driver.send('XYZ', INDICATE));
    expect(badAddr).toMatchObject({ ok: false, reason: 'invalid' });
    const bcast = await clock.run(driver.send('FFFFFF', { op: 'CONFIG', option: 5, data: [1, 0, 0, 0] }));
    expect(bcast).toMatchObject({ ok: false, reason: 'invalid' });
    expect(gw.frames).toHaveLength(0);
  });

  it('refuses SET_GROUP to FFFFFF: it would move every node in range into one group', async () => {
    const { clock, driver, gw } = await rig();
    const sent = await clock.run(driver.send('FFFFFF', { op: 'SET_GROUP', groupId: 3 }));
    expect(sent).toMatchObject({ ok: false, reason: 'invalid' });
    expect(sent.ok ? '' : sent.detail).toContain('unicast only');
    expect(await clock.run(driver.setGroup('FFFFFF', 3))).toMatchObject({ ok: false, reason: 'invalid' });
    expect(gw.frames).toHaveLength(0);
  });

  it('fails immediately with link_down while not connected', async () => {
    const { clock, driver, gw } = await rig();
    gw.endpoint.unplug();
    await clock.advance(1);
    const out = await clock.run(driver.send('AABBCC', INDICATE));
    expect(out).toMatchObject({ ok: false, reason: 'link_down' });
    await driver.stop();
  });
});
