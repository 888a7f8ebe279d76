import { describe, expect, it } from 'vitest';
import { parseGatewaySpec } from '../../../src/transport/index.ts';
import { parseTcpTarget } from '../../../src/transport/tcp-link.ts';

describe('parseTcpTarget', () => {
  it.each([
    ['tcp:127.0.0.1:7000', { host: '127.0.0.1', port: 7000 }],
    ['tcp:gateway.local:4001', { host: 'gateway.local', port: 4001 }],
    ['TCP:host:1', { host: 'host', port: 1 }],
    ['tcp:[::1]:65535', { host: '::1', port: 65535 }],
    ['tcp:[fe80::1%eth0]:7000', { host: 'fe80::1%eth0', port: 7000 }],
    ['127.0.0.1:7000', { host: '127.0.0.1', port: 7000 }],
    ['  tcp:10.0.0.2:23  ', { host: '10.0.0.2', port: 23 }],
  ])('parses %s', (input, expected) => {
    expect(parseTcpTarget(input)).toEqual(expected);
  });

  it.each([
    ['tcp:127.0.0.1', /missing port/],
    ['tcp::7000', /missing host/],
    ['tcp:host:', /port "" is not a number/],
    ['tcp:host:70a0', /is not a number/],
    ['tcp:host:0', /out of range/],
    ['tcp:host:65536', /out of range/],
    ['tcp:host:-1', /is not a number/],
    ['tcp:::1:7000', /IPv6 hosts must be in brackets/],
    ['tcp:[::1:7000', /missing "]"/],
    ['tcp:[::1]7000', /missing port/],
    ['tcp:[gateway]:7000', /not an IPv6 address/],
    ['tcp:my host:7000', /bad host/],
  ])('rejects %s with a clear message', (input, message) => {
    expect(() => parseTcpTarget(input)).toThrow(message);
  });
});

describe('parseGatewaySpec', () => {
  it.each([
    ['auto', { kind: 'auto' }],
    ['AUTO', { kind: 'auto' }],
    [' sim ', { kind: 'sim' }],
    ['serial:/dev/ttyUSB0', { kind: 'serial', path: '/dev/ttyUSB0' }],
    [
      'serial:/dev/serial/by-id/usb-Silicon_Labs_CP2102_0001-if00-port0',
      { kind: 'serial', path: '/dev/serial/by-id/usb-Silicon_Labs_CP2102_0001-if00-port0' },
    ],
    ['serial:COM3', { kind: 'serial', path: 'COM3' }],
    ['/dev/ttyACM0', { kind: 'serial', path: '/dev/ttyACM0' }],
    ['tcp:192.168.1.20:7000', { kind: 'tcp', host: '192.168.1.20', port: 7000 }],
    ['tcp:[::1]:7000', { kind: 'tcp', host: '::1', port: 7000 }],
  ])('parses %s', (input, expected) => {
    expect(parseGatewaySpec(input)).toEqual(expected);
  });

  it.each([
    ['', /empty --gateway value/],
    ['serial:', /serial needs a port path/],
    ['tcp:localhost', /invalid --gateway "tcp:localhost": .*missing port/],
    ['tcp:localhost:99999', /out of range/],
    ['usb', /expected auto, sim, serial:<path> or tcp:<host>:<port>/],
    ['ttyUSB0', /expected auto, sim/],
  ])('rejects %j with a clear message', (input, message) => {
    expect(() => parseGatewaySpec(input)).toThrow(message);
  });
});
