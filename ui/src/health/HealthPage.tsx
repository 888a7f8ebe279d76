/** The Health page: fleet overview with alerts, the weakest links, the link test, and each device's history. */
import { useEffect, useState } from 'preact/hooks';
import { onReconnect, onRefresh } from '../live.ts';
import { toastError } from '../toasts.ts';
import { loadLinks } from './data.ts';
import { DeviceDetail } from './DeviceDetail.tsx';
import { LinkTest } from './LinkTest.tsx';
import { Overview } from './Overview.tsx';
import { WeakLinks } from './WeakLinks.tsx';
import './health.css';

type Tab = 'overview' | 'links' | 'linktest';
const TABS: [Tab, string][] = [
  ['overview', 'Overview'],
  ['links', 'Weakest links'],
  ['linktest', 'Link test'],
];
/** The link summary is reloaded at most this often while polls change devices. */
const LINKS_RELOAD_MS = 3000;

export function HealthPage() {
  const [tab, setTab] = useState<Tab>('overview');
  const [detail, setDetail] = useState<string | null>(null);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const load = (): void => void loadLinks().catch((err) => toastError('Loading link summary failed', err));
    load();
    const later = (): void => {
      timer ??= setTimeout(() => {
        timer = null;
        load();
      }, LINKS_RELOAD_MS);
    };
    const offs = [onRefresh('devices', later), onReconnect(load)];
    return () => {
      offs.forEach((f) => f());
      if (timer) clearTimeout(timer);
    };
  }, []);
  return (
    <main class="main ops-page" id="main">
      <div class="title-row">
        <h1>Fleet health</h1>
        <nav class="tabs" role="tablist" aria-label="Health views">
          {TABS.map(([k, label]) => (
            <button
              key={k}
              type="button"
              role="tab"
              aria-selected={tab === k}
              class={tab === k ? 'active' : ''}
              onClick={() => setTab(k)}
            >
              {label}
            </button>
          ))}
        </nav>
      </div>
      <div class="ops-scroll">
        {tab === 'overview' && <Overview onOpen={setDetail} />}
        {tab === 'links' && <WeakLinks onOpen={setDetail} />}
        {tab === 'linktest' && <LinkTest />}
      </div>
      {detail && <DeviceDetail addr={detail} onClose={() => setDetail(null)} />}
    </main>
  );
}
