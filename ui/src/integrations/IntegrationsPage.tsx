/**
 * Integrations: the event's other systems, one card each. This branch has the DMX card only
 * (sACN / Art-Net in); the MQTT card joins it on the same page.
 */
import { DmxCard } from './DmxCard.tsx';
import './integrations.css';

export function IntegrationsPage() {
  return (
    <main class="int-page" id="main" data-testid="integrations-page">
      <header class="int-head">
        <h1>Integrations</h1>
      </header>
      <DmxCard />
    </main>
  );
}
