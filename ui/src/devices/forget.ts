/**
 * Forget devices (`POST /api/devices/forget`): a confirmation that names what goes — the
 * devices, the scenes that target them by address — and what does not (the nodes keep
 * their group until they restart), then the request; the toast repeats what the host
 * reported (it also names race-light gates, which this page does not load).
 */
import { post } from '../api.ts';
import { confirmAction } from '../dialogs/confirm.tsx';
import { devices, scenes } from '../store.ts';
import { toast, toastError } from '../toasts.ts';
import type { SceneAction } from '../types.ts';

interface ForgetAnswer {
  forgotten: string[];
  scenes: { key: string; label: string }[];
  race_lights: string[];
}

const NAMED = 6;

const targets = (a: SceneAction, addrs: ReadonlySet<string>): boolean =>
  (a.target?.kind === 'device' && addrs.has(a.target.value)) ||
  (a.actions ?? []).some((c) => targets(c, addrs));

/** The scenes with an action (or an offset child) aimed at one of `addrs`, by label. */
export function scenesTargeting(addrs: ReadonlySet<string>): string[] {
  return scenes.value.filter((s) => s.actions.some((a) => targets(a, addrs))).map((s) => s.label);
}

const quoted = (list: readonly string[]): string => list.map((l) => `'${l}'`).join(', ');

/** The confirmation's text: which devices, which scenes, and what happens to the nodes. */
export function forgetText(addrs: readonly string[]): string {
  const n = addrs.length;
  const one = n === 1;
  const byAddr = new Map(devices.value.map((d) => [d.addr, d]));
  const names = addrs.slice(0, NAMED).map((a) => {
    const d = byAddr.get(a);
    return d && d.name !== a ? `${d.name} (${a})` : a;
  });
  const more = n > NAMED ? ` and ${n - NAMED} more` : '';
  const used = scenesTargeting(new Set(addrs));
  const it = one ? 'it' : 'them';
  const scenesPart = used.length
    ? ` ${used.length === 1 ? 'Scene' : 'Scenes'} ${quoted(used)} ${used.length === 1 ? 'targets' : 'target'} ${it} by address: ${used.length === 1 ? 'that action is' : 'those actions are'} skipped until ${one ? 'it comes' : 'they come'} back; the rest still runs.`
    : '';
  return (
    `Forget ${names.join(', ')}${more}? ${one ? 'It leaves' : 'They leave'} the device list and ${one ? 'its group' : 'their groups'} now; ${one ? 'its' : 'their'} name and options go too.` +
    scenesPart +
    ` A node that is still powered keeps its group until it restarts, and comes back as a new device when it announces itself or a discovery of all groups finds it.`
  );
}

/** Asks, then forgets; true when the host forgot them. */
export async function forgetDevices(addrs: readonly string[]): Promise<boolean> {
  if (!addrs.length) return false;
  const n = addrs.length;
  const ok = await confirmAction({
    title: `Forget ${n} device${n === 1 ? '' : 's'}`,
    body: forgetText(addrs),
    confirm: 'Forget',
    danger: true,
  });
  if (!ok) return false;
  try {
    const r = await post<ForgetAnswer>('devices/forget', { macs: addrs });
    const k = r.forgotten.length;
    const still = [
      ...(r.scenes.length
        ? [`scene${r.scenes.length === 1 ? '' : 's'} ${quoted(r.scenes.map((s) => s.label))}`]
        : []),
      ...(r.race_lights.length ? [`race lights ${r.race_lights.join(', ')}`] : []),
    ];
    toast(
      `Forgot ${k} device${k === 1 ? '' : 's'}${still.length ? ` (still named by ${still.join(' and ')})` : ''}`,
    );
    return true;
  } catch (err) {
    toastError('Forget failed', err);
    return false;
  }
}
