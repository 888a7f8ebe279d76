/** Target of a scene action: broadcast, one or more groups, or one device. */
import { useState } from 'preact/hooks';
import { devices, groups } from '../store.ts';
import { GroupPicker } from './GroupPicker.tsx';
import type { Target } from '../types.ts';

export function TargetPicker({
  target,
  kinds,
  onChange,
  allowedGroups,
  name,
  needCap,
  maxGroups,
}: {
  target: Target | undefined;
  kinds: string[];
  onChange: (t: Target) => void;
  /** Inside an offset group: only the container's groups. */
  allowedGroups?: number[] | null;
  name: string;
  /** Capability the action needs (STARTBLOCK): groups without one are marked. */
  needCap?: string;
  /** Most groups the target may list (an offset group's container). */
  maxGroups?: number;
}) {
  const t = target ?? { kind: 'broadcast' };
  // Group 0 (Unconfigured) is offered only where a container already lists it.
  const choices = groups.value.filter((g) => (allowedGroups ? allowedGroups.includes(g.id) : g.id !== 0));
  const selected = t.kind === 'groups' ? t.value : [];
  const labels: Record<string, string> = { broadcast: 'Broadcast', groups: 'Groups', device: 'Device' };
  return (
    <div class="target">
      <div class="radios" role="radiogroup" aria-label="Target">
        {kinds.map((k) => (
          <label class="check" key={k}>
            <input
              type="radio"
              name={name}
              checked={t.kind === k}
              onChange={() =>
                onChange(
                  k === 'broadcast'
                    ? { kind: 'broadcast' }
                    : k === 'groups'
                      ? // Nothing preselected: the operator picks (the first group was a silent guess).
                        { kind: 'groups', value: [] }
                      : { kind: 'device', value: '' },
                )
              }
            />
            {labels[k] ?? k}
          </label>
        ))}
      </div>
      {t.kind === 'groups' && (
        <GroupPicker
          selected={selected}
          choices={choices}
          max={maxGroups}
          needCap={needCap}
          scope={allowedGroups ? 'in the container' : undefined}
          onChange={(ids) => onChange({ kind: 'groups', value: ids })}
        />
      )}
      {t.kind === 'device' && <DeviceSearch value={t.value} name={name} onChange={onChange} />}
    </div>
  );
}

/** One device by name or MAC: a search field with suggestions (a fleet is hundreds long). */
function DeviceSearch({
  value,
  name,
  onChange,
}: {
  value: string;
  name: string;
  onChange: (t: Target) => void;
}) {
  const list = devices.value;
  const current = list.find((d) => d.addr === value);
  const [text, setText] = useState(current ? `${current.name} (${current.addr})` : value);
  const listId = `${name}-devices`;
  const pick = (v: string) => {
    setText(v);
    const q = v.trim().toLowerCase();
    // "Name (ADDR)" from the suggestions, a bare address or MAC, or an exact name.
    const addr = /\(([0-9a-f]{6})\)\s*$/i.exec(v)?.[1]?.toUpperCase();
    const hit =
      list.find((d) => d.addr === addr) ??
      list.find(
        (d) => d.addr.toLowerCase() === q || (d.full_mac ?? '').toLowerCase() === q.replace(/[:-]/g, ''),
      ) ??
      list.find((d) => d.name.toLowerCase() === q);
    if (hit) onChange({ kind: 'device', value: hit.addr });
  };
  return (
    <span class="device-search">
      <input
        type="search"
        list={listId}
        aria-label="Device"
        placeholder="Type a name or MAC…"
        value={text}
        onInput={(e) => pick(e.currentTarget.value)}
      />
      <datalist id={listId}>
        {list.map((d) => (
          <option key={d.addr} value={`${d.name} (${d.addr})`} />
        ))}
      </datalist>
      {value && !current && <span class="lvl-bad small-text"> unknown device {value}</span>}
      {!value && <span class="muted small-text"> no device chosen</span>}
    </span>
  );
}
