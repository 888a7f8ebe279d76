/**
 * The MQTT bridge's card: connected or not (and to which broker, never with its password),
 * the counters (refused and errors red when not zero), the last error, and the settings it
 * runs with. They are start options (`--mqtt …`): the card says so and how to change them.
 */
import { Counters, ago } from './Counters.tsx';
import { mqttState } from './integrations-data.ts';

const BAD = ['refused', 'errors'];

export function MqttCard({ now }: { now: number }) {
  const s = mqttState.value;
  if (!s) return null;
  if (!s.enabled)
    return (
      <section class="ig-card" data-testid="mqtt-card" aria-label="MQTT">
        <h2>
          <span class="ig-dot" aria-hidden="true" />
          MQTT <span class="muted">off</span>
        </h2>
        <p class="muted">
          Home Assistant, Node-RED and other MQTT clients see and control the fleet through a broker; lights
          appear in Home Assistant by themselves.
        </p>
        {/* The exact command per way of running the host, as README and install.md give them. */}
        <ul class="muted ig-cmds" data-testid="mqtt-start">
          <li>
            From a checkout: <code class="ig-cmd">npm start -- --mqtt mqtt://broker:1883</code>
          </li>
          <li>
            From a release archive: <code class="ig-cmd">bin/lightnet --mqtt mqtt://broker:1883</code>
          </li>
          <li>
            The installed service: <code class="ig-cmd">LIGHTNET_MQTT=mqtt://broker:1883</code> in{' '}
            <code>/etc/lightnet/lightnet.env</code>, then{' '}
            <code class="ig-cmd">sudo systemctl restart lightnet</code>
          </li>
        </ul>
        <p class="muted">
          A broker login: add <code>--mqtt-user</code> (<code>LIGHTNET_MQTT_USER</code>), the password in{' '}
          <code>LIGHTNET_MQTT_PASSWORD</code>.
        </p>
      </section>
    );
  const since = s.connected_since_epoch_ms;
  return (
    <section class="ig-card" data-testid="mqtt-card" aria-label="MQTT">
      <h2>
        <span class={`ig-dot ${s.connected ? 'on' : 'off'}`} aria-hidden="true" />
        MQTT{' '}
        <span class="muted" data-testid="mqtt-connection">
          {s.connected ? 'connected' : 'not connected — reconnecting'}
        </span>
      </h2>
      <p class="ig-line">
        Broker <code data-testid="mqtt-broker">{s.broker}</code>
        {s.connected && since ? <span class="muted"> · since {ago(since, now)}</span> : null}
      </p>
      {s.last_error && (
        <p class="error-text ig-last-error" data-testid="mqtt-last-error">
          Last error ({ago(s.last_error.at_epoch_ms, now)}): {s.last_error.message}
        </p>
      )}
      <Counters
        counters={{
          messages_in: s.messages_in ?? 0,
          messages_out: s.messages_out ?? 0,
          refused: s.refused ?? 0,
          duplicates: s.duplicates ?? 0,
          errors: s.errors ?? 0,
          reconnects: s.reconnects ?? 0,
          retained_topics: s.retained_topics ?? 0,
        }}
        bad={BAD}
      />
      <dl class="ig-settings">
        <div>
          <dt>Base topic</dt>
          <dd>
            <code>{s.base_topic}</code>
          </dd>
        </div>
        <div>
          <dt>Home Assistant discovery</dt>
          <dd>
            <code>{s.discovery_prefix}</code>
          </dd>
        </div>
        <div>
          <dt>Commands</dt>
          <dd>
            source <code>mqtt</code>, priority of automation (below the operator, the race and the flags)
          </dd>
        </div>
      </dl>
      <p class="muted ig-note">
        These are start options: change them with <code>--mqtt</code>, <code>--mqtt-base-topic</code>,{' '}
        <code>--mqtt-discovery-prefix</code> (or <code>LIGHTNET_MQTT…</code> variables, or the config file)
        and restart the host. Refused counts malformed payloads, unknown topics, oversized and retained
        commands, and commands the command path refused; the Log says why.
      </p>
    </section>
  );
}
