import { afterEach, describe, expect, it } from 'vitest';
import { openSim, type SimTestEnv } from './harness.ts';
import { encodeHostCommand } from '../../../src/protocol/commands.ts';
import { DEFAULT_NODE_RADIO_TIMING } from '../../../src/sim/node/radio.ts';

let env: SimTestEnv | null = null;
afterEach(async () => {
  await env?.close();
  env = null;
});

const DISCOVER = encodeHostCommand({
  kind: 'm2n',
  receiver: 'FFFFFF',
  request: { op: 'DEVICES', groupId: 0 },
});

/** Boots a 20-node fleet, lets the boot announcements pass, then runs one discovery. */
async function discover(cad: boolean): Promise<{ replies: Set<string>; gatewayCollisions: number }> {
  env = await openSim({
    nodes: 20,
    seed: 1,
    bootSpreadMs: 2000,
    nodeTiming: { radio: { ...DEFAULT_NODE_RADIO_TIMING, cad } },
  });
  const gw = env.sim.fleet.gateway.addr;
  await env.sleep(10_000);
  let gatewayCollisions = 0;
  env.sim.fleet.air.events.on('lost', (l) => {
    if (l.receiver === gw && l.reason === 'collision') gatewayCollisions++;
  });
  const from = env.rx.length;
  await env.send(DISCOVER);
  await env.sleep(5000);
  const replies = new Set(
    env.rx
      .since(from)
      .filter((i) => i.frame?.type === 0x81 && i.hex.slice(12, 18) === gw)
      .map((i) => i.hex.slice(6, 12)),
  );
  return { replies, gatewayCollisions };
}

describe('discovery broadcast to a fleet of 20', () => {
  it('boots a seeded, realistic fleet: unique addresses, LED and startblock types', async () => {
    env = await openSim({ nodes: 20, seed: 1 });
    const nodes = env.sim.fleet.nodes;
    expect(new Set(nodes.map((n) => n.addr)).size).toBe(20);
    expect(nodes.some((n) => n.devType === 50 || n.devType === 51)).toBe(true);
    expect(nodes.filter((n) => [10, 11, 12].includes(n.devType)).length).toBeGreaterThanOrEqual(15);
    expect(nodes.every((n) => n.devType !== 13)).toBe(true);
    expect(nodes.some((n) => n.vbatMv === 0) && nodes.some((n) => n.vbatMv >= 3300)).toBe(true);
    const q = nodes.map((n) => env?.sim.fleet.air.qualityOf(n.addr)?.rssi ?? 0);
    expect(Math.max(...q) - Math.min(...q)).toBeGreaterThan(20);
  });

  it('with CAD most nodes answer, although some replies collide at the gateway', async () => {
    const { replies, gatewayCollisions } = await discover(true);
    expect(replies.size).toBeGreaterThanOrEqual(12);
    expect(replies.size).toBeLessThan(20);
    expect(gatewayCollisions).toBeGreaterThan(0);
  });

  it('without CAD (plain ALOHA) the same fleet loses most replies to collisions', async () => {
    const { replies, gatewayCollisions } = await discover(false);
    expect(replies.size).toBeLessThan(6);
    expect(gatewayCollisions).toBeGreaterThan(10);
  });
});
