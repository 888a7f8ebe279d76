/**
 * The device table's Columns menu: every column with a box (Name always shows), the
 * health columns (Failed, Config) among them, and a reset to what fits the window.
 */
import { useEffect, useRef } from 'preact/hooks';
import { viewportW } from '../common/viewport.ts';
import { columnChoice, resetColumns, setColumn } from './column-choice.ts';
import { availableColumns, shownByDefault } from './columns.ts';

export function ColumnsMenu() {
  const ref = useRef<HTMLDetailsElement>(null);
  // A menu closes when the operator clicks elsewhere or presses Escape (a bare <details> does not).
  useEffect(() => {
    const close = (e: Event): void => {
      const el = ref.current;
      if (!el?.open) return;
      if (e instanceof KeyboardEvent ? e.key === 'Escape' : !el.contains(e.target as Node)) el.open = false;
    };
    document.addEventListener('pointerdown', close);
    document.addEventListener('keydown', close);
    return () => {
      document.removeEventListener('pointerdown', close);
      document.removeEventListener('keydown', close);
    };
  }, []);
  const choice = columnChoice.value;
  const width = viewportW.value;
  const chosen = Object.keys(choice).length > 0;
  return (
    <details class="columns-menu" ref={ref}>
      <summary
        class="button-like"
        title="Choose the table's columns (Failed exchanges and Config are off by default)"
      >
        Columns
      </summary>
      <div class="menu-panel" role="group" aria-label="Table columns">
        {availableColumns()
          .filter((c) => c.key !== 'name')
          .map((c) => {
            const on = choice[c.key] ?? shownByDefault(c, width);
            return (
              <label key={c.key} class="check" title={c.title}>
                <input
                  type="checkbox"
                  checked={on}
                  onChange={(e) => setColumn(c.key, e.currentTarget.checked)}
                />{' '}
                {c.label}
                {c.optional && <span class="muted small-text"> (health)</span>}
              </label>
            );
          })}
        <button type="button" class="small ghost" onClick={resetColumns} disabled={!chosen}>
          Fit to window
        </button>
      </div>
    </details>
  );
}
