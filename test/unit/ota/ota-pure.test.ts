import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/errors.ts';
import { splitTerse } from '../../../src/services/wifi/host-wifi.ts';
import {
  clampRetries,
  fwStartSchema,
  resolveBaseUrl,
  resolveWifi,
} from '../../../src/services/ota/request.ts';
import { macMatches } from '../../../src/services/ota/steps.ts';
import { bssidMatches, colonBssid, predictApBssid } from '../../../src/services/wifi/backend.ts';
import { parseBody } from '../../../src/http/validation.ts';

const wifi = (body: Record<string, unknown>) =>
  resolveWifi(parseBody(fwStartSchema, { macs: ['AABBCC'], ...body }));

describe('OTA pure helpers', () => {
  it('terse nmcli lines: escaped colons and backslashes, empty fields', () => {
    expect(splitTerse('*:DC\\:B4\\:D9\\:A8\\:A9\\:5B:My\\:Net')).toEqual([
      '*',
      'DC:B4:D9:A8:A9:5B',
      'My:Net',
    ]);
    expect(splitTerse('a\\\\:b::')).toEqual(['a\\', 'b', '', '']);
  });

  it('AP BSSID prediction: STA + 1 with carry, 3-byte suffix mode', () => {
    expect(predictApBssid('24:6F:28:67:9C:02')).toBe('246F28679C03');
    expect(predictApBssid('246F28FFFFFF')).toBe('246F29000000');
    expect(predictApBssid('FFFFFFFFFFFF')).toBe('000000000000');
    expect(predictApBssid('FFFFFF')).toBe('000000');
    expect(colonBssid('246f28679c03')).toBe('24:6F:28:67:9C:03');
    expect(bssidMatches('24:6F:28:67:9C:03', '246F28679C03')).toBe(true);
    expect(bssidMatches('11:22:33:67:9C:03', '679C03')).toBe(true);
    expect(bssidMatches('11:22:33:67:9C:04', '679C03')).toBe(false);
  });

  it('node MAC match: 12 hex exact, 6 hex as suffix', () => {
    expect(macMatches('246f28679c02', '246F28679C02')).toBe(true);
    expect(macMatches('246f28679c02', '679C02')).toBe(true);
    expect(macMatches('246f28679c02', '246F28679C03')).toBe(false);
    expect(macMatches('', '679C02')).toBe(false);
  });

  it('retries: absent → 3, clamped to 1..10', () => {
    expect(clampRetries(undefined)).toBe(3);
    expect(clampRetries(0)).toBe(1);
    expect(clampRetries(99)).toBe(10);
  });

  it('WiFi options: defaults, wifi.* over root aliases, comma lists de-duplicated', () => {
    expect(wifi({})).toEqual({
      ssids: ['WLED_RaceLink_AP', 'WLED-AP'],
      password: 'wled1234',
      otaPassword: 'wledota',
      iface: 'wlan0',
      bssid: null,
      timeoutS: 20,
      hostWifiEnable: true,
      hostWifiRestore: true,
    });
    const w = wifi({
      wifiSsid: 'A, B',
      wifi: { ssid: 'C, C ,D', iface: 'wlp2s0', bssid: 'aa:bb:cc:dd:ee:ff', password: '' },
      wifiPassword: 'rootpass1',
      wifiTimeoutS: 30,
      hostWifiRestore: false,
    });
    expect(w).toMatchObject({
      ssids: ['C', 'D'],
      iface: 'wlp2s0',
      bssid: 'AA:BB:CC:DD:EE:FF',
      password: 'rootpass1',
      timeoutS: 30,
      hostWifiRestore: false,
    });
    expect(() => wifi({ wifi: { ssids: ['', ' '] } })).toThrow(ValidationError);
    expect(() => wifi({ wifi: { ssid: 'bad\u0001' } })).toThrow(/wifi.ssids: invalid SSID/);
  });

  it('base URL rules', () => {
    expect(resolveBaseUrl(undefined)).toBe('http://4.3.2.1');
    expect(resolveBaseUrl(' http://4.3.2.1/ ')).toBe('http://4.3.2.1');
    expect(resolveBaseUrl('http://192.168.4.20:8080')).toBe('http://192.168.4.20:8080');
    expect(resolveBaseUrl('http://wled-a1b2c3.local')).toBe('http://wled-a1b2c3.local');
    expect(resolveBaseUrl('http://127.0.0.1:9999')).toBe('http://127.0.0.1:9999');
    expect(resolveBaseUrl('http://169.254.1.2')).toBe('http://169.254.1.2');
    for (const bad of [
      'ftp://4.3.2.1',
      'http://4.3.2.2',
      'http://172.32.0.1',
      'http://a@10.0.0.1',
      'http://10.0.0.1/x',
      'http://10.0.0.1?x=1',
      'nonsense',
    ])
      expect(() => resolveBaseUrl(bad), bad).toThrow(/^baseUrl: invalid baseUrl/);
  });
});
