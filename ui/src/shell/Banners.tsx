/** Banner strip: connection problems (per network with several gateways), state not saved or lost, simulated fleet, low battery, the timing application's heat. */
import { useState } from 'preact/hooks';
import { post } from '../api.ts';
import { gateway, health, link, loadHealth, loadMaster } from '../store.ts';
import { toastError } from '../toasts.ts';
import { lowBattery } from '../common/battery.ts';
import { forgetDevices } from '../devices/forget.ts';
import { HeatBanner } from './HeatBanner.tsx';
import { BannerText } from '../common/BannerText.tsx';
import { NetworkBanners, UnstableLinkBanners, perNetworkBanners } from '../networks/NetworkBanners.tsx';

export function Banners({ onShowBattery }: { onShowBattery: () => void }) {
  const g = gateway.value;
  const [retrying, setRetrying] = useState(false);
  const low = lowBattery.value;
  const persistence = health.value?.persistence;
  const acknowledge = async () => {
    try {
      await post('health/acknowledge');
      await loadHealth();
    } catch (err) {
      toastError('Acknowledge failed', err);
    }
  };
  // The banner goes once the host no longer counts them (it drops forgotten ones).
  const forgetLeftovers = async () => {
    if (await forgetDevices(health.value?.data?.simulated_leftovers ?? []))
      await loadHealth().catch((err: unknown) => toastError('Loading health failed', err));
  };
  const retry = async () => {
    setRetrying(true);
    try {
      await post('gateway/retry');
    } catch (err) {
      toastError('Retry failed', err);
    } finally {
      setRetrying(false);
      void loadMaster().catch(() => {});
    }
  };
  const retryButton = (
    <button type="button" onClick={retry} disabled={retrying}>
      {retrying ? 'Retrying…' : 'Retry connection'}
    </button>
  );
  const perNetwork = perNetworkBanners();
  const real = health.value?.data?.simulated ? health.value.data.real : null;
  return (
    <div class="banners">
      {link.value === 'lost' && (
        <div class="banner warn" role="alert" data-testid="banner-link">
          Connection to host lost — reconnecting…
        </div>
      )}
      {health.value?.phase === 'booting' && <div class="banner warn">Host starting…</div>}
      {persistence?.alarm && (
        <div class="banner bad" role="alert" data-testid="banner-state-lost">
          Saved state was lost: {persistence.alarm}
          <button type="button" onClick={acknowledge}>
            Acknowledge
          </button>
        </div>
      )}
      {persistence?.error && (
        <div class="banner bad" role="alert" data-testid="banner-persistence">
          Changes are not being saved — {persistence.error}. Changes are refused until the data directory
          takes writes again (free disk space, fix permissions).
        </div>
      )}
      <HeatBanner />
      {perNetwork ? (
        <NetworkBanners retry={retryButton} />
      ) : (
        g &&
        !g.ready && (
          <div class="banner bad" role="alert" data-testid="banner-gateway">
            Gateway not connected{g.last_error ? `: ${g.last_error}` : ''}
            {typeof g.next_retry_in_s === 'number' ? ` — retrying in ${Math.ceil(g.next_retry_in_s)} s` : ''}
            {retryButton}
          </div>
        )
      )}
      <UnstableLinkBanners />
      {g?.transport === 'sim' && (
        <div class="banner sim" data-testid="banner-sim">
          {/* One flex item: text and path flow as one paragraph (not three columns). */}
          <BannerText>
            Simulator — no radio hardware is connected. Nothing you do here reaches real nodes.
            {health.value?.data?.simulated && (
              <>
                {' '}
                Simulated devices are kept in <code data-testid="sim-data-dir">{health.value.data.dir}</code>
                {health.value.data.dir === health.value.data.real_dir
                  ? ', the real data folder itself (--sim-data-dir names it): they are saved with the real devices.'
                  : ', apart from the real data folder.'}
              </>
            )}
            {real && (
              <span data-testid="sim-real-folder">
                {' '}
                The real data folder <code>{real.dir}</code> holds {realContents(real)}, not shown on the
                simulator: plug in the gateway and restart the host to use them, or practise with a RaceLink
                setup here through ⚙ Settings → Import from RaceLink.
              </span>
            )}
          </BannerText>
        </div>
      )}
      {(health.value?.data?.simulated_leftovers?.length ?? 0) > 0 && (
        <div class="banner amber" data-testid="banner-sim-leftovers">
          <BannerText>
            {health.value?.data?.simulated_leftovers?.length} device(s) in this data folder are simulated ones
            an older Lightnet saved here ({health.value?.data?.simulated_leftovers?.join(', ')}); they never
            answer. Forget them (your groups and scenes stay), or to start clean, stop the host and move
            state.json, state.json.bak and state.journal out of <code>{health.value?.data?.dir}</code> (groups
            and scenes go with them), or restore a backup.
          </BannerText>
          <button type="button" data-testid="forget-leftovers" onClick={() => void forgetLeftovers()}>
            Forget them…
          </button>
        </div>
      )}
      {low.length > 0 && (
        <div class="banner amber" data-testid="banner-battery">
          {low.length} device{low.length === 1 ? '' : 's'} reporting low battery
          <button type="button" onClick={onShowBattery}>
            Show device{low.length === 1 ? '' : 's'}
          </button>
        </div>
      )}
    </div>
  );
}

const counted = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

/** "24 devices, 4 groups and 5 scenes" (only what there is). */
function realContents(r: { devices: number; groups: number; scenes: number }): string {
  const parts = [
    r.devices > 0 ? counted(r.devices, 'device') : null,
    r.groups > 0 ? counted(r.groups, 'group') : null,
    r.scenes > 0 ? counted(r.scenes, 'scene') : null,
  ].filter((p): p is string => p !== null);
  return parts.length > 1
    ? `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`
    : (parts[0] ?? '');
}
