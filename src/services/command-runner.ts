/**
 * Child processes, always as an argument array (never a shell string), with a
 * timeout and a fixed C locale so output parsing does not depend on the host's
 * language. Services get a CommandRunner so tests can put a fake binary on PATH.
 */
import { execFile } from 'node:child_process';

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CommandRunner {
  /** Rejects with code 'ENOENT' when the binary does not exist. */
  run(cmd: string, args: readonly string[], opts?: { timeoutMs?: number }): Promise<CommandResult>;
}

export const processRunner = (env: NodeJS.ProcessEnv = process.env): CommandRunner => ({
  run: (cmd, args, opts = {}) =>
    new Promise((resolve, reject) => {
      execFile(
        cmd,
        [...args],
        {
          timeout: opts.timeoutMs ?? 10_000,
          env: { ...env, LC_ALL: 'C', LANG: 'C' },
          maxBuffer: 1024 * 1024,
        },
        (err, stdout, stderr) => {
          if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') {
            reject(err);
            return;
          }
          const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
          resolve({ code, stdout: String(stdout), stderr: String(stderr) });
        },
      );
    }),
});
