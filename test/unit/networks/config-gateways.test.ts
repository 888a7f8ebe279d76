import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/index.ts';
import { parseGatewayList } from '../../../src/config/gateways.ts';

describe('--gateway list and --sim-gateways', () => {
  it('one-gateway-is-what-it-was', () => {
    const c = loadConfig(['--gateway', 'tcp:127.0.0.1:7000'], {});
    expect(c.gateway).toEqual({ kind: 'tcp', host: '127.0.0.1', port: 7000 });
    expect(c.gateways).toEqual([c.gateway]);
    expect(c.gatewayText).toBe('tcp:127.0.0.1:7000');
    expect(c.simGateways).toBe(1);
    expect(loadConfig([], {}).gateways).toEqual([{ kind: 'auto' }]);
  });

  it('a-comma-list-and-repeated-flags-add-up-in-order', () => {
    const c = loadConfig(
      [
        '--gateway',
        'serial:/dev/serial/by-id/a,tcp:127.0.0.1:7001',
        '--gateway',
        'serial:/dev/serial/by-id/b',
      ],
      {},
    );
    expect(c.gateways).toEqual([
      { kind: 'serial', path: '/dev/serial/by-id/a' },
      { kind: 'tcp', host: '127.0.0.1', port: 7001 },
      { kind: 'serial', path: '/dev/serial/by-id/b' },
    ]);
    expect(c.gateway).toEqual({ kind: 'serial', path: '/dev/serial/by-id/a' });
  });

  it('the-environment-and-a-config-file-array-give-lists-too', async () => {
    expect(loadConfig([], { LIGHTNET_GATEWAY: 'tcp:h:1, tcp:h:2' }).gateways).toHaveLength(2);
    const dir = await mkdtemp(join(tmpdir(), 'lightnet-cfg-gw-'));
    try {
      const file = join(dir, 'c.json');
      await writeFile(file, JSON.stringify({ gateway: ['tcp:h:1', 'tcp:h:2'], 'sim-gateways': 1 }));
      expect(loadConfig(['--config', file], {}).gateways).toEqual([
        { kind: 'tcp', host: 'h', port: 1 },
        { kind: 'tcp', host: 'h', port: 2 },
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('sim-gateways-with-the-simulator', () => {
    expect(loadConfig(['--gateway', 'sim', '--sim-gateways', '2'], {}).simGateways).toBe(2);
    expect(loadConfig(['--sim-gateways', '3'], {}).simGateways).toBe(3);
  });

  it.each([
    [['--gateway', 'tcp:h:1,'], /entry 2 of the list is empty/],
    [['--gateway', 'tcp:h:1,usb'], /invalid --gateway "usb"/],
    [['--gateway', 'sim,tcp:h:1'], /sim cannot be combined/],
    [['--gateway', 'tcp:h:1', '--gateway', 'auto'], /auto cannot be combined/],
    [['--gateway', 'tcp:H:1,tcp:h:1'], /tcp:h:1 is named twice/],
    [['--gateway', 'serial:/dev/a', '--gateway', '/dev/a'], /serial:\/dev\/a is named twice/],
    [['--gateway', 'tcp:h:1', '--sim-gateways', '2'], /--sim-gateways needs --gateway sim/],
    [['--sim-gateways', '0'], /--sim-gateways must be an integer between 1 and 8/],
    [['--sim-gateways', '9'], /--sim-gateways/],
  ])('rejects %j with a clear message', (argv, msg) => {
    expect(() => loadConfig(argv, {})).toThrow(ConfigError);
    expect(() => loadConfig(argv, {})).toThrow(msg);
  });

  it('at-most-eight-gateways', () => {
    const nine = Array.from({ length: 9 }, (_, i) => `tcp:h:${i + 1}`).join(',');
    expect(() => parseGatewayList([nine])).toThrow(/at most 8/);
  });
});
