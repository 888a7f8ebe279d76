/** In-app confirmation ("Delete group 'X'? Its devices move to Unconfigured."). */
import { signal } from '@preact/signals';
import { Modal } from './Modal.tsx';

interface ConfirmRequest {
  title: string;
  body: string;
  confirm: string;
  danger?: boolean;
  resolve: (ok: boolean) => void;
}

const current = signal<ConfirmRequest | null>(null);

export function confirmAction(opts: Omit<ConfirmRequest, 'resolve'>): Promise<boolean> {
  current.value?.resolve(false);
  return new Promise((resolve) => {
    current.value = { ...opts, resolve };
  });
}

function finish(ok: boolean): void {
  const c = current.value;
  current.value = null;
  c?.resolve(ok);
}

export function ConfirmHost() {
  const c = current.value;
  if (!c) return null;
  return (
    <Modal title={c.title} onClose={() => finish(false)} testId="confirm">
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          finish(true);
        }}
      >
        <p>{c.body}</p>
        <div class="buttons">
          <button type="button" onClick={() => finish(false)}>
            Cancel
          </button>
          <button type="submit" class={c.danger ? 'danger' : 'primary'} autoFocus>
            {c.confirm}
          </button>
        </div>
      </form>
    </Modal>
  );
}
