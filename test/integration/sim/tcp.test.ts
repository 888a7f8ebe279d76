import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ScaledClock } from '../../../src/clock.ts';
import { createFleet, type SimFleet } from '../../../src/sim/fleet.ts';
import { startSimTcpServer, type SimTcpServer } from '../../../src/sim/sim-host.ts';

let fleet: SimFleet | null = null;
let server: SimTcpServer | null = null;
afterEach(async () => {
  await server?.close();
  fleet?.stop();
  server = null;
  fleet = null;
});

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
}

function readUntil(s: net.Socket, pred: (all: Buffer) => boolean): Promise<Buffer> {
  return new Promise((resolve) => {
    let all = Buffer.alloc(0);
    const on = (b: Buffer): void => {
      all = Buffer.concat([all, b]);
      if (pred(all)) {
        s.off('data', on);
        resolve(all);
      }
    };
    s.on('data', on);
  });
}

describe('simulator over raw TCP', () => {
  it('serves one client with raw bytes and refuses a second', async () => {
    fleet = createFleet({ nodes: 2, seed: 4, clock: new ScaledClock(0.05) });
    fleet.start();
    await fleet.gateway.whenBooted();
    server = await startSimTcpServer({ host: '127.0.0.1', port: 0, fleet });
    expect(server.port).toBeGreaterThan(0);
    const a = await connect(server.port);
    const answer = readUntil(a, (all) => all.includes('RaceLink_Gateway_v448:CA:43:10:20:30'));
    a.write(Uint8Array.from([0x00, 0x01, 0x01]));
    expect((await answer).toString('latin1')).toContain('RaceLink_Gateway_v448:CA:43:10:20:30');
    const b = await connect(server.port);
    b.resume();
    await new Promise<void>((r) => b.once('close', () => r()));
    // The first client still works.
    const report = readUntil(a, (all) => all.includes(Buffer.from([0x00, 0x02, 0xf5])));
    a.write(Uint8Array.from([0x00, 0x01, 0x7f]));
    await report;
    a.destroy();
  });

  it('disconnects the client when the link-drop fault fires', async () => {
    fleet = createFleet({ nodes: 0, seed: 4, clock: new ScaledClock(0.05) });
    fleet.start();
    await fleet.gateway.whenBooted();
    server = await startSimTcpServer({ host: '127.0.0.1', port: 0, fleet });
    const a = await connect(server.port);
    // Unread bytes (boot/autosync events) would hold back 'end'/'close': consume them.
    a.resume();
    await new Promise<void>((r) => setImmediate(r));
    const closed = new Promise<void>((r) => a.once('close', () => r()));
    fleet.faults.dropLink();
    await closed;
    const b = await connect(server.port);
    b.resume();
    await new Promise<void>((r) => b.once('close', () => r()));
    fleet.faults.restoreLink();
    const c = await connect(server.port);
    const report = readUntil(c, (all) => all.includes(Buffer.from([0x00, 0x02, 0xf5])));
    c.write(Uint8Array.from([0x00, 0x01, 0x7f]));
    await report;
    c.destroy();
  });
});
