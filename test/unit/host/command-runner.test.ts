import { describe, expect, it } from 'vitest';
import { processRunner, TIMED_OUT } from '../../../src/services/wifi/command-runner.ts';

describe('child processes', () => {
  it('a command that hangs is killed at its timeout and reported as timed out', async () => {
    // Reported as a timeout, not as an empty "exit 1" failure.
    const r = await processRunner().run('sleep', ['30'], { timeoutMs: 200 });
    expect(r).toEqual({ code: TIMED_OUT, stdout: '', stderr: 'timed out after 0.2 s (killed)' });
  });

  it('a command that ignores SIGTERM is still killed', async () => {
    const r = await processRunner().run('sh', ['-c', "trap '' TERM; sleep 30"], { timeoutMs: 200 });
    expect(r.code).toBe(TIMED_OUT);
  });

  it('exit codes, output and the C locale come through; a missing binary rejects with ENOENT', async () => {
    const r = await processRunner().run('sh', ['-c', 'echo "$LC_ALL:$LANG"; echo oops >&2; exit 3']);
    expect(r).toEqual({ code: 3, stdout: 'C:C\n', stderr: 'oops\n' });
    await expect(processRunner().run('/nonexistent/lightnet-tool', [])).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });
});
