import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScaledClock } from '../../../src/clock.ts';
import type { Logger } from '../../../src/logger.ts';
import type { CommandResult, CommandRunner } from '../../../src/services/wifi/command-runner.ts';
import { LeaseFile } from '../../../src/services/wifi/backend.ts';
import { NmcliBackend } from '../../../src/services/wifi/nmcli.ts';

function capturingLogger(lines: string[]): Logger {
  const log = (obj: object, msg?: string): void => void lines.push(JSON.stringify({ ...obj, msg }));
  const l: Logger = { debug: log, info: log, warn: log, error: log, child: () => l };
  return l;
}

describe('nmcli backend', () => {
  it('a custom PSK reaches nmcli as an argument but never a log line or an error text', async () => {
    const calls: string[][] = [];
    const runner: CommandRunner = {
      run: (_cmd, args): Promise<CommandResult> => {
        calls.push([...args]);
        const s = args.join(' ');
        const ok = (stdout = ''): Promise<CommandResult> => Promise.resolve({ code: 0, stdout, stderr: '' });
        if (s.includes('device status')) return ok('wlan0:wifi:disconnected\n');
        if (s.includes('device wifi list')) return ok(' :24\\:6F\\:28\\:67\\:9C\\:03:WLED-AP\n');
        if (s.includes('device wifi connect'))
          return Promise.resolve({
            code: 4,
            stdout: '',
            stderr: 'Error: Connection activation failed: Secrets were required, but not provided.\n',
          });
        if (s.startsWith('connection delete'))
          return Promise.resolve({ code: 10, stdout: '', stderr: 'unknown' });
        return ok();
      },
    };
    const lines: string[] = [];
    const dir = await mkdtemp(join(tmpdir(), 'lightnet-nm-'));
    const nm = new NmcliBackend(
      runner,
      new LeaseFile(dir),
      new ScaledClock(1),
      capturingLogger(lines),
      'linux',
    );
    const psk = 'S3cret-Pass-9';
    const err = await nm
      .connect({
        ssids: ['WLED-AP'],
        password: psk,
        iface: 'wlan0',
        bssid: null,
        predicted: '246F28679C03',
        avoid: null,
        timeoutMs: 5000,
      })
      .catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/^AP 'WLED-AP': authentication failed \(Secrets rejected\)/);
    expect((err as Error).message).not.toContain(psk);
    const connect = calls.find((c) => c.includes('connect')) ?? [];
    expect(connect).toEqual([
      '--wait',
      '10',
      'device',
      'wifi',
      'connect',
      'WLED-AP',
      'ifname',
      'wlan0',
      'name',
      'lightnet-ota',
      'password',
      psk,
      'bssid',
      '24:6F:28:67:9C:03',
    ]);
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l).not.toContain(psk);
    await rm(dir, { recursive: true, force: true });
  });

  it('non-Linux hosts are unsupported without running anything', async () => {
    const runner: CommandRunner = { run: () => Promise.reject(new Error('must not run')) };
    const nm = new NmcliBackend(
      runner,
      new LeaseFile(tmpdir()),
      new ScaledClock(1),
      capturingLogger([]),
      'darwin',
    );
    expect(await nm.unsupportedReason()).toBe('host WiFi control needs Linux with NetworkManager (nmcli)');
  });
});
