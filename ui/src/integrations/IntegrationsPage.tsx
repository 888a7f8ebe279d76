/**
 * Integrations: one card per adapter (MQTT, DMX in, OSC), each with its
 * state, counters, last error and the settings it runs with.
 */
import { useEffect, useState } from 'preact/hooks';
import { loadError, loadIntegrations, mqttState } from './integrations-data.ts';
import { DmxCard } from './DmxCard.tsx';
import { MqttCard } from './MqttCard.tsx';
import { OscCard } from './OscCard.tsx';
import './integrations.css';

/** OSC has no stream event: its counters are re-read this often while the page is open. */
const REREAD_MS = 2000;

export function IntegrationsPage() {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    void loadIntegrations();
    const t = setInterval(() => {
      setNow(Date.now());
      void loadIntegrations();
    }, REREAD_MS);
    return () => clearInterval(t);
  }, []);
  return (
    <main class="ig-page" id="main" data-testid="integrations-page">
      <header class="ig-head">
        <h1>Integrations</h1>
        <span class="muted">Other systems that see and drive the fleet, each through the command path.</span>
      </header>
      {mqttState.value === null ? (
        <p class="muted">{loadError.value ? `Loading failed: ${loadError.value}` : 'Loading…'}</p>
      ) : (
        <div class="ig-cards">
          <MqttCard now={now} />
          <DmxCard />
          <OscCard />
        </div>
      )}
    </main>
  );
}
