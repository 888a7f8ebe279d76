/**
 * Which device-table columns this browser shows. A view preference (a phone and the
 * track laptop want different columns), so kept per browser: only the columns the
 * operator switched on or off are stored; the rest follow the window width.
 */
import { signal } from '@preact/signals';

const KEY = 'lightnet.columns';

function load(): Record<string, boolean> {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? '{}') as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
    return Object.fromEntries(Object.entries(v).filter(([, on]) => typeof on === 'boolean')) as Record<
      string,
      boolean
    >;
  } catch {
    return {};
  }
}

export const columnChoice = signal<Record<string, boolean>>(load());

function save(next: Record<string, boolean>): void {
  columnChoice.value = next;
  try {
    localStorage.setItem(KEY, JSON.stringify(next));
  } catch {
    // Private mode or a full quota: the choice holds for this page only.
  }
}

export function setColumn(key: string, on: boolean): void {
  save({ ...columnChoice.value, [key]: on });
}

export function resetColumns(): void {
  save({});
}
