/** One scene action as an editable card (offset groups nest their children). */
import type { ComponentChildren } from 'preact';
import { EffectEditor } from './EffectEditor.tsx';
import { OffsetEditor } from './OffsetEditor.tsx';
import { TargetPicker } from './TargetPicker.tsx';
import { editorSchema, kindSchema, newAction } from '../scene-schema.ts';
import { flagSummary, formatCost, type Estimate, type OffsetSpec } from './scene-model.ts';
import { nativePresets, nativeSchema } from '../store.ts';
import type { Params } from '../effect-fields.ts';
import type { SceneAction, Target } from '../types.ts';

export interface CardState {
  state: 'running' | 'ok' | 'error' | 'degraded' | 'skipped';
  message?: string;
  ms?: number;
}

interface CardProps {
  action: SceneAction;
  index: number;
  path: string;
  onChange: (a: SceneAction) => void;
  tools: ComponentChildren;
  estimate?: Estimate;
  run?: CardState;
  warn?: string;
  /** Child of an offset group: kinds and groups limited to the container's. */
  containerGroups?: number[] | null;
  isChild?: boolean;
}

function Fields({
  action,
  onChange,
  path,
}: {
  action: SceneAction;
  onChange: (a: SceneAction) => void;
  path: string;
}) {
  const ks = kindSchema(action.kind);
  const params = (action.params ?? {}) as Params;
  const setParam = (k: string, v: unknown) => onChange({ ...action, params: { ...params, [k]: v } });
  if (action.kind === 'native_effect' && nativeSchema.value) {
    return (
      <EffectEditor
        schema={nativeSchema.value}
        params={params}
        idPrefix={path}
        onChange={(p) => onChange({ ...action, params: p })}
      />
    );
  }
  if (action.kind === 'delay') {
    const ms = action.duration_ms ?? 0;
    return (
      <label class="small-field wide-field">
        Duration <span class="mono">{ms.toLocaleString('en-US')} ms</span>
        <div class="row">
          <input
            type="range"
            min={0}
            max={60000}
            step={50}
            value={ms}
            aria-label="Delay (ms)"
            onInput={(e) => onChange({ ...action, duration_ms: Number(e.currentTarget.value) })}
          />
          <input
            type="number"
            min={0}
            max={60000}
            value={ms}
            aria-label="Delay ms"
            onInput={(e) => onChange({ ...action, duration_ms: Number(e.currentTarget.value) })}
          />
        </div>
      </label>
    );
  }
  if (action.kind === 'sync')
    return <p class="muted">One broadcast tick: every node fires what it has armed.</p>;
  if (!ks) return null;
  return (
    <div class="row">
      {ks.vars.map((v) => {
        const ui = ks.ui[v];
        if (!ui) return null;
        const val = params[v];
        if (ui.widget === 'select') {
          const opts =
            action.kind === 'native_preset' && v === 'presetId'
              ? nativePresets.value.map((p) => ({ value: String(p.id), label: p.label }))
              : (ui.options ?? []);
          return (
            <label class="small-field" key={v}>
              {v === 'presetId' ? 'Preset' : v === 'fn_key' ? 'Function' : v}
              <select
                aria-label={v}
                value={val === undefined ? '' : String(val)}
                onChange={(e) => setParam(v, e.currentTarget.value)}
              >
                {val === undefined && <option value="">{ui.placeholder ?? 'choose…'}</option>}
                {opts.map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </select>
            </label>
          );
        }
        const n = typeof val === 'number' ? val : (ui.min ?? 0);
        return (
          <label class="small-field" key={v}>
            <span>
              {v === 'presetId' ? 'LED preset slot' : v} <span class="mono muted">{n}</span>
            </span>
            <input
              type={ui.widget === 'slider' ? 'range' : 'number'}
              aria-label={v}
              min={ui.min ?? 0}
              max={ui.max ?? 255}
              value={n}
              onInput={(e) => setParam(v, Number(e.currentTarget.value))}
            />
          </label>
        );
      })}
    </div>
  );
}

function FlagOverrides({
  action,
  onChange,
  inOffset,
}: {
  action: SceneAction;
  onChange: (a: SceneAction) => void;
  inOffset: boolean;
}) {
  const flags = editorSchema.value?.flags ?? [];
  const o = action.flags_override ?? {};
  const set = (k: string, v: string) => {
    const next = { ...o };
    if (v === 'inherit') delete next[k];
    else next[k] = v === 'on';
    onChange({ ...action, flags_override: next });
  };
  return (
    <details class="flags">
      <summary>Flag overrides ({flagSummary(o)})</summary>
      <div class="row">
        {flags.map((f) => (
          <label
            class="small-field"
            key={f.key}
            title={f.key === 'offset_mode' && inOffset ? 'Decided by the offset group' : ''}
          >
            {f.label}
            <select
              aria-label={f.label}
              value={o[f.key] === undefined ? 'inherit' : o[f.key] ? 'on' : 'off'}
              disabled={f.key === 'offset_mode' && inOffset}
              onChange={(e) => set(f.key, e.currentTarget.value)}
            >
              <option value="inherit">inherit</option>
              <option value="on">on</option>
              <option value="off">off</option>
            </select>
          </label>
        ))}
      </div>
    </details>
  );
}

export function ActionCard(p: CardProps) {
  const { action, onChange, path } = p;
  const es = editorSchema.value;
  const ks = kindSchema(action.kind);
  const kinds = p.isChild ? (es?.offset_group.child_kinds ?? []) : (es?.kinds.map((k) => k.kind) ?? []);
  const targetKinds = p.isChild
    ? (es?.offset_group.child_target_kinds.map((k) => k.value) ?? [])
    : action.kind === 'offset_group'
      ? (es?.container_target_kinds.map((k) => k.value) ?? [])
      : (ks?.target_kinds ?? []);
  const groupsOfContainer =
    action.kind === 'offset_group' ? (action.target?.kind === 'groups' ? action.target.value : null) : null;
  const cls = p.run ? ` run-${p.run.state}` : '';
  return (
    <div class={`card${cls}${p.isChild ? ' child' : ''}`} data-testid={`action-${path}`}>
      <div class="card-head">
        <span class="pos">{p.index + 1}</span>
        <select
          aria-label="Action kind"
          value={action.kind}
          onChange={(e) => onChange(newAction(e.currentTarget.value))}
        >
          {kinds.map((k) => (
            <option key={k} value={k}>
              {es?.kinds.find((x) => x.kind === k)?.label ?? k}
            </option>
          ))}
        </select>
        {!p.isChild && (
          <span
            class="cost"
            title={
              action.kind === 'delay'
                ? 'The runner waits; nothing is sent'
                : 'packets · bytes · radio airtime · expected run time'
            }
            data-testid="cost"
          >
            {formatCost(p.estimate, action.kind)}
            {p.run?.ms !== undefined && (
              <span class="actual"> · actual {p.run.ms.toLocaleString('en-US')} ms</span>
            )}
          </span>
        )}
        <span class="tools">{p.tools}</span>
      </div>
      <Fields action={action} onChange={onChange} path={path} />
      {(ks?.supports_target || action.kind === 'offset_group') && (
        <TargetPicker
          name={`target-${path}`}
          target={action.target}
          kinds={targetKinds}
          allowedGroups={p.containerGroups}
          needCap={action.kind === 'startblock' ? 'STARTBLOCK' : undefined}
          maxGroups={action.kind === 'offset_group' ? es?.offset_group.max_groups : undefined}
          onChange={(t: Target) => onChange({ ...action, target: t })}
        />
      )}
      {ks?.supports_flags_override && (
        <FlagOverrides action={action} onChange={onChange} inOffset={p.isChild === true} />
      )}
      {action.kind === 'offset_group' && es && (
        <>
          <OffsetEditor
            spec={(action.offset ?? { mode: 'none' }) as OffsetSpec}
            groupIds={groupsOfContainer ?? []}
            modes={es.offset_group.modes}
            onChange={(s) => onChange({ ...action, offset: s as unknown as Record<string, unknown> })}
          />
          <Children
            action={action}
            onChange={onChange}
            path={path}
            containerGroups={groupsOfContainer}
            max={es.offset_group.max_children}
          />
        </>
      )}
      {p.warn && <p class="warn-text">⚠ {p.warn}</p>}
      {p.run?.message && <p class={p.run.state === 'error' ? 'error-text' : 'muted'}>{p.run.message}</p>}
    </div>
  );
}

function Children({
  action,
  onChange,
  path,
  containerGroups,
  max,
}: {
  action: SceneAction;
  onChange: (a: SceneAction) => void;
  path: string;
  containerGroups: number[] | null;
  max: number;
}) {
  const kids = action.actions ?? [];
  const set = (list: SceneAction[]) => onChange({ ...action, actions: list });
  const childKind = editorSchema.value?.offset_group.child_kinds[0] ?? 'native_effect';
  return (
    <div class="children">
      <h3>
        Child actions ({kids.length}/{max})
      </h3>
      {kids.map((c, i) => (
        <ActionCard
          key={i}
          action={c}
          index={i}
          path={`${path}-${i}`}
          isChild
          containerGroups={containerGroups}
          onChange={(a) => set(kids.map((x, j) => (j === i ? a : x)))}
          tools={
            <button
              type="button"
              class="ghost icon"
              title="Remove child"
              aria-label="Remove child"
              onClick={() => set(kids.filter((_, j) => j !== i))}
            >
              ✕
            </button>
          }
        />
      ))}
      <button
        type="button"
        class="small"
        disabled={kids.length >= max}
        onClick={() => set([...kids, newAction(childKind)])}
      >
        + Add child
      </button>
    </div>
  );
}
