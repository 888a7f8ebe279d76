/**
 * The Integrations page's model: each adapter's state from its GET (`/api/osc`, `/api/mqtt`),
 * kept current by the stream's `mqtt` event (the bridge sends its counters at most 4 times
 * a second); OSC has no event of its own, so the page re-reads it while it is open.
 */
import { signal } from '@preact/signals';
import { get } from '../api.ts';

export interface MqttState {
  enabled: boolean;
  connected?: boolean;
  broker?: string;
  base_topic?: string;
  discovery_prefix?: string;
  connected_since_epoch_ms?: number | null;
  messages_in?: number;
  messages_out?: number;
  refused?: number;
  duplicates?: number;
  errors?: number;
  last_error?: { at_epoch_ms: number; message: string } | null;
  reconnects?: number;
  retained_topics?: number;
}

export interface OscState {
  enabled: boolean;
  port?: number | null;
  packets?: number;
  messages?: number;
  accepted?: number;
  released?: number;
  refused?: number;
  malformed?: number;
  unknown_address?: number;
  bad_args?: number;
  rate_limited?: number;
  feedback_sent?: number;
  feedback_targets?: number;
}

export const mqttState = signal<MqttState | null>(null);
export const oscState = signal<OscState | null>(null);
export const loadError = signal<string | null>(null);

/** From the stream: the bridge's counters changed. */
export function applyMqtt(s: Omit<MqttState, 'enabled'>): void {
  mqttState.value = { enabled: true, ...s };
}

export async function loadIntegrations(): Promise<void> {
  try {
    const [m, o] = await Promise.all([get<MqttState>('mqtt'), get<OscState>('osc')]);
    mqttState.value = m;
    oscState.value = o;
    loadError.value = null;
  } catch (err) {
    loadError.value = (err as Error).message;
  }
}
