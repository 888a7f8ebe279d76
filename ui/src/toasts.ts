/** Toast messages: green info (3 s), red errors (6 s); each closable, held while its × is hovered. */
import { signal } from '@preact/signals';
import { ApiError } from './api.ts';

export interface Toast {
  id: number;
  kind: 'ok' | 'error';
  text: string;
}

export const toasts = signal<Toast[]>([]);
let nextId = 1;

export function dismiss(id: number): void {
  toasts.value = toasts.value.filter((t) => t.id !== id);
}

export function toast(text: string, kind: Toast['kind'] = 'ok'): number {
  const id = nextId++;
  toasts.value = [...toasts.value.slice(-5), { id, kind, text }];
  return id;
}

export function toastError(prefix: string, err: unknown): void {
  let text: string;
  if (err instanceof ApiError && err.busy) {
    const t = err.body?.task as { name?: string } | undefined;
    text = `${prefix}: busy — task "${t?.name ?? '?'}" is running`;
  } else if (err instanceof Error) text = `${prefix}: ${err.message}`;
  else text = `${prefix}: ${String(err)}`;
  toast(text, 'error');
}

/**
 * For the reloads the live stream drives: one that failed because the host cannot be reached,
 * or because it is a restarted host still loading its state (503 "booting"), says nothing —
 * the connection banner already does, and the reload on reconnect (which waits for the host
 * to be ready) brings every list back; any other failure is shown as usual.
 */
export function toastReloadError(prefix: string, err: unknown): void {
  if (err instanceof ApiError && (err.status === 0 || err.status === 503)) return;
  toastError(prefix, err);
}
