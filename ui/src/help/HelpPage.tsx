/** Help: what the words, marks, colours and keys of the console mean. */
import { FirstSteps } from '../common/FirstSteps.tsx';
import { shortcutList } from '../keys.ts';
import './help.css';

const GATEWAY_STATES: [string, string][] = [
  ['IDLE', 'The gateway is ready; nothing is on the air.'],
  ['TX', 'The gateway is transmitting a frame.'],
  ['RX / RX_WINDOW', 'The gateway listens for replies after a request.'],
  ['ERROR', 'The gateway reported an error; see the tooltip and the last event.'],
  [
    'GATEWAY DOWN',
    'The USB link to the gateway is lost; the host retries by itself (Retry connection forces it).',
  ],
  [
    'HOST UNREACHABLE',
    'This browser lost the host (restart, network): nothing shown is live until it reconnects.',
  ],
  ['SIMULATED GATEWAY', 'No hardware: the host runs its built-in simulator. Nothing reaches real nodes.'],
  [
    'Track A · IDLE (several gateways)',
    'One pill per network, named after it: green ready, blue transmitting, red DOWN (its gateway lost its link) or MISSING (not attached), amber NOT READY, NO GATEWAY or CONFLICT. The tooltip gives the gateway’s MAC, port and channel; a click opens the Networks dialog (also in ⚙ Settings).',
  ],
  [
    'UNASSIGNED · 21:30',
    'A connected gateway that belongs to no network (the end of its MAC): it carries no traffic and says nothing about the networks beside it. A click opens its Assign form (a new network, or the replacement of a missing gateway).',
  ],
];

const FLAGS: [string, string][] = [
  ['ON / OFF', 'Power: on when the brightness is above 0.'],
  ['ARM', 'Arm on sync: the effect waits on the node for the next SYNC (a race start).'],
  ['BRI', 'The frame carried a brightness.'],
  ['TT0', 'Instant transition (no fade).'],
  ['REAPPLY', 'Restart the effect even if it did not change.'],
  ['OFFSET', 'Offset mode: the node applies effects with its group’s delay (waves). Sticky until cleared.'],
];

const MARKS: [string, string][] = [
  [
    '● / Rejoining / Offline',
    'The Seen column: a green dot is online (heard in the last poll), with the time it was last heard; Rejoining — it rebooted and the host is putting it back into its group; Offline — silent in the last poll (the tooltip says why).',
  ],
  [
    'pending',
    'The node has not acknowledged its new group yet; the host sends it again when it is next heard.',
  ],
  [
    'Node ↓ / Host ↑',
    'RSSI dBm / SNR dB of each direction: how well the node heard the gateway, and the gateway the node.',
  ],
  [
    'VBat',
    'Battery voltage. The pack size (1S, 2S, 3S, 4S, 6S) is judged from it; the warning is per cell (⚙ Settings). Offline devices show their last reading in grey and are not alerted.',
  ],
  [
    'Fx / Bg / Cs',
    'The three colour slots of an effect (WLED’s names): Fx the effect’s main colour, Bg the background colour, Cs the third colour some effects use.',
  ],
  [
    '* (effect list)',
    'The effect renders identically on every node from the shared clock, so gates stay in step; these are listed first.',
  ],
  ['⚠ differs', 'The value read from the node is not the one the host stored: Push host or Import device.'],
  [
    'Failed',
    'Failed exchanges: polls the device did not answer and lost link-test probes since the host started. Off by default: Columns ▾ on the Devices page turns it on.',
  ],
  [
    'Config',
    'What the node reported of its own configuration: MAC filter (it obeys only its master), MAC filter persist, AP open (its WiFi access point is open: an alert). Columns ▾ turns it on.',
  ],
  [
    'Network',
    'With several gateways: the network (gateway) a device belongs to — a column (Columns ▾), a filter beside the search, and chips on each group in the sidebar with how many of its members are on each network.',
  ],
  [
    'Forget…',
    'Removes the ticked devices from the list and their groups (a sold, broken or lent node, a simulated left-over), after a confirmation naming them and the scenes that target them. Those scene actions are skipped until the device is back. The node itself is not told: still powered, it keeps its group until it restarts and comes back as a new device when it announces itself or a discovery of all groups finds it. Hidden in race mode.',
  ],
  [
    'Columns ▾ / Export CSV',
    'The device table is the fleet health view: choose its columns (kept in this browser; Fit to window forgets the choice) and download the devices shown, with every health field, as CSV.',
  ],
];

const TASKS: [string, string][] = [
  [
    'running',
    'One task at a time (discovery, status poll, group moves, option writes, firmware). Scenes and Blackout still go first on the radio.',
  ],
  ['done', 'Finished; the toast says what it found or changed.'],
  ['cancelled', 'Stopped because you asked (Cancel, Blackout); not an error.'],
  ['failed', 'Stopped by an error; the message says which step.'],
];

const NETWORK_ACTIONS: [string, string][] = [
  [
    'New network…',
    'A name and a channel from the firmware’s table (region, channel 1–5); channels another network uses are greyed and name it. The network starts without a gateway.',
  ],
  [
    'Rename / Delete',
    'On each network’s card. Only an empty network (no devices, no gateway) can be deleted: the card says why otherwise — forget its devices on the Devices page (Forget…), or let another network’s gateway discover them.',
  ],
  [
    'Assign…',
    'A gateway in no network carries no traffic until assigned: as a new network (it keeps its channel) or as the replacement of a network whose gateway is missing — that network’s pinned nodes are listed first, with Unpin.',
  ],
  [
    'CONFLICT',
    'The network’s gateway is tuned differently from its nodes. The card shows the differing settings and three ways out: Retune the gateway (nodes stay), Move the nodes… (to the gateway’s channel), Adopt the gateway’s settings… (strands the nodes until scanned and brought home).',
  ],
  [
    'Move to another channel…',
    'Task “Channel move”: every online node is told its new channel, then the gateway moves and every node is put back into its group. The preview counts online, offline and pinned devices; offline ones stay behind unless you refuse to start. Progress and Cancel in the dialog and the status bar.',
  ],
  [
    'Scan channels… / Bring home',
    'Task “Channel scan”: the gateway visits the other channels and lists who it hears, known (with their network) or unknown; nodes bound to another network’s gateway cannot hear it. A known node heard off its network’s channel gets Bring home: back in its network and group.',
  ],
  [
    'Pinned nodes',
    'Nodes with master persistence on ignore any other gateway: unpin them before swapping a gateway, while the old one still reaches them.',
  ],
];

function Table({ rows, testId }: { rows: [string, string][]; testId?: string }) {
  return (
    <table class="plain help-table" data-testid={testId}>
      <tbody>
        {rows.map(([k, v]) => (
          <tr key={k}>
            <th scope="row">{k}</th>
            <td>{v}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function HelpPage() {
  const keys = shortcutList();
  return (
    <main class="help-page" id="main" data-testid="help-page">
      <h1>Help</h1>
      <section>
        <FirstSteps />
      </section>
      <section>
        <h2>Gateway and host states (status bar)</h2>
        <Table rows={GATEWAY_STATES} />
      </section>
      <section>
        <h2>Device table</h2>
        <Table rows={MARKS} testId="help-marks" />
        <h3>Flags</h3>
        <Table rows={FLAGS} />
      </section>
      <section>
        <h2>Tasks</h2>
        <Table rows={TASKS} />
        <p class="muted">
          Long tasks show what they found of how many they expect, the phase and an estimate of the time left.
        </p>
      </section>
      <section>
        <h2>Networks dialog (⚙ Settings → Networks…, or a network pill)</h2>
        <Table rows={NETWORK_ACTIONS} testId="help-networks" />
      </section>
      <section>
        <h2>Race day</h2>
        <p>
          <strong>Blackout</strong> (status bar, race panel, key <kbd>b</kbd>) sends every node off at once:
          it stops the running scene and task first. <strong>⚑ Red</strong> (status bar, one press; the race
          panel has red, yellow, green and Clear as big buttons) stops the race: the whole field red, race
          looks held until <strong>Clear</strong> — the status bar turns red while it is up, whoever raised it
          (RotorHazard, OSC, another browser). Green and yellow are behind <strong>⚑ ▾</strong> in the status
          bar. <strong>Race mode</strong> (race panel) hides reboot, forget master, firmware, reload and node
          resets so they cannot be hit by mistake — in every browser at once. Pinned scenes run with keys{' '}
          <kbd>1</kbd>–<kbd>9</kbd> on the race panel. Race mode, the pins, the battery warning (⚙) and
          acknowledged alerts are kept on the host and shared by every browser.
        </p>
      </section>
      <section>
        <h2>Keyboard</h2>
        <ul class="keys">
          {keys.map((k) => (
            <li key={k.key}>
              <kbd>{k.key}</kbd> {k.label}
            </li>
          ))}
          <li>
            <kbd>Esc</kbd> close a dialog; stop the running scene on the Scenes page
          </li>
          <li>
            <kbd>Shift</kbd>+click select a range of rows
          </li>
          <li>
            <kbd>Ctrl</kbd>+<kbd>S</kbd> save the scene, <kbd>Ctrl</kbd>+<kbd>Enter</kbd> run it
          </li>
          <li>
            <kbd>1</kbd>–<kbd>9</kbd> run a pinned scene (race panel)
          </li>
        </ul>
      </section>
    </main>
  );
}
