/** The OSC receiver's card: its port, or how to turn it on, and its counters. */
import { Counters } from './Counters.tsx';
import { oscState } from './integrations-data.ts';

const BAD = ['refused', 'malformed', 'unknown_address', 'bad_args', 'rate_limited'];

export function OscCard() {
  const s = oscState.value;
  if (!s) return null;
  return (
    <section class="ig-card" data-testid="osc-card" aria-label="OSC">
      <h2>
        <span class={`ig-dot ${s.enabled ? 'on' : ''}`} aria-hidden="true" />
        OSC <span class="muted">{s.enabled ? `listening on UDP ${s.port ?? ''}` : 'off'}</span>
      </h2>
      {s.enabled ? (
        <Counters
          counters={{
            packets: s.packets ?? 0,
            messages: s.messages ?? 0,
            accepted: s.accepted ?? 0,
            refused: s.refused ?? 0,
            malformed: s.malformed ?? 0,
            unknown_address: s.unknown_address ?? 0,
            bad_args: s.bad_args ?? 0,
            rate_limited: s.rate_limited ?? 0,
            feedback_sent: s.feedback_sent ?? 0,
          }}
          bad={BAD}
        />
      ) : null}
      <p class="muted ig-note">
        Stream Deck (Companion) and TouchOSC send OSC over UDP.{' '}
        {s.enabled ? 'The port is' : 'Turn it on with'} <code>--osc-port 9000</code>; feedback targets with{' '}
        <code>--osc-feedback host:port</code>. Start options: restart the host to change them.
      </p>
    </section>
  );
}
