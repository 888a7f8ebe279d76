/**
 * The simulator in its own process (`src/sim/cli.ts --listen 127.0.0.1:0`), as a second
 * host or a ser2net-style gateway would be reached: resolves with the port it printed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export function startSimProcess(
  nodes: number,
  seed: number,
  mac?: string,
): { child: ChildProcess; port: Promise<number> } {
  const args = ['--import', 'tsx', 'src/sim/cli.ts', '--listen', '127.0.0.1:0'];
  args.push('--sim-nodes', String(nodes), '--sim-seed', String(seed));
  if (mac) args.push('--gateway-mac', mac);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const port = new Promise<number>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (line) => {
      try {
        const j = JSON.parse(line) as { port?: number };
        if (typeof j.port === 'number') resolve(j.port);
      } catch {
        /* not a JSON line */
      }
    });
    child.once('exit', (c) => reject(new Error(`sim exited with ${c}`)));
  });
  return { child, port };
}
