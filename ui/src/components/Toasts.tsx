import { dismiss, toasts } from '../toasts.ts';
import { useEffect } from 'preact/hooks';
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
  return (
    <div class="toasts" data-testid="toasts">
      {toasts.value.map((t) => (
        <ToastItem key={t.id} t={t} />
      ))}
    </div>
  );
}
