/**
 * The Networks dialog: every network with its state, gateway (MAC, port), channel and
 * device counts, the gateways that belong to no network, and what each state means — and
 * the actions: new network, rename, delete, assign a gateway, resolve a conflict, move to
 * another channel, scan channels and bring stranded nodes home (sub-dialogs and inline
 * panels in this folder). Live: the list follows the stream (networks-store.ts), and it
 * reloads on opening.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { Modal } from '../dialogs/Modal.tsx';
import { gateway, link, master } from '../store.ts';
import { toastError } from '../toasts.ts';
import { channelText, gatewayMacText, networkHue, networkStatus } from './network-view.ts';
import { assignFocus, loadNetworks, networks, unassignedGateways } from './networks-store.ts';
import type { NetworkInfo, UnassignedGatewayInfo } from './network-types.ts';
import { AssignGateway } from './AssignGateway.tsx';
import { ChannelScanDialog } from './ChannelScanDialog.tsx';
import { ConflictPanel } from './ConflictPanel.tsx';
import { MoveNetworkDialog } from './MoveNetworkDialog.tsx';
import { NetworkActions, type SubDialog } from './NetworkActions.tsx';
import { NewNetworkDialog } from './NewNetworkDialog.tsx';
import { errorText, rescanGateways } from './network-api.ts';
import './networks.css';

function NetworkCard({ n, open }: { n: NetworkInfo; open: (s: SubDialog) => void }) {
  const live = {
    gateway: gateway.value?.gateways?.find((g) => g.network_id === n.id) ?? null,
    master: master.value?.networks?.find((m) => m.network_id === n.id) ?? null,
  };
  const s = networkStatus(n, live, link.value === 'lost');
  const gw = live.gateway ?? n.gateway;
  return (
    <section class={`net-card ${s.tone}`} data-testid={`network-card-${n.id}`} aria-label={n.name}>
      <header>
        <span class="net-dot" style={{ '--net-hue': String(networkHue(n.id)) }} aria-hidden="true" />
        <strong class="net-title">{n.name}</strong>
        <span class={`pill tiny ${s.tone}`} data-testid="network-state">
          {s.word}
        </span>
      </header>
      <dl>
        <dt>State</dt>
        <dd>{s.text}</dd>
        <dt>Gateway</dt>
        <dd class="mono" data-testid="network-gateway">
          {n.gateway_mac ? gatewayMacText(n.gateway_mac) : 'none assigned'}
          {gw?.port ? ` · ${gw.port}` : ''}
        </dd>
        <dt>Channel</dt>
        <dd data-testid="network-channel">
          {channelText(n.rf)}
          {n.migration && ` (moving to ${channelText(n.migration.to)})`}
        </dd>
        <dt>Devices</dt>
        <dd data-testid="network-counts">
          {n.device_count} device{n.device_count === 1 ? '' : 's'}, {n.online_count} online
        </dd>
      </dl>
      {n.conflict && (
        <ConflictPanel n={n} onMoveNodes={(to) => open({ kind: 'move', id: n.id, target: to })} />
      )}
      <NetworkActions n={n} open={open} />
    </section>
  );
}

function UnassignedCard({ g }: { g: UnassignedGatewayInfo }) {
  // Opened from its pill or banner (Assign…): its form is open and in view at once.
  const focused = g.gateway_mac !== null && assignFocus.peek() === g.gateway_mac;
  const [assigning, setAssigning] = useState(focused && g.ready);
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    if (!focused) return;
    assignFocus.value = null;
    // Down to its Assign button: the whole form in view, on a phone too. After the frame:
    // the Modal (a parent, its effects run after this one) shows the dialog and focuses its
    // first field first, and a closed dialog cannot scroll.
    const id = requestAnimationFrame(() =>
      ref.current?.querySelector('button[type="submit"]')?.scrollIntoView({ block: 'nearest' }),
    );
    return () => cancelAnimationFrame(id);
  }, []);
  return (
    <section
      ref={ref}
      class="net-card warn"
      data-testid="unassigned-gateway"
      aria-label={`Gateway ${g.label}`}
    >
      <header>
        <strong class="net-title mono">
          {g.gateway_mac ? gatewayMacText(g.gateway_mac) : 'Gateway (not identified)'}
        </strong>
        <span class={`pill tiny ${g.ready ? 'warn' : 'bad'}`}>{g.ready ? 'NO NETWORK' : 'NOT READY'}</span>
      </header>
      <dl>
        <dt>Port</dt>
        <dd class="mono">{g.label}</dd>
        <dt>Channel</dt>
        <dd>{channelText(g.rf)}</dd>
        {typeof g.unknown_heard === 'number' && (
          <>
            <dt>Heard</dt>
            <dd>{g.unknown_heard} node(s) announcing through it</dd>
          </>
        )}
      </dl>
      {assigning ? (
        <AssignGateway g={g} onDone={() => setAssigning(false)} />
      ) : (
        <div class="net-buttons">
          <button type="button" class="small primary" disabled={!g.ready} onClick={() => setAssigning(true)}>
            Assign…
          </button>
        </div>
      )}
    </section>
  );
}

export function NetworksDialog({ onClose }: { onClose: () => void }) {
  useEffect(() => {
    void loadNetworks().catch((err) => toastError('Loading networks failed', err));
    // An Assign… whose gateway was gone by the time the list came: not for the next opening.
    return () => {
      assignFocus.value = null;
    };
  }, []);
  const list = networks.value;
  const free = unassignedGateways.value;
  const [sub, setSub] = useState<SubDialog | null>(null);
  const [rescan, setRescan] = useState<string | null>(null);
  const closeSub = (): void => setSub(null);
  const lookForGateways = async (): Promise<void> => {
    setRescan('Looking for gateways…');
    try {
      const r = await rescanGateways();
      setRescan(
        r.attached.length > 0
          ? `Found ${r.attached.map((a) => `${gatewayMacText(a.mac)} on ${a.port}`).join(', ')}`
          : `No new gateway found (${r.tried.length} port(s) tried)`,
      );
    } catch (err) {
      setRescan(errorText(err));
    }
  };
  return (
    <>
      <Modal title="Networks" onClose={onClose} testId="networks-dialog">
        <p class="muted">
          A network is one gateway, the radio channel its nodes are tuned to and the devices it hears. Several
          networks on separate channels work in parallel; every device belongs to the network of the gateway
          that hears it.
        </p>
        <div class="net-cards" data-testid="network-cards">
          {list.map((n) => (
            <NetworkCard key={n.id} n={n} open={setSub} />
          ))}
          {list.length === 0 && <p class="muted">Loading networks…</p>}
        </div>
        <div class="net-buttons">
          <button type="button" onClick={() => setSub({ kind: 'create' })}>
            New network…
          </button>
          <button type="button" onClick={() => void lookForGateways()}>
            Look for new gateways
          </button>
          {rescan && (
            <span class="muted" role="status" data-testid="rescan-result">
              {rescan}
            </span>
          )}
        </div>
        {free.length > 0 && (
          <>
            <h3>Gateways in no network</h3>
            <p class="muted">
              Connected, but no network names them: they carry no traffic until one is assigned to a network.
            </p>
            <div class="net-cards">
              {free.map((g) => (
                <UnassignedCard key={g.label} g={g} />
              ))}
            </div>
          </>
        )}
        <details class="disclosure">
          <summary>What the states mean</summary>
          <dl class="net-legend">
            <dt>
              <span class="pill tiny good">IDLE</span> <span class="pill tiny tx">TX</span>
            </dt>
            <dd>Ready: the gateway is connected; blue while it transmits.</dd>
            <dt>
              <span class="pill tiny warn">NOT READY</span>
            </dt>
            <dd>The gateway is attached and still connecting.</dd>
            <dt>
              <span class="pill tiny bad">DOWN</span>
            </dt>
            <dd>
              The gateway lost its link (unplugged, USB error): the host retries by itself, the other networks
              go on, and requests for this network's devices fail at once naming it.
            </dd>
            <dt>
              <span class="pill tiny bad">MISSING</span>
            </dt>
            <dd>The network's gateway is not attached to this host at all: its devices are unreachable.</dd>
            <dt>
              <span class="pill tiny warn">NO GATEWAY</span>
            </dt>
            <dd>No gateway is assigned to the network yet.</dd>
            <dt>
              <span class="pill tiny warn">NO NETWORK</span>
            </dt>
            <dd>
              A connected gateway no network names: it carries no traffic until you assign it (Assign…).
            </dd>
            <dt>
              <span class="pill tiny warn">CONFLICT</span>
            </dt>
            <dd>
              The network's gateway is tuned differently from its nodes: it carries no traffic until you pick
              one of the three resolutions shown on the card.
            </dd>
          </dl>
        </details>
      </Modal>
      {sub?.kind === 'create' && <NewNetworkDialog onClose={closeSub} />}
      {sub?.kind === 'move' && (
        <MoveNetworkDialog networkId={sub.id} target={sub.target ?? undefined} onClose={closeSub} />
      )}
      {sub?.kind === 'scan' && <ChannelScanDialog networkId={sub.id} onClose={closeSub} />}
    </>
  );
}
