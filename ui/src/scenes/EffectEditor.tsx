/** Schema-driven editor of the 14 native effect fields (presets and inline effects). */
import {
  fieldValue,
  hexToRgb,
  sortedEffects,
  visibleFields,
  type NativeSchema,
  type Params,
} from '../effect-fields.ts';

export function EffectEditor({
  schema,
  params,
  onChange,
  idPrefix,
}: {
  schema: NativeSchema;
  params: Params;
  onChange: (p: Params) => void;
  idPrefix: string;
}) {
  const fields = visibleFields(schema, params);
  const set = (name: string, v: Params[string]) => onChange({ ...params, [name]: v });
  return (
    <div class="effect-grid">
      {fields.map(({ name, caption, ui }) => {
        const id = `${idPrefix}-${name}`;
        const v = fieldValue(params, name, ui);
        if (ui.widget === 'select') {
          const opts = name === 'mode' ? sortedEffects(schema) : (ui.options ?? []);
          return (
            <label key={name} for={id} class={name === 'mode' ? 'span2' : ''}>
              {caption}
              <select
                id={id}
                name={name}
                title={
                  name === 'mode'
                    ? '* = renders identically on every node (gates stay in step); listed first'
                    : undefined
                }
                value={String(v)}
                onChange={(e) => set(name, Number(e.currentTarget.value))}
              >
                {opts.map((o) => (
                  <option key={o.value} value={o.value}>
                    {name === 'mode' && o.deterministic ? '* ' : ''}
                    {o.label}
                  </option>
                ))}
              </select>
            </label>
          );
        }
        if (ui.widget === 'toggle') {
          return (
            <label key={name} class="check">
              <input
                id={id}
                name={name}
                type="checkbox"
                checked={v === true}
                onChange={(e) => set(name, e.currentTarget.checked)}
              />
              {caption}
            </label>
          );
        }
        if (ui.widget === 'color') {
          return (
            <label key={name} for={id} class="color-field">
              {caption}
              <input
                id={id}
                name={name}
                type="color"
                value={String(v)}
                onInput={(e) => set(name, hexToRgb(e.currentTarget.value))}
              />
            </label>
          );
        }
        return (
          <label key={name} for={id}>
            <span>
              {caption} <span class="mono muted">{String(v)}</span>
            </span>
            <input
              id={id}
              name={name}
              type="range"
              min={ui.min ?? 0}
              max={ui.max ?? 255}
              value={Number(v)}
              onInput={(e) => set(name, Number(e.currentTarget.value))}
            />
          </label>
        );
      })}
    </div>
  );
}
