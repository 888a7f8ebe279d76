/**
 * A modal on the native <dialog> element: the browser keeps focus inside it, Esc
 * closes it (unless locked) and it sits above everything else.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export interface ModalProps {
  title: string;
  onClose: () => void;
  /** Locked dialogs ignore Esc and hide the corner × (running firmware update …). */
  locked?: boolean;
  wide?: boolean;
  children: ComponentChildren;
  footer?: ComponentChildren;
  testId?: string;
}

export function Modal({ title, onClose, locked, wide, children, footer, testId }: ModalProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const lockedRef = useRef(locked);
  lockedRef.current = locked;
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (!d.open) d.showModal();
    const onCancel = (e: Event) => {
      e.preventDefault();
      if (!lockedRef.current) onClose();
    };
    d.addEventListener('cancel', onCancel);
    return () => d.removeEventListener('cancel', onCancel);
  }, [onClose]);
  return (
    <dialog ref={ref} class={wide ? 'modal wide' : 'modal'} aria-label={title} data-testid={testId}>
      <header class="modal-head">
        <h2>{title}</h2>
        {!locked && (
          <button type="button" class="ghost icon" title="Close (Esc)" aria-label="Close" onClick={onClose}>
            ×
          </button>
        )}
      </header>
      <div class="modal-body">{children}</div>
      {footer && <footer class="modal-foot">{footer}</footer>}
    </dialog>
  );
}
