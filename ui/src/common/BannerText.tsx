/**
 * A banner's words. On a phone a banner takes at most two lines (styles.css), so the page
 * under the banners stays on the first screen; when the words are cut, "more…" shows them
 * whole (and "less" cuts them again). Wider screens show them whole and no button.
 */
import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';

export function BannerText({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLSpanElement>(null);
  const [open, setOpen] = useState(false);
  const [cut, setCut] = useState(false);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => setCut(el.scrollHeight > el.clientHeight + 1);
    // Measured by the observer's first report (after the frame's layout, before its
    // paint), not here: a read in a layout effect forces a layout mid-render.
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [open]);
  return (
    <span class="banner-body">
      <span ref={ref} class={open ? 'banner-text open' : 'banner-text'}>
        {children}
      </span>
      {(cut || open) && (
        <button
          type="button"
          class="link banner-more"
          aria-expanded={open}
          data-testid="banner-more"
          onClick={() => setOpen(!open)}
        >
          {open ? 'less' : 'more…'}
        </button>
      )}
    </span>
  );
}
