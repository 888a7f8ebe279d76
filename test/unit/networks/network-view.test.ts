import { describe, expect, it } from 'vitest';
import { findChannel } from '../../../src/domain/rf-channels.ts';
import {
  channelText,
  deleteBlocker,
  gatewayMacText,
  networkHue,
  networkStatus,
} from '../../../ui/src/networks/network-view.ts';
import type { NetworkInfo } from '../../../ui/src/networks/network-types.ts';

const gw = { ready: true, last_error: null, failure_count: 0, port: 'sim:1', next_retry_in_s: null };
const row = (over: Partial<NetworkInfo> = {}): NetworkInfo => ({
  id: 2,
  name: 'Track B',
  gateway_mac: '48CA43102130',
  state: 'ready',
  gateway: gw,
  device_count: 150,
  online_count: 148,
  rf: findChannel('EU868', 2)!.rf,
  ...over,
});
const master = (state: string) => ({
  state,
  state_byte: 0,
  state_metadata_ms: 0,
  last_event: 'STATE_REPORT',
  last_event_ts: 0,
  last_error: null,
});

describe('network view (pills, dialog, banners)', () => {
  it('names the channel as the firmware does, and the gateway MAC with colons', () => {
    expect(channelText(findChannel('EU868', 2)!.rf)).toBe('EU868 ch 2 · 868.2 MHz');
    expect(channelText(null)).toBe('channel not known yet');
    expect(gatewayMacText('48CA43102130')).toBe('48:CA:43:10:21:30');
    expect(gatewayMacText('48:ca:43:10:21:30')).toBe('48:CA:43:10:21:30');
    expect(gatewayMacText(null)).toBe('—');
  });

  it('colours a ready network by its gateway state: green idle, blue transmitting', () => {
    expect(networkStatus(row(), { master: master('IDLE') })).toMatchObject({ tone: 'good', word: 'IDLE' });
    expect(networkStatus(row(), { master: master('TX') })).toMatchObject({ tone: 'tx', word: 'TX' });
    expect(networkStatus(row())).toMatchObject({ tone: 'good', word: 'READY' });
  });

  it('turns red when the gateway lost its link or is missing, amber while connecting or unassigned', () => {
    const down = { ...gw, ready: false, last_error: 'connect failed: unplugged', next_retry_in_s: 4 };
    // The live readiness wins over a list that still says ready.
    expect(networkStatus(row(), { gateway: down })).toMatchObject({ tone: 'bad', word: 'DOWN' });
    expect(networkStatus(row({ state: 'missing', gateway: null }))).toMatchObject({
      tone: 'bad',
      word: 'MISSING',
    });
    const connecting = { ...gw, ready: false };
    expect(networkStatus(row({ state: 'not_ready', gateway: connecting }))).toMatchObject({
      tone: 'warn',
      word: 'NOT READY',
    });
    expect(networkStatus(row({ state: 'no_gateway', gateway: null, gateway_mac: null }))).toMatchObject({
      tone: 'warn',
      word: 'NO GATEWAY',
    });
    expect(networkStatus(row({ conflict: { gateway_rf: null, fields: ['freqHz'] } }))).toMatchObject({
      tone: 'warn',
      word: 'CONFLICT',
    });
    // Back: the live readiness clears a list that still says not ready.
    expect(networkStatus(row({ state: 'not_ready' }), { gateway: gw }).tone).toBe('good');
    // Without the host nothing is claimed.
    expect(networkStatus(row(), {}, true).tone).toBe('none');
  });

  it('gives neighbouring networks far-apart hues', () => {
    const d = Math.abs(networkHue(1) - networkHue(2));
    expect(Math.min(d, 360 - d)).toBeGreaterThan(60);
  });
});

describe('deleting a network', () => {
  it('is-offered-only-for-an-empty-network-and-says-why-not-otherwise', () => {
    expect(deleteBlocker(row(), 2)).toBe(
      "Forget its 150 devices first (Devices → tick them → Forget…), or let another network's gateway discover them, then Release gateway…",
    );
    expect(deleteBlocker(row({ device_count: 1 }), 2)).toBe(
      "Forget its 1 device first (Devices → tick it → Forget…), or let another network's gateway discover it, then Release gateway…",
    );
    expect(deleteBlocker(row({ device_count: 3, gateway_mac: null }), 2)).toBe(
      "Forget its 3 devices first (Devices → tick them → Forget…), or let another network's gateway discover them",
    );
    expect(deleteBlocker(row({ device_count: 0 }), 2)).toBe('Release its gateway first (Release gateway…)');
    const from = findChannel('EU868', 2)!.rf;
    const to = findChannel('EU868', 3)!.rf;
    expect(
      deleteBlocker(row({ device_count: 0, gateway_mac: null, migration: { from, to, started_ts: 0 } }), 2),
    ).toBe('It is moving to another channel: finish or cancel that first');
    expect(deleteBlocker(row({ device_count: 0, gateway_mac: null }), 1)).toBe(
      'The only network: every device belongs to one',
    );
    expect(deleteBlocker(row({ device_count: 0, gateway_mac: null }), 2)).toBeNull();
  });
});
