/**
 * One row of the gates editor: its label, the gate picker, what the row adds (an index
 * before, a colour or a Remove after), and a Test that flashes the gate once.
 */
import { GatePicker } from './GatePicker.tsx';
import type { GateDraft } from './draft.ts';

export function GateRow({
  label,
  field,
  gate,
  none,
  error,
  testError,
  onGate,
  onTest,
  testDisabled,
  lead,
  children,
}: {
  label: string;
  field: string;
  gate: GateDraft;
  none: string;
  error: string | null;
  testError: string | null;
  onGate: (g: GateDraft) => void;
  onTest: () => void;
  testDisabled: boolean;
  lead?: preact.ComponentChildren;
  children?: preact.ComponentChildren;
}) {
  const id = `rl-${field.replace(/\./g, '-')}`;
  return (
    <div class="rl-row" data-field={field}>
      <label class="rl-row-label" for={id}>
        {label}
      </label>
      {lead}
      <GatePicker id={id} label={label} value={gate} noneLabel={none} error={error} onChange={onGate} />
      {children}
      <button
        type="button"
        class="rl-test"
        disabled={testDisabled}
        title={testDisabled ? 'No gate to flash' : `Flash this gate once with the lap flash`}
        aria-label={`Test ${label}`}
        onClick={onTest}
      >
        Test
      </button>
      {testError && (
        <span class="field-error rl-test-error" role="alert">
          {testError}
        </span>
      )}
    </div>
  );
}
