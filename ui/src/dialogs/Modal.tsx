/**
 * A modal on the native <dialog> element: the browser keeps focus inside it, Esc
 * closes it (unless locked) and it sits above everything else. Everything behind it is
 * inert — the status bar's Blackout too — so every dialog carries a Blackout button in
 * its head: the emergency control is never behind a dialog. On a phone or tablet that
 * button sits in the Blackout band along the bottom of the screen instead (race.css),
 * where the page's own is, and the dialog is centred above the band.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { BlackoutButton } from '../race/BlackoutButton.tsx';

export interface ModalProps {
  title: string;
  onClose: () => void;
  /** Locked dialogs ignore Esc and hide the corner × (running firmware update …). */
  locked?: boolean;
  wide?: boolean;
  children: ComponentChildren;
  footer?: ComponentChildren;
  /** Required: the Blackout browser test keeps a registry of every dialog by this id. */
  testId: string;
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
  // Keyboard use: start on the first field (not the corner ×), and hand focus back to
  // whatever opened the dialog when it goes away (it unmounts, so the browser cannot).
  const opener = useRef(document.activeElement as HTMLElement | null);
  useEffect(() => {
    const d = ref.current;
    const first = d?.querySelector<HTMLElement>(
      '.modal-body input:not([type=hidden]):not(:disabled), .modal-body select:not(:disabled), .modal-body textarea',
    );
    first?.focus();
    return () => {
      // Still in the top layer while unmounting: the page behind is inert until it closes.
      if (d?.open) d.close();
      const o = opener.current;
      if (o?.isConnected && o !== document.body) o.focus();
    };
  }, []);
  return (
    <dialog ref={ref} class={wide ? 'modal wide' : 'modal'} aria-label={title} data-testid={testId}>
      <header class="modal-head">
        <h2>{title}</h2>
        <BlackoutButton place="dialog" />
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
