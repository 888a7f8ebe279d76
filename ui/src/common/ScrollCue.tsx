/**
 * The cue on a toolbar that scrolls sideways (a phone): while buttons are cut off at the
 * right edge, the edge fades and an arrow sits there; a tap on the arrow scrolls the rest
 * into view. Put it last in the scrolling row; it watches its parent. Nothing shows when
 * everything fits (wide screens).
 */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';

export function ScrollCue({ label }: { label: string }) {
  const ref = useRef<HTMLButtonElement>(null);
  const [more, setMore] = useState(false);
  useLayoutEffect(() => {
    const row = ref.current?.parentElement;
    if (!row) return;
    const check = () => {
      // The arrow itself (sticky, at the right edge) is part of the scroll width.
      const cut = row.scrollWidth - row.clientWidth - row.scrollLeft > 2;
      setMore(cut);
      row.classList.toggle('cut-right', cut);
    };
    // No check() here: reading scrollWidth in a layout effect forces a synchronous style
    // and layout of the whole page in the middle of the first render (~70 ms of renderer
    // CPU with 300 devices on a loaded machine). The observer's first report comes after
    // the frame's own layout and before its paint, so the cue is right in the first frame.
    row.addEventListener('scroll', check, { passive: true });
    const ro = new ResizeObserver(check);
    ro.observe(row);
    for (const c of Array.from(row.children)) ro.observe(c);
    return () => {
      row.removeEventListener('scroll', check);
      ro.disconnect();
      row.classList.remove('cut-right');
    };
  }, []);
  return (
    <button
      ref={ref}
      type="button"
      class={more ? 'scroll-cue shown' : 'scroll-cue'}
      aria-label={`More ${label}`}
      title={`More ${label}: scroll`}
      tabIndex={-1}
      aria-hidden={!more}
      data-testid="scroll-cue"
      onClick={() =>
        ref.current?.parentElement?.scrollBy({
          left: ref.current.parentElement.clientWidth * 0.7,
          behavior: 'smooth',
        })
      }
    >
      ›
    </button>
  );
}
