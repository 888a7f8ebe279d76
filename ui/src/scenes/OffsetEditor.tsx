/** Offset formula of an offset group, with the live per-group preview. */
import { changeOffsetMode, offsetPreview, type OffsetSpec } from './scene-model.ts';

export interface OffsetModeInfo {
  value: string;
  label: string;
  description: string;
}

export function OffsetEditor({
  spec,
  groupIds,
  modes,
  onChange,
}: {
  spec: OffsetSpec;
  groupIds: number[];
  modes: OffsetModeInfo[];
  onChange: (s: OffsetSpec) => void;
}) {
  const num = (key: string, label: string, min: number, max: number) => (
    <label class="small-field">
      {label}
      <input
        type="number"
        min={min}
        max={max}
        aria-label={label}
        value={(spec as Record<string, unknown>)[key] as number}
        onInput={(e) => onChange({ ...spec, [key]: Number(e.currentTarget.value) } as OffsetSpec)}
      />
    </label>
  );
  const preview = offsetPreview(spec, groupIds);
  return (
    <div class="offset">
      <div class="row">
        <label class="small-field">
          Offset formula
          <select
            aria-label="Offset formula"
            value={spec.mode}
            onChange={(e) =>
              onChange(changeOffsetMode(spec, e.currentTarget.value as OffsetSpec['mode'], groupIds))
            }
          >
            {modes.map((m) => (
              <option key={m.value} value={m.value}>
                {m.label} — {m.description}
              </option>
            ))}
          </select>
        </label>
        {'base_ms' in spec && num('base_ms', 'Base (ms)', -32768, 32767)}
        {'step_ms' in spec && num('step_ms', 'Step (ms)', -32768, 32767)}
        {spec.mode === 'vshape' && num('center', 'Center', 0, 254)}
        {spec.mode === 'modulo' && num('cycle', 'Cycle', 1, 255)}
      </div>
      {spec.mode === 'explicit' && (
        <div class="row">
          {groupIds.map((gid) => (
            <label class="small-field" key={gid}>
              gid {gid} (ms)
              <input
                type="number"
                min={0}
                max={65535}
                value={spec.values.find((v) => v.id === gid)?.offset_ms ?? 0}
                onInput={(e) => {
                  const ms = Number(e.currentTarget.value);
                  const rest = spec.values.filter((v) => v.id !== gid);
                  onChange({
                    mode: 'explicit',
                    values: [...rest, { id: gid, offset_ms: ms }].sort((a, b) => a.id - b.id),
                  });
                }}
              />
            </label>
          ))}
        </div>
      )}
      <div class="preview" data-testid="offset-preview">
        {spec.mode === 'none' ? (
          <span class="muted">Clears offset mode on the target nodes (needs at least one child).</span>
        ) : preview.length ? (
          preview.map((p) => (
            <span class="chip-static" key={p.gid}>
              gid {p.gid} → {p.ms === null ? '—' : `${p.ms} ms`}
            </span>
          ))
        ) : (
          <span class="muted">Broadcast container: every group's offset follows the formula.</span>
        )}
      </div>
    </div>
  );
}
