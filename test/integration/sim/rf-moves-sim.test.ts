/**
 * Simulator fidelity for the RF moves (issue 27; reference W§3.3, W§6.13, W§8.2, W§8.3,
 * W§8.12): a node told a new RF config drops a persisted master and comes up unbound in
 * group 0 on the new channel; a channel change on the node's own settings page does the
 * same (the stranded-node fault); a gateway's volatile change only retunes its radio, a
 * persisted one reboots it; nodes only hear the channel they are on.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findChannel } from '../../../src/domain/rf-channels.ts';
import { encodeHostCommand } from '../../../src/protocol/commands.ts';
import { m2n, openSim, type Item, type SimTestEnv } from './harness.ts';

const AABBCC = { mac: '246F28AABBCC', devType: 12, vbatMv: 3987, quality: { rssi: -70, snr: 9 } };
const CH1 = findChannel('EU868', 1)!.rf;
const CH3 = findChannel('EU868', 3)!.rf;

let env: SimTestEnv | null = null;
afterEach(async () => {
  await env?.close();
  env = null;
});

const fromNode =
  (sender: string, type: number) =>
  (i: Item): boolean =>
    i.frame?.type === type && i.hex.slice(6, 12) === sender;

async function booted(): Promise<SimTestEnv> {
  const e = await openSim({ nodes: 1, seed: 3, nodeSpecs: [AABBCC], rf: CH1 });
  await e.ready();
  await e.rx.waitFor(fromNode('AABBCC', 0x81), 5000);
  return e;
}

async function setGroup(e: SimTestEnv, group: number): Promise<void> {
  const from = e.rx.length;
  await e.send(m2n('AABBCC', { op: 'SET_GROUP', groupId: group }));
  await e.rx.waitFor(fromNode('AABBCC', 0xfe), 3000, from);
}

const setRf = (e: SimTestEnv, rf: typeof CH1, persist: boolean): Promise<void> =>
  e.send(encodeHostCommand({ kind: 'set_rf', persist, rf }));

describe('simulator: RF moves', () => {
  it('RF_CONFIG drops a persisted master: the node reboots unbound in group 0 on the new channel', async () => {
    env = await booted();
    await setGroup(env, 4);
    // Master persistence on (CONFIG 0x03 = 1): the gateway's address goes to flash.
    let from = env.rx.length;
    await env.send(m2n('AABBCC', { op: 'CONFIG', option: 0x03, data: [1, 0, 0, 0] }));
    await env.rx.waitFor(fromNode('AABBCC', 0xfe), 3000, from);
    expect(env.sim.fleet.node('AABBCC')?.snapshot().macFilterPersist).toBe(true);
    from = env.rx.length;
    await env.send(m2n('AABBCC', { op: 'RF_CONFIG', rf: CH3 }));
    await env.rx.waitFor((i) => i.hex === '0002F100', 2000, from);
    // Volatile: the gateway follows to channel 3 and hears the boot announcement there.
    await setRf(env, CH3, false);
    await env.rx.waitFor((i) => i.ev?.kind === 'rf_changed', 2000, from);
    const ann = await env.rx.waitFor(fromNode('AABBCC', 0x81), 10_000, from);
    expect(ann.hex.slice(12, 18)).toBe('FFFFFF');
    const s = env.sim.fleet.node('AABBCC')!.snapshot();
    expect(s.groupId).toBe(0);
    expect(s.master).toBeNull();
    expect(s.macFilterPersist).toBe(false);
    expect(s.rf).toEqual(CH3);
    expect(s.persisted.rf).toEqual(CH3);
    // Unbound: a STATUS is ignored until a SET_GROUP binds it again.
    from = env.rx.length;
    await env.send(m2n('AABBCC', { op: 'STATUS', groupId: 255 }));
    await env.sleep(1500);
    expect(env.rx.since(from).filter(fromNode('AABBCC', 0x82))).toHaveLength(0);
  });

  it('a settings-page channel change (fault) strands the node: silent on its old channel, found on the new one', async () => {
    env = await booted();
    await setGroup(env, 2);
    env.sim.fleet.faults.retuneNode('AABBCC', CH3);
    let from = env.rx.length;
    // On channel 1 nothing of it is heard any more, even a DEVICES to every group.
    await env.sleep(6000);
    from = env.rx.length;
    await env.send(m2n('FFFFFF', { op: 'DEVICES', groupId: 255, flags: 0 }));
    await env.sleep(1500);
    expect(env.rx.since(from).filter(fromNode('AABBCC', 0x81))).toHaveLength(0);
    await setRf(env, CH3, false);
    await env.rx.waitFor((i) => i.ev?.kind === 'rf_changed', 2000, from);
    from = env.rx.length;
    await env.send(m2n('FFFFFF', { op: 'DEVICES', groupId: 255, flags: 0 }));
    const reply = await env.rx.waitFor(fromNode('AABBCC', 0x81), 3000, from);
    expect(reply.hex.slice(12, 18)).not.toBe('FFFFFF');
    expect(env.sim.fleet.node('AABBCC')!.snapshot().groupId).toBe(0);
  });

  it('gateway SET_RF_CONFIG: volatile retunes without a reboot, persist answers and reboots on the new channel', async () => {
    env = await booted();
    const boots = env.sim.fleet.gateway.stats.boots;
    let from = env.rx.length;
    await setRf(env, CH3, false);
    const ev = await env.rx.waitFor((i) => i.ev?.kind === 'rf_changed', 2000, from);
    expect(ev.ev).toMatchObject({ kind: 'rf_changed', reason: 0, rf: CH3 });
    await env.sleep(500);
    expect(env.sim.fleet.gateway.stats.boots).toBe(boots);
    expect(env.sim.fleet.gateway.rf).toEqual(CH3);
    from = env.rx.length;
    await setRf(env, CH1, true);
    const ok = await env.rx.waitFor((i) => i.ev?.kind === 'rf_changed', 2000, from);
    expect(ok.ev).toMatchObject({ reason: 0, rf: CH1 });
    // It reboots (a native USB board drops off the bus meanwhile) and comes up on CH1.
    await env.sim.fleet.gateway.whenBooted();
    await env.sleep(3000);
    await env.sim.fleet.gateway.whenBooted();
    expect(env.sim.fleet.gateway.stats.boots).toBe(boots + 1);
    expect(env.sim.fleet.gateway.rf).toEqual(CH1);
  });
});
