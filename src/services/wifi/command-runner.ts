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

/** Exit code reported for a command killed at its timeout (as coreutils `timeout` does). */
export const TIMED_OUT = 124;

export const processRunner = (env: NodeJS.ProcessEnv = process.env): CommandRunner => ({
  run: (cmd, args, opts = {}) =>
    new Promise((resolve, reject) => {
      execFile(
        cmd,
        [...args],
        {
          timeout: opts.timeoutMs ?? 10_000,
          // A hung tool must not outlive its budget (SIGTERM can be ignored).
          killSignal: 'SIGKILL',
          env: { ...env, LC_ALL: 'C', LANG: 'C' },
          maxBuffer: 1024 * 1024,
        },
        (err, stdout, stderr) => {
          if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') {
            reject(err);
            return;
          }
          if (err?.killed) {
            // Killed at the timeout: say so instead of an empty exit-code-1 failure.
            const s = Math.round((opts.timeoutMs ?? 10_000) / 100) / 10;
            resolve({ code: TIMED_OUT, stdout: String(stdout), stderr: `timed out after ${s} s (killed)` });
            return;
          }
          const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
          resolve({ code, stdout: String(stdout), stderr: String(stderr) });
        },
      );
    }),
});
