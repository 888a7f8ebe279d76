/**
 * Single-key shortcuts. Ordinary ones are ignored while typing in a field or with a
 * dialog open; an emergency one (Blackout) works everywhere — in every dialog, menu and
 * confirmation — except while the operator is typing text, where its key is a letter.
 */
interface Handler {
  fn: () => void;
  label: string;
  emergency: boolean;
}
const handlers = new Map<string, Handler>();

export function registerShortcut(
  key: string,
  fn: () => void,
  label: string,
  opts: { emergency?: boolean } = {},
): () => void {
  handlers.set(key, { fn, label, emergency: opts.emergency ?? false });
  return () => {
    if (handlers.get(key)?.fn === fn) handlers.delete(key);
  };
}

export function shortcutList(): { key: string; label: string }[] {
  return [...handlers].map(([key, h]) => ({ key, label: h.label }));
}

/** Inputs that take no typed text: a key pressed on them is not a letter being written. */
const NON_TEXT_INPUTS = new Set([
  'checkbox',
  'radio',
  'button',
  'submit',
  'reset',
  'range',
  'color',
  'file',
  'image',
]);

/** The focused element takes typed text (a text box, a number, a text area, an editable block). */
export function isTyping(el: Element | null): boolean {
  if (!(el instanceof HTMLElement)) return false;
  if (el.isContentEditable || el.tagName === 'TEXTAREA') return true;
  return el instanceof HTMLInputElement && !NON_TEXT_INPUTS.has(el.type);
}

export function installShortcuts(): void {
  const plain = (e: KeyboardEvent) => !(e.ctrlKey || e.metaKey || e.altKey);
  // Emergency keys listen in the capture phase: no field or dialog handler can swallow them.
  addEventListener(
    'keydown',
    (e) => {
      const h = handlers.get(e.key);
      if (!h?.emergency || !plain(e) || isTyping(e.target as Element | null)) return;
      e.preventDefault();
      e.stopPropagation();
      h.fn();
    },
    { capture: true },
  );
  addEventListener('keydown', (e) => {
    const h = handlers.get(e.key);
    if (!h || h.emergency || !plain(e)) return;
    const el = e.target as HTMLElement | null;
    if (el && (el.isContentEditable || ['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName))) return;
    if (document.querySelector('dialog[open]')) return;
    e.preventDefault();
    h.fn();
  });
}
