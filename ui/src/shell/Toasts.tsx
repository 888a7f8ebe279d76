import { dismiss, toasts } from '../toasts.ts';
import { useEffect, useLayoutEffect } from 'preact/hooks';
import { keepToastsPlaced } from './toast-place.ts';
import type { Toast } from '../toasts.ts';

function ToastItem({ t }: { t: Toast }) {
  useEffect(() => {
    let timer = setTimeout(() => dismiss(t.id), t.kind === 'error' ? 6000 : 3000);
    const el = document.getElementById(`toast-${t.id}`);
    const hold = () => clearTimeout(timer);
    const release = () => (timer = setTimeout(() => dismiss(t.id), 2000));
    el?.addEventListener('mouseenter', hold);
    el?.addEventListener('mouseleave', release);
    return () => clearTimeout(timer);
  }, [t.id, t.kind]);
  return (
    <div id={`toast-${t.id}`} class={`toast ${t.kind}`} role={t.kind === 'error' ? 'alert' : 'status'}>
      <span>{t.text}</span>
      <button type="button" class="ghost icon" aria-label="Dismiss" onClick={() => dismiss(t.id)}>
        ×
      </button>
    </div>
  );
}

export function Toasts() {
  const list = toasts.value;
  // A manual popover sits in the top layer: re-showing it after each toast keeps it
  // above any open modal dialog, so errors raised from a dialog stay readable. Then it is
  // placed (toast-place.ts) — once shown, so it has a size — and kept placed while it
  // shows: a dialog's footer, the editor's actions or the Blackout band can move after it.
  useLayoutEffect(() => {
    const el = document.getElementById('toasts') as
      (HTMLElement & { showPopover?: () => void; hidePopover?: () => void }) | null;
    if (!el) return;
    if (el.showPopover) {
      if (el.matches(':popover-open')) el.hidePopover?.();
      if (list.length) el.showPopover();
    }
    if (!list.length) return;
    return keepToastsPlaced(el);
  }, [list]);
  return (
    <div id="toasts" popover="manual" class="toasts" data-testid="toasts">
      {list.map((t) => (
        <ToastItem key={t.id} t={t} />
      ))}
    </div>
  );
}
