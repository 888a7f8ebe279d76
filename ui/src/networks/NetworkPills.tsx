/**
 * The status bar with several networks: one gateway pill per network (its name and its
 * gateway's state; green ready, blue transmitting, amber connecting / no gateway /
 * conflict, red down or missing). The title says the gateway's MAC, port and channel; a
 * click opens the Networks dialog. A gateway in no network gets an amber pill of its own
 * (with one network too): it is not any network's state, and a click opens its Assign form.
 */
import { gateway, link, master } from '../store.ts';
import { gatewayMacText, channelText, networkStatus } from './network-view.ts';
import { networks, openAssign, openNetworks, unassignedGateways } from './networks-store.ts';
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

/** "UNASSIGNED · 21:30" per connected gateway that belongs to no network (amber, never red). */
export function UnassignedPills() {
  // Without the host the list is stale: the link banner speaks instead.
  if (link.value === 'lost') return null;
  return (
    <>
      {unassignedGateways.value.map((g) => {
        const mac = g.gateway_mac;
        if (mac === null || !g.ready) return null;
        const text = gatewayMacText(mac);
        const title = [
          `Gateway ${text} on ${g.label} belongs to no network: it carries no traffic`,
          channelText(g.rf),
          `${g.unknown_heard} unknown node${g.unknown_heard === 1 ? '' : 's'} heard announcing through it`,
          'Click to assign it to a network',
        ].join('\n');
        return (
          <button
            key={g.label}
            type="button"
            class="pill gw net warn"
            title={title}
            aria-label={`Gateway ${text}: unassigned — assign it`}
            onClick={() => openAssign(mac)}
            data-testid="unassigned-pill"
            data-tone="warn"
          >
            <span class="dot" aria-hidden="true" />
            <span>UNASSIGNED</span>
            <span class="muted net-word">· {text.slice(-5)}</span>
          </button>
        );
      })}
    </>
  );
}
