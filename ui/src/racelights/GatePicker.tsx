/**
 * One gate: a kind (none, a group, one device, every device) and, for a group or a device,
 * a choice among the known ones by name — as the rest of the UI picks groups (`Start Gate
 * #1`), so no one has to know which number "Start Gate" is. A gate that names a group or
 * device the host no longer has stays chosen (marked unknown) until changed: the host refuses
 * it on Save, and its refusal shows under the field.
 */
import { devices, groups } from '../store.ts';
import type { GateDraft } from './draft.ts';

export function GatePicker({
  id,
  label,
  value,
  noneLabel,
  error,
  onChange,
}: {
  id: string;
  label: string;
  value: GateDraft;
  noneLabel: string;
  error: string | null;
  onChange: (g: GateDraft) => void;
}) {
  const errId = `${id}-error`;
  const isGroup = value.kind === 'group';
  // Group 0 is where new devices land, not a gate anyone sets up (as the old list offered).
  const choices = isGroup
    ? groups.value.filter((g) => g.id !== 0).map((g) => ({ value: String(g.id), text: `${g.name} #${g.id}` }))
    : devices.value.map((d) => ({
        value: d.addr,
        text: d.name && d.name !== d.addr ? `${d.name} · ${d.addr}` : d.addr,
      }));
  const known = value.value === '' || choices.some((c) => c.value === value.value);
  return (
    <div class="rl-gate">
      <div class="rl-gate-inputs">
        <select
          id={id}
          aria-label={`${label}: kind`}
          value={value.kind}
          onChange={(e) => onChange({ kind: e.currentTarget.value as GateDraft['kind'], value: '' })}
        >
          <option value="">{noneLabel}</option>
          <option value="group">Group</option>
          <option value="device">Device</option>
          <option value="broadcast">Every device</option>
        </select>
        {(isGroup || value.kind === 'device') && (
          <select
            aria-label={`${label}: ${isGroup ? 'group' : 'device'}`}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? errId : undefined}
            value={value.value}
            onChange={(e) => onChange({ ...value, value: e.currentTarget.value })}
          >
            <option value="">
              {choices.length === 0
                ? isGroup
                  ? 'No groups yet (Devices page)'
                  : 'No devices yet'
                : isGroup
                  ? 'Choose a group…'
                  : 'Choose a device…'}
            </option>
            {!known && (
              <option value={value.value}>{isGroup ? `#${value.value}` : value.value} (unknown)</option>
            )}
            {choices.map((c) => (
              <option key={c.value} value={c.value}>
                {c.text}
              </option>
            ))}
          </select>
        )}
      </div>
      {error && (
        <span class="field-error" id={errId} role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
