import { describe, expect, it } from 'vitest';
import { HostAllowList, hostPart } from '../../../src/http/host-check.ts';

describe('host allow list (DNS rebinding)', () => {
  const list = new HostAllowList(['timer.example.org', '*.track.lan'], 'TrackPi.fritz.box');

  it.each([
    'localhost',
    'localhost:5077',
    'app.localhost:1',
    '127.0.0.1:5077',
    '10.1.2.3',
    '[::1]:5077',
    '[fe80::1%25eth0]:5077',
    'trackpi.fritz.box:5077',
    'trackpi:5077',
    'TRACKPI.local',
    'timer.example.org.',
    'pit.track.lan:5000',
  ])('serves %s', (h) => expect(list.allows(h)).toBe(true));

  it.each([
    'evil.example:5077',
    'track.lan',
    'localhost.evil.example',
    'trackpi.evil',
    '',
    'a b',
    '[::1',
    'x:abc',
  ])('refuses %j', (h) => expect(list.allows(h)).toBe(false));

  it('star-allows-any-name', () => {
    expect(new HostAllowList(['*'], 'x').allows('anything.example')).toBe(true);
  });

  it('host-part-strips-port-and-brackets', () => {
    expect(hostPart('Example.ORG:80')).toBe('example.org');
    expect(hostPart('[::1]:80')).toBe('::1');
    expect(hostPart('[::1]x')).toBeNull();
  });
});
