import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const TSX = path.resolve('node_modules/.bin/tsx');
let child: ChildProcess | null = null;
afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  child = null;
});

function start(args: string[]): {
  proc: ChildProcess;
  firstLine: Promise<string>;
  exit: Promise<number | null>;
} {
  const proc = spawn(TSX, ['src/sim/cli.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  child = proc;
  let out = '';
  const firstLine = new Promise<string>((resolve, reject) => {
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    proc.once('exit', () => reject(new Error(`exited before logging: ${out}`)));
  });
  // Tests that only care about the exit code never await the line.
  firstLine.catch(() => {});
  const exit = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return { proc, firstLine, exit };
}

describe('sim CLI (npm run sim -- --listen … --sim-nodes … --sim-seed …)', () => {
  it('logs one JSON line with the real port, serves raw TCP, and exits 0 on SIGTERM', async () => {
    const { proc, firstLine, exit } = start([
      '--listen',
      '127.0.0.1:0',
      '--sim-nodes',
      '3',
      '--sim-seed',
      '5',
      '--sim-time-scale',
      '0.05',
    ]);
    const line = JSON.parse(await firstLine) as { msg: string; port: number; nodes: number; seed: number };
    expect(line).toMatchObject({ msg: 'sim listening', nodes: 3, seed: 5 });
    expect(line.port).toBeGreaterThan(0);
    const sock = net.connect(line.port, '127.0.0.1');
    const answer = await new Promise<string>((resolve) => {
      let got = Buffer.alloc(0);
      sock.on('data', (b: Buffer) => {
        got = Buffer.concat([got, b]);
        if (got.includes('RaceLink_Gateway_v4')) resolve(got.toString('latin1'));
      });
      sock.on('connect', () => sock.write(Uint8Array.from([0x00, 0x01, 0x01])));
    });
    expect(answer).toContain('RaceLink_Gateway_v448:CA:43:10:20:30');
    sock.destroy();
    proc.kill('SIGTERM');
    expect(await exit).toBe(0);
  });

  it('refuses a malformed --listen', async () => {
    const { exit } = start(['--listen', 'nonsense']);
    expect(await exit).not.toBe(0);
  });
});
