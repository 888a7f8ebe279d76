/** Human words for tasks: names, progress lines, end-of-task toasts. */
import { devices } from './store.ts';
import type { Task } from './types.ts';
import { RF_TASKS, rfTaskEnd, rfTaskMessage } from './networks/rf-task-words.ts';

/** Option labels by key ("led_briS" → "Default Brightness (briS)"), filled from the options schema. */
export const optionLabels = new Map<string, string>();

/** A device's name for a message (the address when the host does not know it). */
const deviceName = (addr: string): string => devices.value.find((d) => d.addr === addr)?.name ?? addr;

export const TASK_LABEL: Record<string, string> = {
  discover: 'Discovery',
  status: 'Status poll',
  bulk_set_group: 'Move to group',
  force_groups: 'Re-sync groups',
  special_config: 'Option write',
  presets_download: 'Preset download',
  fwupdate: 'Firmware update',
  restore_groups: 'Restore groups',
  link_test: 'Link test',
  rf_migration: 'Channel move',
  channel_scan: 'Channel scan',
  rf_rescue: 'Bring home',
};

export const taskLabel = (name: string): string => TASK_LABEL[name] ?? name;

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * "3/12" when the task reports an index and a total. A status poll reports devices
 * answered of those polled; a discovery reports nodes bound of those found plus the ones
 * its stop rule still expects, so the bar means something on a fleet of 300.
 */
export function taskProgress(t: Task): { index: number; total: number } | null {
  const m = t.meta;
  let index = num(m.index);
  let total = num(m.total);
  if (index === null && t.name === 'status') index = num(m.answered);
  if (index === null && t.name === 'discover' && num(m.found) !== null) {
    index = num(m.bound) ?? 0;
    total = (num(m.found) ?? 0) + Math.round(num(m.expected_remaining) ?? 0);
  }
  return index !== null && total !== null && total > 0 ? { index: Math.min(index, total), total } : null;
}

export function taskMessage(t: Task): string {
  const m = t.meta.message;
  if (typeof m === 'string' && m) return m;
  const stage = t.meta.stage;
  if (typeof stage !== 'string') return '';
  return RF_TASKS.has(t.name) ? rfTaskMessage(t, taskLabel(t.name)) : stage;
}

export function describeTaskEnd(t: Task): { text: string; ok: boolean } {
  const label = taskLabel(t.name);
  if (t.state === 'error') {
    return {
      text:
        t.last_error === 'cancelled'
          ? `${label} cancelled`
          : `${label} failed: ${t.last_error ?? 'unknown error'}`,
      ok: false,
    };
  }
  const r = (t.result ?? {}) as Record<string, unknown>;
  switch (t.name) {
    case 'discover': {
      const found = num(r.found) ?? 0;
      const failed = num(r.assign_failed);
      const tail = failed ? `, ${failed} not confirmed (offline, group pending)` : '';
      return { text: `Discovered ${found} device${found === 1 ? '' : 's'}${tail}`, ok: true };
    }
    case 'status': {
      const off = num(r.offline);
      return { text: `Status: ${num(r.updated) ?? 0} answered${off ? `, ${off} offline` : ''}`, ok: true };
    }
    case 'bulk_set_group':
    case 'force_groups': {
      const parts = [`${num(r.changed) ?? 0} changed`];
      if (num(r.skipped_offline)) parts.push(`${r.skipped_offline} offline (pending)`);
      if (num(r.timed_out)) parts.push(`${r.timed_out} timed out`);
      const ok = !num(r.timed_out);
      return { text: `${label}: ${parts.join(', ')}`, ok };
    }
    case 'restore_groups': {
      const failed = Array.isArray(r.failed) ? r.failed.length : 0;
      return {
        text: `Restore groups: ${num(r.restored) ?? 0} of ${num(r.total) ?? 0} back${failed ? `, ${failed} offline` : ''}`,
        ok: failed === 0,
      };
    }
    case 'special_config': {
      const v = r.value;
      const key = String(r.key ?? t.meta.key ?? 'option');
      const shown =
        v && typeof v === 'object' ? `${(v as { start: number }).start}..${(v as { stop: number }).stop}` : v;
      return {
        text: `Saved ${optionLabels.get(key) ?? key}${shown !== undefined ? ` = ${String(shown)}` : ''} on '${deviceName(String(r.mac ?? t.meta.mac ?? ''))}'`,
        ok: true,
      };
    }
    case 'presets_download': {
      const file = (r.file ?? {}) as { name?: string };
      return {
        text: `Downloaded presets.json from ${String(r.addr ?? t.meta.addr ?? 'the node')} as '${file.name ?? '?'}'`,
        ok: true,
      };
    }
    case 'rf_migration':
    case 'channel_scan':
    case 'rf_rescue':
      return rfTaskEnd(t.name, r);
    default:
      return { text: `${label} done`, ok: true };
  }
}

/**
 * The gateway's or host's last event in words: "TASK_STATUS_ERROR" after a cancel the
 * operator asked for reads "Status poll cancelled"; other names lower-case, no underscores.
 */
export function eventText(name: string, error: string | null): string {
  const m = /^TASK_(.+)_(START|DONE|ERROR)$/.exec(name);
  if (m) {
    const label = taskLabel(m[1]!.toLowerCase());
    if (m[2] === 'START') return `${label} started`;
    if (m[2] === 'DONE') return `${label} done`;
    return error === 'cancelled' ? `${label} cancelled` : `${label} failed`;
  }
  return name.toLowerCase().replace(/_/g, ' ');
}
