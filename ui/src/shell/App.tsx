/** App shell: menu band, status bar, banners, the page, dialogs and toasts. */
import { useEffect, useState } from 'preact/hooks';
import { setUnauthorizedHandler } from '../api.ts';
import { ConfirmHost } from '../dialogs/confirm.tsx';
import { startLive } from '../live.ts';
import { installShortcuts, registerShortcut } from '../keys.ts';
import { navigate, route } from '../router.ts';
import { Banners } from './Banners.tsx';
import { DevicesPage } from '../devices/DevicesPage.tsx';
import { sceneDirty } from '../scenes/scene-draft.ts';
import { Login } from './Login.tsx';
import { StatusBar } from './StatusBar.tsx';
import { Toasts } from './Toasts.tsx';
import { PageLink } from '../common/PageLink.tsx';
import { networksDialogOpen } from '../networks/networks-store.ts';
import { shaped } from '../store.ts';
import { lazy, preloadLazy } from '../common/lazy.ts';
import { OwnersStrip } from '../owners/OwnersStrip.tsx';

// Not on the first screen: chunks of their own (common/lazy.ts).
const ScenesPage = lazy(() => import('../scenes/ScenesPage.tsx').then((m) => m.ScenesPage));
const HealthPage = lazy(() => import('../health/HealthPage.tsx').then((m) => m.HealthPage));
const LogPage = lazy(() => import('../log/LogPage.tsx').then((m) => m.LogPage));
const RacePage = lazy(() => import('../race/RacePage.tsx').then((m) => m.RacePage));
const RaceLightsPage = lazy(() => import('../racelights/RaceLightsPage.tsx').then((m) => m.RaceLightsPage));
const IntegrationsPage = lazy(() =>
  import('../integrations/IntegrationsPage.tsx').then((m) => m.IntegrationsPage),
);
const HelpPage = lazy(() => import('../help/HelpPage.tsx').then((m) => m.HelpPage));
const BatteryDialog = lazy(() => import('../devices/DeviceDialogs.tsx').then((m) => m.BatteryDialog));
const SettingsDialog = lazy(() => import('../dialogs/SettingsDialog.tsx').then((m) => m.SettingsDialog));
const NativePresetsDialog = lazy(() =>
  import('../scenes/NativePresetsDialog.tsx').then((m) => m.NativePresetsDialog),
);
const NetworksDialog = lazy(() => import('../networks/NetworksDialog.tsx').then((m) => m.NetworksDialog));

let started = false;
/**
 * Starts the model (the lists, the live stream) and the shortcuts, unless the page is the
 * login. main.tsx calls it before the first render, so the lists' answers (often already
 * here, see early.ts) are applied without waiting for a painted frame first.
 */
export function boot(): void {
  setUnauthorizedHandler(() => {
    if (route.value !== 'login') navigate('login', true);
  });
  if (started || route.value === 'login') return;
  started = true;
  installShortcuts();
  // The other pages and dialogs once the first screen is drawn and the page is idle.
  void startLive().then(() =>
    typeof requestIdleCallback === 'function'
      ? requestIdleCallback(preloadLazy, { timeout: 3000 })
      : setTimeout(preloadLazy, 500),
  );
}

export function App() {
  const [battery, setBattery] = useState(false);
  const [settings, setSettings] = useState(false);
  const [native, setNative] = useState(false);
  const r = route.value;
  useEffect(() => registerShortcut('?', () => setSettings(true), 'Settings and shortcuts'), []);
  if (r === 'login') {
    return (
      <Login
        onDone={() => {
          navigate('devices', true);
          // A fresh start: the stream and the model were refused before login.
          location.reload();
        }}
      />
    );
  }
  return (
    <div class="app">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="menu-band">
        <span class="logo" aria-hidden="true">
          ◭
        </span>
        <strong class="brand">Lightnet</strong>
        <nav class="pages" aria-label="Pages">
          <a
            href="./"
            class={r === 'devices' ? 'active' : ''}
            aria-current={r === 'devices' ? 'page' : undefined}
            onClick={(e) => {
              e.preventDefault();
              navigate('devices');
            }}
          >
            Devices
          </a>
          <a
            href="./scenes"
            class={r === 'scenes' ? 'active' : ''}
            aria-current={r === 'scenes' ? 'page' : undefined}
            onClick={(e) => {
              e.preventDefault();
              navigate('scenes');
            }}
            title={sceneDirty.value ? 'Scenes (unsaved edits)' : undefined}
          >
            Scenes
            {sceneDirty.value && (
              <span class="dirty-dot" aria-label="unsaved edits">
                {' '}
                •
              </span>
            )}
          </a>
          {(['health', 'log'] as const).map((p) => (
            <a
              key={p}
              href={`./${p}`}
              class={r === p ? 'active' : ''}
              aria-current={r === p ? 'page' : undefined}
              onClick={(e) => {
                e.preventDefault();
                navigate(p);
              }}
            >
              {p === 'health' ? 'Health' : 'Log'}
            </a>
          ))}
          <PageLink to="race" label="Race" title="Race-day panel: Blackout, pinned scenes, race mode" />
          <PageLink
            to="race-lights"
            label="Race lights"
            title="Laps and race phases on the gates: timers, mapping, looks, Test"
          />
          <PageLink
            to="integrations"
            label="Integrations"
            title="MQTT (Home Assistant), sACN / Art-Net consoles, OSC: state, counters, settings, DMX patch"
          />
          <PageLink to="help" label="Help" title="What the states, marks and keys mean" />
        </nav>
        <span class="spacer" />
        <button
          type="button"
          onClick={() => setNative(true)}
          title="The host's own effect presets, used by scenes"
        >
          Native presets
        </button>
        <button
          type="button"
          class="ghost icon"
          title="Settings and keyboard shortcuts (?)"
          aria-label="Settings"
          onClick={() => setSettings(true)}
        >
          ⚙
        </button>
      </header>
      <StatusBar />
      {shaped.value && <OwnersStrip />}
      {shaped.value && <Banners onShowBattery={() => setBattery(true)} />}
      {!shaped.value ? (
        <main class="main" id="main" aria-busy="true" />
      ) : r === 'scenes' ? (
        <ScenesPage />
      ) : r === 'health' ? (
        <HealthPage />
      ) : r === 'log' ? (
        <LogPage />
      ) : r === 'race' ? (
        <RacePage />
      ) : r === 'race-lights' ? (
        <RaceLightsPage />
      ) : r === 'integrations' ? (
        <IntegrationsPage />
      ) : r === 'help' ? (
        <HelpPage />
      ) : (
        <DevicesPage />
      )}
      {battery && <BatteryDialog onClose={() => setBattery(false)} />}
      {settings && <SettingsDialog onClose={() => setSettings(false)} />}
      {native && <NativePresetsDialog onClose={() => setNative(false)} />}
      {networksDialogOpen.value && <NetworksDialog onClose={() => (networksDialogOpen.value = false)} />}
      <ConfirmHost />
      <Toasts />
    </div>
  );
}
