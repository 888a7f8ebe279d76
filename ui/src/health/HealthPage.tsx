/** The Health page: fleet overview with alerts, the weakest links, the link test, and each device's history. */
import { useState } from 'preact/hooks';
import { useLinks } from './use-links.ts';
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
export function HealthPage() {
  const [tab, setTab] = useState<Tab>('overview');
  const [detail, setDetail] = useState<string | null>(null);
  useLinks();
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
