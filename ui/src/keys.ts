/** Single-key shortcuts, ignored while typing in a field or with a dialog open. */
const handlers = new Map<string, { fn: () => void; label: string }>();

export function registerShortcut(key: string, fn: () => void, label: string): () => void {
  handlers.set(key, { fn, label });
  return () => {
    if (handlers.get(key)?.fn === fn) handlers.delete(key);
  };
}

export function shortcutList(): { key: string; label: string }[] {
  return [...handlers].map(([key, h]) => ({ key, label: h.label }));
}

export function installShortcuts(): void {
  addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const el = e.target as HTMLElement | null;
    if (el && (el.isContentEditable || ['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName))) return;
    if (document.querySelector('dialog[open]')) return;
    const h = handlers.get(e.key);
    if (!h) return;
    e.preventDefault();
    h.fn();
  });
}
