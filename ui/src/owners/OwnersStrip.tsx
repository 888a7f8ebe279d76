/**
 * The owners strip under the status bar: each target a source holds (a race look, a live desk,
 * the operator's take-over), by whom, at which priority, since when or how long a live hold has
 * left — with Take over (the operator holds it above the race and live sources) or Hand back.
 * Nothing held: no strip. It wraps on a phone; Blackout stays in the status bar above it.
 */
import { useEffect, useState } from 'preact/hooks';
import { toast, toastError } from '../toasts.ts';
import { handBack, isOperator, owners, ownersAt, takeOver, type Holder } from './owners-store.ts';
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

function HolderChip({ h }: { h: Holder }) {
  const [busy, setBusy] = useState(false);
  const mine = isOperator(h);
  const left =
    h.timeout_left_ms === null ? null : Math.max(0, h.timeout_left_ms - (Date.now() - ownersAt.value));
  const act = async () => {
    setBusy(true);
    try {
      if (mine) {
        await handBack(h.target);
        toast(`${h.target_label} handed back`);
      } else {
        await takeOver(h.target);
        toast(`${h.target_label}: you hold it now (${owners.value?.take_over_priority ?? 85})`);
      }
    } catch (err) {
      toastError(mine ? 'Hand back failed' : 'Take over failed', err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <li class={`owner ${mine ? 'mine' : ''}`} data-testid="owner" data-source={h.source}>
      <span class="owner-text">
        <span class="owner-target">{h.target_label}</span>{' '}
        <span class="owner-who" title={`${h.source_label}, priority ${h.priority}: ${h.action}`}>
          {mine ? 'you' : h.source_label} <span class="muted">({h.priority})</span>
        </span>{' '}
        <span class="owner-when muted">
          {left !== null ? `${(left / 1000).toFixed(1)} s left` : `since ${clock(h.since_epoch_ms)}`}
        </span>
      </span>
      <button type="button" class={mine ? '' : 'primary'} disabled={busy} onClick={() => void act()}>
        {mine ? 'Hand back' : 'Take over'}
      </button>
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
