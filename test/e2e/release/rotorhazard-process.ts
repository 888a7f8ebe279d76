/**
 * The real RotorHazard (the launcher named in LIGHTNET_ROTORHAZARD) on a given data
 * folder, without a plugin linked in: for installing the release zip through RotorHazard's
 * own plugin manager, then restarting it as an operator would.
 */
import { spawn } from 'node:child_process';
import { RH_LAUNCHER } from '../rotorhazard/rig.ts';

export interface RotorHazard {
  url: string;
  output(): string;
  waitOutput(re: RegExp, timeoutMs?: number): Promise<string>;
  stop(): Promise<number | null>;
}

export function startRotorHazard(data: string, port: number, env: NodeJS.ProcessEnv): RotorHazard {
  const rh = spawn('/bin/bash', [RH_LAUNCHER, '--data', data, '--port', String(port)], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const waiters = new Set<() => void>();
  const onData = (b: Buffer): void => {
    out += b.toString('utf8');
    for (const w of waiters) w();
  };
  rh.stdout.on('data', onData);
  rh.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) => rh.on('exit', (code) => resolve(code)));
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    waitOutput: (re, timeoutMs = 90_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          const m = re.exec(out);
          if (m) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(m[0]);
          } else if (rh.exitCode !== null) {
            waiters.delete(check);
            clearTimeout(timer);
            reject(new Error(`RotorHazard exited (${rh.exitCode}) before ${re}:\n${out.slice(-3000)}`));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`RotorHazard output never matched ${re}:\n${out.slice(-3000)}`));
        }, timeoutMs);
        waiters.add(check);
        rh.on('exit', check);
        check();
      }),
    stop: async () => {
      if (rh.exitCode === null && rh.signalCode === null) rh.kill('SIGTERM');
      return exited;
    },
  };
}
