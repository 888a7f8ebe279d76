/**
 * The status bar with several networks: one gateway pill per network (its name and its
 * gateway's state; green ready, blue transmitting, amber connecting / no gateway /
 * conflict, red down or missing). The title says the gateway's MAC, port and channel; a
 * click opens the Networks dialog.
 */
import { gateway, link, master } from '../store.ts';
import { gatewayMacText, channelText, networkStatus } from './network-view.ts';
import { networks, openNetworks } from './networks-store.ts';
import type { NetworkInfo } from './network-types.ts';
import './networks.css';

function NetworkPill({ n }: { n: NetworkInfo }) {
  const live = {
    gateway: gateway.value?.gateways?.find((g) => g.network_id === n.id) ?? null,
    master: master.value?.networks?.find((m) => m.network_id === n.id) ?? null,
  };
  const s = networkStatus(n, live, link.value === 'lost');
  const gw = live.gateway ?? n.gateway;
  const title = [
    `${n.name}: ${s.text}`,
    n.gateway_mac ? `Gateway MAC ${gatewayMacText(n.gateway_mac)}` : 'No gateway assigned',
    gw?.port ? `Port ${gw.port}${gw.transport ? ` (${gw.transport})` : ''}` : '',
    channelText(n.rf),
    `${n.device_count} device${n.device_count === 1 ? '' : 's'}, ${n.online_count} online`,
    'Click for the networks',
  ]
    .filter(Boolean)
    .join('\n');
  return (
    <button
      type="button"
      class={`pill gw net ${s.tone}`}
      title={title}
      aria-label={`${n.name}: ${s.word}`}
      onClick={openNetworks}
      data-testid={`network-pill-${n.id}`}
      data-tone={s.tone}
    >
      <span class="dot" aria-hidden="true" />
      <span class="net-name">{n.name}</span>
      <span class="muted net-word">· {s.word}</span>
    </button>
  );
}

export function NetworkPills() {
  return (
    <span class="network-pills" data-testid="network-pills">
      {networks.value.map((n) => (
        <NetworkPill key={n.id} n={n} />
      ))}
    </span>
  );
}
