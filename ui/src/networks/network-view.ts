/**
 * How a network reads in the UI: its tone and short state word (pill, dialog, banners),
 * its channel text and its gateway's MAC. Pure: inputs are the list row plus the live
 * readiness and master snapshot of its gateway (which arrive before the list reloads).
 */
import { describeRf } from '../../../src/domain/rf-channels.ts';
import type { Gateway, Master } from '../types.ts';
import type { NetworkInfo, RfConfig } from './network-types.ts';

export type Tone = 'good' | 'tx' | 'warn' | 'bad' | 'none';

export interface NetworkStatus {
  tone: Tone;
  /** One or two words for the pill: IDLE, TX, DOWN, MISSING, NO GATEWAY, CONFLICT … */
  word: string;
  /** A sentence for titles and the dialog. */
  text: string;
}

/** The gateway's master state as the single-gateway pill colours it. */
const STATE_TONE: Record<string, Tone> = {
  IDLE: 'good',
  TX: 'tx',
  RX: 'warn',
  RX_WINDOW: 'warn',
  ERROR: 'bad',
};

/** Radio settings in an operator's words (a conflict's differing fields). */
export const RF_FIELDS: Record<keyof RfConfig, { label: string; show: (v: number) => string }> = {
  freqHz: { label: 'Frequency', show: (v) => `${(v / 1e6).toFixed(3)} MHz` },
  bwKhzX10: { label: 'Bandwidth', show: (v) => `${v / 10} kHz` },
  sf: { label: 'Spreading factor', show: (v) => `SF${v}` },
  crDen: { label: 'Coding rate', show: (v) => `4/${v}` },
  syncWord: { label: 'Sync word', show: (v) => `0x${v.toString(16).toUpperCase().padStart(2, '0')}` },
  txPowerDbm: { label: 'TX power', show: (v) => `${v} dBm` },
  preamble: { label: 'Preamble', show: (v) => `${v} symbols` },
};

/** "EU868 ch 2 · 868.2 MHz" (the firmware's table), "custom · …", or a note while unknown. */
export const channelText = (rf: RfConfig | null | undefined): string =>
  rf ? describeRf(rf) : 'channel not known yet';

/** 12 hex (or already coloned) → "48:CA:43:10:20:30". */
export function gatewayMacText(mac: string | null | undefined): string {
  const hex = (mac ?? '').replace(/[^0-9a-f]/gi, '').toUpperCase();
  return hex.length === 12 ? (hex.match(/.{2}/g)?.join(':') ?? hex) : mac || '—';
}

/**
 * The network's state, newest facts first: the live readiness of its gateway (the
 * `gateway` event) overrides the list's state, the live master state colours a ready one.
 * A gateway that lost its link (an error, a retry pending) is red like today's single
 * "GATEWAY DOWN"; one still connecting for the first time is amber.
 */
export function networkStatus(
  n: NetworkInfo,
  live: { gateway?: Omit<Gateway, 'gateways'> | null; master?: Omit<Master, 'networks'> | null } = {},
  hostLost = false,
): NetworkStatus {
  if (hostLost) return { tone: 'none', word: '?', text: 'Host unreachable: state unknown' };
  const gw = live.gateway ?? n.gateway;
  let state = n.state;
  if (live.gateway && (state === 'ready' || state === 'not_ready'))
    state = live.gateway.ready ? 'ready' : 'not_ready';
  if (state === 'missing')
    return {
      tone: 'bad',
      word: 'MISSING',
      text: 'Its gateway is not connected: its devices are unreachable',
    };
  if (state === 'no_gateway')
    return { tone: 'warn', word: 'NO GATEWAY', text: 'No gateway is assigned: its devices are unreachable' };
  if (n.conflict)
    return {
      tone: 'warn',
      word: 'CONFLICT',
      text: `Its gateway is tuned differently (${n.conflict.fields.map((f) => RF_FIELDS[f as keyof RfConfig]?.label.toLowerCase() ?? f).join(', ') || 'radio settings'}): its devices are not heard`,
    };
  if (state === 'not_ready') {
    const lost = Boolean(gw?.last_error) || typeof gw?.next_retry_in_s === 'number';
    return lost
      ? {
          tone: 'bad',
          word: 'DOWN',
          text: `Its gateway is not connected${gw?.last_error ? ` (${gw.last_error})` : ''}: its devices are unreachable`,
        }
      : { tone: 'warn', word: 'NOT READY', text: 'Its gateway is connecting' };
  }
  const m = live.master;
  const word = m?.state ?? 'READY';
  return { tone: STATE_TONE[word] ?? 'good', word, text: `Ready${m ? ` (gateway state ${m.state})` : ''}` };
}

/** A stable colour per network id (chips and pills tell networks apart at a glance). */
export function networkHue(id: number): number {
  // Golden-angle steps: neighbouring ids get far-apart hues.
  return Math.round((id * 137.508 + 190) % 360);
}

/**
 * Why a network cannot be deleted now, in the words of the host's refusal (it checks again:
 * 409 `network_in_use`), or null when Delete may be offered.
 */
export function deleteBlocker(n: NetworkInfo, networkCount: number): string | null {
  if (networkCount <= 1) return 'The only network: every device belongs to one';
  // The whole way to an empty network, naming the buttons that do each step.
  const release = n.gateway_mac !== null ? ', then Release gateway…' : '';
  if (n.device_count > 0)
    return `Forget its ${n.device_count} device${n.device_count === 1 ? '' : 's'} first (Devices → tick ${n.device_count === 1 ? 'it' : 'them'} → Forget…), or let another network's gateway discover ${n.device_count === 1 ? 'it' : 'them'}${release}`;
  if (n.gateway_mac !== null) return 'Release its gateway first (Release gateway…)';
  if (n.migration) return 'It is moving to another channel: finish or cancel that first';
  return null;
}
