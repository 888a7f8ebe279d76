/**
 * Where the toast stack may sit without hiding what the operator needs: never over a
 * Blackout button (the bar's, the band's, a dialog's) and not over a dialog's head or
 * footer or the scene editor's actions (marked `data-toast-avoid`). The stack hangs from
 * the bottom of the window, lifted above whatever of those is in its way in the lower half,
 * and is cut short (oldest first) above whatever of those is in the upper half. Taps pass
 * through a toast except on its own × (styles.css), so even a stack over some other
 * control never blocks it.
 */
const AVOID = '[data-testid^="blackout"], .modal-head, .modal-foot, dialog .buttons, [data-toast-avoid]';
const GAP = 8;

export function placeToasts(stack: HTMLElement): void {
  // Only the stack's sides are read (its height follows maxHeight), so nothing is written
  // before measuring: a frame whose layout did not change costs reads only.
  const s = stack.getBoundingClientRect();
  const h = window.innerHeight;
  let bottomEdge = h - GAP;
  let topEdge = GAP;
  for (const el of document.querySelectorAll<HTMLElement>(AVOID)) {
    if (stack.contains(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1 || r.bottom <= 0 || r.top >= h) continue;
    if (r.right <= s.left || r.left >= s.right) continue;
    if (r.top + r.height / 2 >= h / 2) bottomEdge = Math.min(bottomEdge, r.top - GAP);
    else topEdge = Math.max(topEdge, r.bottom + GAP);
  }
  const bottom = `${Math.max(GAP, h - bottomEdge)}px`;
  const maxHeight = `${Math.max(0, bottomEdge - topEdge)}px`;
  if (stack.style.bottom !== bottom) stack.style.bottom = bottom;
  if (stack.style.maxHeight !== maxHeight) stack.style.maxHeight = maxHeight;
}

/**
 * Keeps the stack placed while it shows: what it avoids can move after the toast appears
 * (a saved scene's editor redraws its footer, a dialog opens or scrolls, the window turns),
 * so it is re-placed every frame until stopped — a toast lives a few seconds.
 */
export function keepToastsPlaced(stack: HTMLElement): () => void {
  let frame = 0;
  const step = () => {
    placeToasts(stack);
    frame = requestAnimationFrame(step);
  };
  step();
  return () => cancelAnimationFrame(frame);
}
