/** Acknowledged alerts (browser storage, like the battery thresholds: the host has no settings route). */
import { signal } from '@preact/signals';

const KEY = 'lightnet.alertAcks';

function load(): string[] {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? '[]') as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

export const acks = signal<string[]>(load());

export function setAcks(next: string[]): void {
  if (next.length === acks.value.length && next.every((k, i) => k === acks.value[i])) return;
  acks.value = next;
  localStorage.setItem(KEY, JSON.stringify(next));
}
