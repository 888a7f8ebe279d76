/**
 * The owners strip under the status bar: each target a source holds (a race look, a live desk,
 * the operator's take-over), by whom, at which priority, since when or how long a live hold has
 * left — with Take over (the operator holds it above the race and live sources) where that can
 * work, Hand back for the operator's own, Clear flag for a red flag's. Targets are named as on
 * the Devices page (the group's name, the device's name).
 * Nothing held: no strip. It wraps on a phone; Blackout stays in the status bar above it.
 */
import { useEffect, useState } from 'preact/hooks';
import { toast, toastError } from '../toasts.ts';
import { devices, groupsById } from '../store.ts';
import {
  canTakeOver,
  clearFlag,
  flagOf,
  handBack,
  isOperator,
  owners,
  ownersAt,
  takeOver,
  type Holder,
  type OwnerTarget,
} from './owners-store.ts';
import './owners.css';

const clock = (ms: number): string =>
  new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

function useTick(active: boolean): void {
  const [, set] = useState(0);
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => set((n) => n + 1), 500);
    return () => clearInterval(t);
  }, [active]);
}

/** The target by the names the Devices page uses (the host only knows group numbers and addresses). */
function targetName(t: OwnerTarget, fallback: string): string {
  if (t.kind === 'all') return 'All lights';
  if (t.kind === 'group') {
    if (t.id === 0) return 'Unconfigured';
    return groupsById.value.get(t.id)?.name ?? fallback;
  }
  const d = devices.value.find((x) => x.addr === t.addr);
  return d?.name ? d.name : fallback;
}

type Act = { label: string; run: () => Promise<string>; failed: string; primary: boolean };

function HolderChip({ h }: { h: Holder }) {
  const [busy, setBusy] = useState(false);
  const mine = isOperator(h);
  const flag = flagOf(h);
  const takeOverPriority = owners.value?.take_over_priority ?? 85;
  const name = targetName(h.target, h.target_label);
  const left =
    h.timeout_left_ms === null ? null : Math.max(0, h.timeout_left_ms - (Date.now() - ownersAt.value));
  // One action per hold, and only one that can work: the operator's own hold is handed back,
  // a flag's is cleared, a lower hold taken over; a hold above the take-over gets none.
  const act: Act | null = mine
    ? {
        label: 'Hand back',
        run: async () => (await handBack(h.target), `${name} handed back`),
        failed: 'Hand back failed',
        primary: false,
      }
    : flag !== null
      ? {
          label: 'Clear flag',
          run: async () => (await clearFlag(), `${flag} flag cleared`),
          failed: 'Clear flag failed',
          primary: true,
        }
      : canTakeOver(h, takeOverPriority)
        ? {
            label: 'Take over',
            run: async () => (await takeOver(h.target), `${name}: you hold it now (${takeOverPriority})`),
            failed: 'Take over failed',
            primary: true,
          }
        : null;
  const press = async (a: Act) => {
    setBusy(true);
    try {
      toast(await a.run());
    } catch (err) {
      toastError(a.failed, err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <li
      class={`owner ${mine ? 'mine' : ''} ${flag ? `flag flag-${flag}` : ''}`}
      data-testid="owner"
      data-source={h.source}
    >
      <span class="owner-text">
        <span class="owner-target" title={h.target_label}>
          {name}
        </span>{' '}
        <span class="owner-who" title={`${h.source_label}, priority ${h.priority}: ${h.action}`}>
          {mine ? 'you' : flag ? <strong class="owner-flag">{flag} flag</strong> : h.source_label}{' '}
          <span class="muted">({h.priority})</span>
        </span>{' '}
        <span class="owner-when muted">
          {left !== null ? `${(left / 1000).toFixed(1)} s left` : `since ${clock(h.since_epoch_ms)}`}
        </span>
      </span>
      {act ? (
        <button
          type="button"
          class={act.primary ? 'primary' : ''}
          disabled={busy}
          onClick={() => void press(act)}
        >
          {act.label}
        </button>
      ) : (
        <span
          class="owner-above muted"
          title={`Priority ${h.priority} is above the take-over priority (${takeOverPriority})`}
        >
          above take-over
        </span>
      )}
    </li>
  );
}

export function OwnersStrip() {
  const held = owners.value?.owners ?? [];
  useTick(held.some((h) => h.timeout_left_ms !== null));
  if (held.length === 0) return null;
  return (
    <section class="owners-strip" aria-label="Who holds the lights" data-testid="owners-strip">
      <span class="owners-title">Held</span>
      <ul>
        {held.map((h) => (
          <HolderChip key={`${h.source}|${h.target_label}`} h={h} />
        ))}
      </ul>
    </section>
  );
}
