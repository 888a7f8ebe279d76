/**
 * Text cut in the middle when it does not fit: the start shrinks behind an ellipsis and
 * the end always shows. Device names differ at their end ("LED 7CDFA1AE75A9" and
 * "LED 7CDFA16FABDC"), so an end cut made five rows read "LED 7CDF…" alike.
 */
export function tailOf(text: string, keep = 6): [string, string] {
  const n = Math.min(keep, Math.floor(text.length / 2));
  return [text.slice(0, text.length - n), text.slice(text.length - n)];
}

export function MiddleEllipsis({ text, keep }: { text: string; keep?: number }) {
  const [head, tail] = tailOf(text, keep);
  return (
    <span class="mid-ell">
      <span class="mid-head">{head}</span>
      <span class="mid-tail">{tail}</span>
    </span>
  );
}
