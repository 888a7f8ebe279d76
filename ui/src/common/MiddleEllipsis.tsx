/**
 * Text cut in the middle when it does not fit: the start shrinks behind an ellipsis and
 * the end always shows. Device names differ at their end ("LED 7CDFA1AE75A9" and
 * "LED 7CDFA16FABDC"), so an end cut made five rows read "LED 7CDF…" alike.
 *
 * The whole text is one text node (the browser's find and copy see "Finish Left", not
 * "Finish" and "Left" in two boxes, and no space is lost at the seam). The end that must
 * show is drawn by CSS (`::after`, from data-tail: generated text is neither found nor
 * copied), and only while the text does not fit: one shared ResizeObserver marks the box
 * `data-cut` then. The observer runs after layout and before paint, so a cut never shows
 * uncut for a frame.
 */
import { useLayoutEffect, useRef } from 'preact/hooks';

export function tailOf(text: string, keep = 6): [string, string] {
  const n = Math.min(keep, Math.floor(text.length / 2));
  return [text.slice(0, text.length - n), text.slice(text.length - n)];
}

/** Whether the whole text (the inner span's full width) is wider than the box can be. */
function check(box: Element): void {
  const text = box.firstElementChild;
  if (!(text instanceof HTMLElement)) return;
  const cut = box.hasAttribute('data-cut');
  // Uncut, the box is as wide as the text unless its room is smaller; cut, the box takes
  // all its room (text and tail overflow it), so its width is that room.
  const room = cut ? (box as HTMLElement).clientWidth : text.clientWidth;
  const wants = text.scrollWidth > room + 0.5;
  if (wants !== cut) box.toggleAttribute('data-cut', wants);
}

let observer: ResizeObserver | null = null;
const watch = (): ResizeObserver =>
  (observer ??= new ResizeObserver((entries) => {
    for (const e of entries) check(e.target);
  }));

export function MiddleEllipsis({ text, keep }: { text: string; keep?: number }) {
  const ref = useRef<HTMLSpanElement>(null);
  const [, tail] = tailOf(text, keep);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver !== 'function') return;
    const ro = watch();
    ro.observe(el);
    return () => ro.unobserve(el);
  }, []);
  // A new text in a box that stays as wide (cut, it fills its room) fires no resize. Not
  // on mount: the observer's first report covers it without a layout per row.
  const shown = useRef(text);
  useLayoutEffect(() => {
    if (shown.current === text) return;
    shown.current = text;
    if (ref.current) check(ref.current);
  }, [text]);
  return (
    <span class="mid-ell" ref={ref} data-tail={tail}>
      <span class="mid-text">{text}</span>
    </span>
  );
}
