/** A device option dialog's one-shot function (LED preset, native preset, start-block control). */
import { useState } from 'preact/hooks';
import { post } from '../api.ts';
import { toast, toastError } from '../toasts.ts';
import type { Device } from '../types.ts';
import { confirmAction } from '../dialogs/confirm.tsx';

export interface FunctionSchema {
  key: string;
  label: string;
  vars: string[];
  ui: Record<
    string,
    {
      widget: string;
      label?: string;
      min?: number;
      max?: number;
      options?: { value: string; label: string }[];
    }
  >;
  description?: string;
  unicast?: boolean;
  destructive?: { message: string };
}

export function FunctionCard({ f, d }: { f: FunctionSchema; d: Device }) {
  const [params, setParams] = useState<Record<string, string | number>>(() =>
    Object.fromEntries(
      f.vars.map((v) => [
        v,
        f.ui[v]?.widget === 'select' ? (f.ui[v]?.options?.[0]?.value ?? '') : d.brightness || 128,
      ]),
    ),
  );
  const [sending, setSending] = useState(false);
  const send = async () => {
    if (
      f.destructive &&
      !(await confirmAction({
        title: f.label,
        body: `${f.label} on '${d.name}'? ${f.destructive.message}`,
        confirm: f.label,
        danger: true,
      }))
    )
      return;
    setSending(true);
    try {
      const body = Object.fromEntries(
        Object.entries(params).map(([k, v]) => [k, typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v]),
      );
      await post('specials/action', { mac: d.addr, function: f.key, params: body });
      toast(`${f.label} sent to ${d.name}`);
    } catch (err) {
      toastError(`${f.label} failed`, err);
    } finally {
      setSending(false);
    }
  };
  return (
    <div class="fn-card" data-testid={`fn-${f.key}`}>
      <strong>{f.label}</strong>
      {f.description && <span class="muted small-text">{f.description}</span>}
      <div class="row">
        {f.vars.map((v) => {
          const ui = f.ui[v];
          if (!ui) return null;
          return ui.widget === 'select' ? (
            <label class="small-field" key={v}>
              {ui.label ?? v}
              <select
                aria-label={ui.label ?? v}
                value={String(params[v])}
                onChange={(e) => setParams({ ...params, [v]: e.currentTarget.value })}
              >
                {(ui.options ?? []).map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </select>
            </label>
          ) : (
            <label class="small-field" key={v}>
              <span>
                {ui.label ?? v} <span class="mono muted">{params[v]}</span>
              </span>
              <input
                type="range"
                aria-label={ui.label ?? v}
                min={ui.min ?? 0}
                max={ui.max ?? 255}
                value={Number(params[v])}
                onInput={(e) => setParams({ ...params, [v]: Number(e.currentTarget.value) })}
              />
            </label>
          );
        })}
        <button
          type="button"
          class={f.destructive ? 'small primary' : 'small go'}
          disabled={sending}
          onClick={send}
        >
          {sending ? 'Sending…' : 'Send'}
        </button>
      </div>
    </div>
  );
}
