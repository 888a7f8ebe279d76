/**
 * Banners with several gateways, one per problem, each naming its network: a gateway
 * down or missing (its devices are unreachable), one still connecting, a network without
 * a gateway, a gateway tuned differently from its network, a gateway in no network. They
 * replace the single "Gateway not connected" banner, whose aggregate names one network only.
 */
import type { ComponentChildren } from 'preact';
import { BannerText } from '../common/BannerText.tsx';
import { gateway, link } from '../store.ts';
import { channelText, gatewayMacText, networkStatus } from './network-view.ts';
import { networks, openAssign, openNetworks, unassignedGateways } from './networks-store.ts';
import type { NetworkInfo } from './network-types.ts';

/** Whether the banners go per network: several networks, or several gateways attached. */
export const perNetworkBanners = (): boolean =>
  networks.value.length >= 2 || Array.isArray(gateway.value?.gateways);

const devicesText = (n: number): string => `its ${n} device${n === 1 ? '' : 's'}`;

function NetworksButton() {
  return (
    <button type="button" onClick={openNetworks}>
      Networks…
    </button>
  );
}

function Banner({ tone, id, children }: { tone: 'bad' | 'amber'; id: string; children: ComponentChildren }) {
  return (
    <div class={`banner ${tone}`} role={tone === 'bad' ? 'alert' : undefined} data-testid={id}>
      {children}
    </div>
  );
}

function NetworkBanner({ n, retry }: { n: NetworkInfo; retry: ComponentChildren }) {
  const live = gateway.value?.gateways?.find((g) => g.network_id === n.id) ?? null;
  const s = networkStatus(n, { gateway: live });
  const gw = live ?? n.gateway;
  const id = `banner-network-${n.id}`;
  if (s.tone === 'bad') {
    const retrying =
      typeof gw?.next_retry_in_s === 'number' ? ` — retrying in ${Math.ceil(gw.next_retry_in_s)} s` : '';
    return (
      <Banner tone="bad" id={id}>
        <BannerText>
          Gateway of {n.name} is not connected — {devicesText(n.device_count)}{' '}
          {n.device_count === 1 ? 'is' : 'are'} unreachable
          {gw?.last_error ? ` (${gw.last_error})` : ''}
          {retrying}
        </BannerText>
        {retry}
      </Banner>
    );
  }
  if (s.word === 'NOT READY')
    return (
      <Banner tone="amber" id={id}>
        <BannerText>
          Gateway of {n.name} is connecting — {devicesText(n.device_count)} wait for it
        </BannerText>
      </Banner>
    );
  if (s.word === 'NO GATEWAY' && n.device_count > 0)
    return (
      <Banner tone="amber" id={id}>
        <BannerText>
          {n.name} has no gateway — {devicesText(n.device_count)} {n.device_count === 1 ? 'is' : 'are'}{' '}
          unreachable
        </BannerText>
        <NetworksButton />
      </Banner>
    );
  if (s.word === 'CONFLICT')
    return (
      <Banner tone="amber" id={id}>
        <BannerText>
          Gateway of {n.name} is tuned differently from its network ({n.conflict?.fields.join(', ')}) —{' '}
          {devicesText(n.device_count)} are not heard
        </BannerText>
        <NetworksButton />
      </Banner>
    );
  return null;
}

/**
 * A gateway whose USB link keeps dropping (more than 3 losses a minute): one banner per
 * network, with one gateway too — a flapping single gateway is worth a warning as well.
 * It clears by itself once the host reports the link stable again.
 */
export function UnstableLinkBanners() {
  if (link.value === 'lost') return null;
  return (
    <>
      {networks.value.map((n) => {
        const u = n.link_unstable;
        if (!u) return null;
        const secs = u.window_s === 60 ? 'minute' : `${u.window_s} s`;
        return (
          <Banner key={n.id} tone="amber" id={`banner-unstable-${n.id}`}>
            <BannerText>
              Gateway of {n.name} lost its link {u.losses} time{u.losses === 1 ? '' : 's'} in the last {secs}{' '}
              — check the USB cable, hub and power. Reconnects wait {Math.round(u.reconnect_min_s)} s until
              the link is stable.
            </BannerText>
          </Banner>
        );
      })}
    </>
  );
}

export function NetworkBanners({ retry }: { retry: ComponentChildren }) {
  // Without the host the last known states are stale: the link banner says so instead.
  if (link.value === 'lost' || !perNetworkBanners()) return null;
  return (
    <>
      {networks.value.map((n) => (
        <NetworkBanner key={n.id} n={n} retry={retry} />
      ))}
      {unassignedGateways.value.map((g) => {
        const mac = g.gateway_mac;
        if (mac === null) return null;
        return (
          <Banner key={g.label} tone="amber" id="banner-unassigned-gateway">
            <BannerText>
              A gateway (MAC {gatewayMacText(mac)}, {channelText(g.rf)}) belongs to no network — it carries no
              traffic
            </BannerText>
            <button type="button" onClick={() => openAssign(mac)} disabled={!g.ready}>
              Assign…
            </button>
          </Banner>
        );
      })}
    </>
  );
}
