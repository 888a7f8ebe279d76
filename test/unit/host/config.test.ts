import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/index.ts';

describe('runtime configuration', () => {
  it('defaults', () => {
    const c = loadConfig([], {});
    expect(c).toMatchObject({
      port: 5077,
      host: '127.0.0.1',
      prefix: '/lightnet',
      dataDir: './data',
      gateway: { kind: 'auto' },
    });
  });

  it('stdin-ties-the-host-life-only-when-asked-never-by-the-integration-alone', () => {
    const secret = { LIGHTNET_INTEGRATION_SECRET: 'x'.repeat(16) };
    expect(loadConfig(['--integration', 'rotorhazard'], secret).exitOnStdinClose).toBe(false);
    expect(
      loadConfig(['--integration', 'rotorhazard', '--exit-on-stdin-close'], secret).exitOnStdinClose,
    ).toBe(true);
    expect(loadConfig([], { LIGHTNET_EXIT_ON_STDIN_CLOSE: '1' }).exitOnStdinClose).toBe(true);
    expect(() => loadConfig([], { LIGHTNET_EXIT_ON_STDIN_CLOSE: 'sometimes' })).toThrow(
      /--exit-on-stdin-close .* must be true or false/,
    );
  });

  it('flags-beat-environment', () => {
    const c = loadConfig(
      ['--port', '6000', '--gateway', 'tcp:127.0.0.1:7000', '--sim-nodes', '50', '--prefix', '/x/'],
      { LIGHTNET_PORT: '7000', LIGHTNET_HOST: '0.0.0.0', LIGHTNET_PASSWORD: 'pw' },
    );
    expect(c).toMatchObject({
      port: 6000,
      host: '0.0.0.0',
      prefix: '/x',
      simNodes: 50,
      password: 'pw',
      gateway: { kind: 'tcp', host: '127.0.0.1', port: 7000 },
    });
  });

  it.each([
    [['--port', 'abc'], /--port/],
    [['--port', '70000'], /--port/],
    [['--gateway', 'usb'], /--gateway|invalid/],
    [['--sim-nodes', '-1'], /--sim-nodes/],
    [['--wifi', 'iwd'], /--wifi/],
    [['--prefix', 'no slash'], /--prefix/],
    [['--log-level', 'loud'], /--log-level/],
    [['--allowed-hosts', 'ok.example,http://x'], /--allowed-hosts/],
  ])('rejects %j', (argv, msg) => {
    expect(() => loadConfig(argv, {})).toThrow(ConfigError);
    expect(() => loadConfig(argv, {})).toThrow(msg);
  });

  it('allowed-hosts-from-flag-or-environment', () => {
    expect(loadConfig(['--allowed-hosts', 'Timer.Example.org, *.track.lan'], {}).allowedHosts).toEqual([
      'timer.example.org',
      '*.track.lan',
    ]);
    expect(loadConfig([], { LIGHTNET_ALLOWED_HOSTS: '*' }).allowedHosts).toEqual(['*']);
    expect(loadConfig([], {}).allowedHosts).toEqual([]);
  });

  it('mqtt-is-off-by-default-and-its-options-are-checked', () => {
    expect(loadConfig([], {}).mqtt).toBeNull();
    expect(
      loadConfig(['--mqtt', 'mqtt://10.0.0.2:1883', '--mqtt-user', 'ha'], { LIGHTNET_MQTT_PASSWORD: 'pw' })
        .mqtt,
    ).toEqual({
      url: 'mqtt://10.0.0.2:1883',
      username: 'ha',
      password: 'pw',
      baseTopic: 'lightnet',
      discoveryPrefix: 'homeassistant',
      discovery: true,
    });
    expect(
      loadConfig(
        ['--mqtt', 'mqtts://b:8883', '--mqtt-base-topic', 'club/lights', '--mqtt-discovery', 'false'],
        {},
      ).mqtt,
    ).toMatchObject({ baseTopic: 'club/lights', discovery: false });
  });

  it.each([
    [['--mqtt', 'localhost:1883'], /--mqtt must be a URL/],
    [['--mqtt', 'http://b:1883'], /--mqtt must be a URL/],
    [['--mqtt', 'mqtt://b', '--mqtt-base-topic', 'a/#'], /--mqtt-base-topic/],
    [['--mqtt', 'mqtt://b', '--mqtt-base-topic', 'a//b'], /--mqtt-base-topic/],
    [['--mqtt', 'mqtt://b', '--mqtt-discovery-prefix', 'home assistant'], /--mqtt-discovery-prefix/],
    [['--mqtt', 'mqtt://b', '--mqtt-ca', '/nonexistent/ca.pem'], /--mqtt-ca: no file/],
    [['--mqtt', 'mqtt://b', '--mqtt-cert', 'package.json'], /--mqtt-cert and --mqtt-key go together/],
    [['--mqtt', 'mqtt://b', '--mqtt-discovery', 'maybe'], /--mqtt-discovery must be true or false/],
  ])('rejects mqtt %j', (argv, msg) => {
    expect(() => loadConfig(argv, {})).toThrow(msg);
  });
});
