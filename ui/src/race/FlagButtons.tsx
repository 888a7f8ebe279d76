/**
 * The race flags in the web UI. In the status bar (every page): Red is one press and always
 * shown — while red is up it is the bar's unmistakable RED FLAG state, with Clear beside it;
 * green and yellow sit behind a small ⚑ toggle (rarer, and the bar is narrow on a phone).
 * On the Race page: all four as big buttons with the flag that is up. The state comes from
 * the host (flags-store), never from what this tab pressed last.
 */
import { useState } from 'preact/hooks';
import { FLAG_ACTIONS, LABELS, flagSending, flagState, raiseFlag, type FlagAction } from './flags-store.ts';
import './flags.css';

const since = (ms: number | null): string =>
  ms === null ? '' : new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

function describe(): string {
  const s = flagState.value;
  if (!s) return 'Flag state not known yet';
  if (!s.flag) return 'No flag up';
  return `${LABELS[s.flag]} up since ${since(s.since_epoch_ms)}${s.source ? ` (by ${s.source})` : ''}`;
}

export function FlagBar() {
  const up = flagState.value?.flag ?? null;
  const sending = flagSending.value;
  const [more, setMore] = useState(false);
  const press = (a: FlagAction) => {
    setMore(false);
    void raiseFlag(a);
  };
  return (
    // The toasts keep off it: red and Clear must never be under a message.
    <span class={`flag-bar${up ? ` up-${up}` : ''}`} data-toast-avoid="" data-testid="flag-bar">
      <button
        type="button"
        class={`flag-btn red${up === 'red' ? ' up' : ''}`}
        data-testid="flag-red"
        aria-pressed={up === 'red'}
        aria-busy={sending === 'red'}
        onClick={() => press('red')}
        title={
          up === 'red'
            ? `${describe()} — press again to re-send it; Clear lowers it`
            : 'Red flag: stops the race — the whole field red, race looks held until cleared'
        }
      >
        {up === 'red' ? '⚑ RED FLAG' : '⚑ Red'}
      </button>
      {up && up !== 'red' && (
        <span class={`flag-state ${up}`} role="status" data-testid="flag-state" title={describe()}>
          {up.toUpperCase()}
        </span>
      )}
      {up && (
        <button
          type="button"
          class="flag-btn clear"
          data-testid="flag-clear"
          aria-busy={sending === 'clear'}
          onClick={() => press('clear')}
          title={`Clear: lowers the ${up} flag (the field shows the clear look)`}
        >
          Clear
        </button>
      )}
      <button
        type="button"
        class="flag-btn more"
        data-testid="flag-more"
        aria-expanded={more}
        aria-label="Green and yellow flags"
        title="Green and yellow flags"
        onClick={() => setMore(!more)}
      >
        {more ? '⚑ ▴' : '⚑ ▾'}
      </button>
      {more &&
        (['green', 'yellow'] as const).map((a) => (
          <button
            type="button"
            key={a}
            class={`flag-btn ${a}`}
            data-testid={`flag-${a}`}
            aria-pressed={up === a}
            onClick={() => press(a)}
            title={`${LABELS[a]} over the whole field`}
          >
            {a === 'green' ? 'Green' : 'Yellow'}
          </button>
        ))}
    </span>
  );
}

/** The Race page's four big flag buttons, with the flag that is up. */
export function FlagPanel() {
  const up = flagState.value?.flag ?? null;
  const sending = flagSending.value;
  return (
    <section class="flag-panel" data-testid="flag-panel">
      <div class="race-head">
        <h2>Race flags</h2>
        <span class={`flag-now${up ? ` ${up}` : ''}`} role="status" data-testid="flag-now">
          {describe()}
        </span>
      </div>
      <div class="flag-grid">
        {FLAG_ACTIONS.map((a) => (
          <button
            type="button"
            key={a}
            class={`flag-big ${a}${up === a ? ' up' : ''}`}
            data-testid={`flag-big-${a}`}
            aria-pressed={a === 'clear' ? undefined : up === a}
            aria-busy={sending === a}
            disabled={a === 'clear' && up === null && flagState.value !== null}
            onClick={() => void raiseFlag(a)}
          >
            {a === 'clear' ? 'Clear flag' : `⚑ ${a.toUpperCase()}`}
          </button>
        ))}
      </div>
    </section>
  );
}
