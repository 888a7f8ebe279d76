/**
 * Keeps the link summary (failed exchanges, worst values per device) fresh while a view
 * that shows it is open: loaded on mount and after a reconnect, and again at most every
 * few seconds while polls change devices.
 */
import { useEffect } from 'preact/hooks';
import { onReconnect, onRefresh } from '../live.ts';
import { toastError } from '../toasts.ts';
import { loadLinks } from './data.ts';

/** The link summary is reloaded at most this often while polls change devices. */
const LINKS_RELOAD_MS = 3000;

export function useLinks(active = true): void {
  useEffect(() => {
    if (!active) return;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const load = (): void => void loadLinks().catch((err) => toastError('Loading link summary failed', err));
    load();
    const later = (): void => {
      timer ??= setTimeout(() => {
        timer = null;
        load();
      }, LINKS_RELOAD_MS);
    };
    const offs = [onRefresh('devices', later), onReconnect(load)];
    return () => {
      offs.forEach((f) => f());
      if (timer) clearTimeout(timer);
    };
  }, [active]);
}
