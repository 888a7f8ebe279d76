/**
 * One gate: a kind (none, a group, one device, every device) and, for a group or a device,
 * its number or address — typed, with the known ones offered (the host checks that it
 * exists when the settings are saved; its refusal shows under the field).
 */
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
        {(value.kind === 'group' || value.kind === 'device') && (
          <input
            type="text"
            inputMode={value.kind === 'group' ? 'numeric' : 'text'}
            list={value.kind === 'group' ? 'rl-groups' : 'rl-devices'}
            aria-label={`${label}: ${value.kind === 'group' ? 'group number' : 'device address'}`}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? errId : undefined}
            placeholder={value.kind === 'group' ? 'group no.' : '6 hex'}
            size={value.kind === 'group' ? 5 : 8}
            value={value.value}
            onInput={(e) => onChange({ ...value, value: e.currentTarget.value })}
          />
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
