/**
 * Whether the Blackout button the operator sees covers any other control (issue 35, item
 * 6: a floating Blackout sat on Run, Save, Move and Node config on a phone — a tap on Run
 * blacked the field out). Measured in the page: every interactive element the operator can
 * reach now (inside the open modal dialog when there is one, else the page; the toasts
 * too), its box clipped by every scrolling or clipping box around it and by the window
 * (what is scrolled out of a box is not there to be tapped), must not meet the button's box.
 */
import type { BrowserHandle } from './browser.ts';

type Page = BrowserHandle['page'];

export interface Covered {
  what: string;
  box: { l: number; t: number; r: number; b: number };
}

/** Page-side (a string: this project's tsconfig has no DOM types). */
const COVERED = `((testId) => {
  const SEL = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [role=link], [role=checkbox], [role=radio], [role=tab], [tabindex]:not([tabindex="-1"])';
  const topLayer = (el) => el.matches('dialog:modal, :popover-open');
  /** The part of el's box that is drawn: clipped by clipping ancestors and the window. */
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    const box = { l: r.left, t: r.top, r: r.right, b: r.bottom };
    let escapes = getComputedStyle(el).position === 'fixed' || topLayer(el);
    for (let a = el.parentElement; a && !escapes; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.overflowX !== 'visible' || cs.overflowY !== 'visible') {
        const ar = a.getBoundingClientRect();
        const l = ar.left + a.clientLeft, t = ar.top + a.clientTop;
        box.l = Math.max(box.l, l);
        box.t = Math.max(box.t, t);
        box.r = Math.min(box.r, l + a.clientWidth);
        box.b = Math.min(box.b, t + a.clientHeight);
      }
      // A fixed box or one in the top layer is not clipped by what contains it in the DOM.
      if (cs.position === 'fixed' || topLayer(a)) escapes = true;
    }
    box.l = Math.max(box.l, 0);
    box.t = Math.max(box.t, 0);
    box.r = Math.min(box.r, innerWidth);
    box.b = Math.min(box.b, innerHeight);
    return box;
  };
  const drawn = (el) => {
    const cs = getComputedStyle(el);
    return cs.visibility !== 'hidden' && cs.display !== 'none' && el.getClientRects().length > 0;
  };
  // The topmost modal dialog: the one whose own centre a finger would reach.
  const modals = [...document.querySelectorAll('dialog')].filter((d) => d.matches(':modal'));
  const top = modals.find((d) => {
    const r = d.getBoundingClientRect();
    return document.elementFromPoint(r.left + r.width / 2, r.top + 8)?.closest('dialog') === d;
  }) ?? modals[modals.length - 1] ?? null;
  const reachable = (el) =>
    top ? top.contains(el) || !!el.closest(':popover-open') : !el.closest('dialog') && !el.closest('[inert]');
  const button = [...document.querySelectorAll('[data-testid="' + testId + '"]')].find((el) => drawn(el) && reachable(el));
  if (!button) return { error: 'no reachable Blackout button ' + testId };
  const bb = button.getBoundingClientRect();
  const covered = [];
  for (const el of document.querySelectorAll(SEL)) {
    if (el === button || button.contains(el) || el.contains(button)) continue;
    if (!drawn(el) || !reachable(el)) continue;
    const s = shown(el);
    if (s.r - s.l < 1 || s.b - s.t < 1) continue;
    const meets = s.l < bb.right - 0.5 && s.r > bb.left + 0.5 && s.t < bb.bottom - 0.5 && s.b > bb.top + 0.5;
    if (!meets) continue;
    const name = el.getAttribute('aria-label') || el.textContent.trim().slice(0, 40) || el.getAttribute('name') || '';
    covered.push({ what: el.tagName.toLowerCase() + (name ? ' "' + name + '"' : ''), box: s });
  }
  return { covered };
})`;

/** The controls the Blackout button with this test id covers now ([] = none). */
export async function coveredByBlackout(page: Page, testId: string): Promise<Covered[]> {
  const r = (await page.evaluate(`${COVERED}(${JSON.stringify(testId)})`)) as
    { error: string } | { covered: Covered[] };
  if ('error' in r) throw new Error(r.error);
  return r.covered;
}

/**
 * What the toasts shown now are in the way of (item: toasts sat on a dialog's Blackout and
 * ×, and on a phone on the scene editor's Duplicate, Save and Run): a toast must not meet
 * any drawn Blackout button (the bar's, the band's, a dialog's), nor a dialog's head, footer
 * or buttons or the scene editor's actions; and every other control it lies over must still
 * take a tap there (the toast lets taps through except on its own ×).
 */
const TOAST_TROUBLE = `(() => {
  const SEL = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [role=link], [role=checkbox], [role=radio], [role=tab], [tabindex]:not([tabindex="-1"])';
  const drawn = (el) => {
    const cs = getComputedStyle(el);
    return cs.visibility !== 'hidden' && cs.display !== 'none' && el.getClientRects().length > 0;
  };
  const inStack = (el) => !!el.closest('#toasts');
  const modals = [...document.querySelectorAll('dialog')].filter((d) => d.matches(':modal'));
  const top = modals[modals.length - 1] ?? null;
  const reachable = (el) => (top ? top.contains(el) : !el.closest('dialog') && !el.closest('[inert]'));
  const name = (el) => el.tagName.toLowerCase() + ' "' + (el.getAttribute('aria-label') || el.textContent.trim().slice(0, 40)) + '"';
  const cut = (a, b) => {
    const l = Math.max(a.left, b.left, 0), t = Math.max(a.top, b.top, 0);
    const r = Math.min(a.right, b.right, innerWidth), bt = Math.min(a.bottom, b.bottom, innerHeight);
    return r - l > 0.5 && bt - t > 0.5 ? { l, t, r, b: bt } : null;
  };
  const toasts = [...document.querySelectorAll('#toasts .toast')].filter(drawn);
  const trouble = [];
  for (const toast of toasts) {
    const tb = toast.getBoundingClientRect();
    const text = toast.textContent.trim().slice(0, 50);
    for (const el of document.querySelectorAll('[data-testid^="blackout"]')) {
      if (!drawn(el) || el.tagName !== 'BUTTON') continue;
      if (cut(tb, el.getBoundingClientRect())) trouble.push('toast "' + text + '" covers Blackout ' + el.dataset.testid);
    }
    for (const el of document.querySelectorAll('.modal-head, .modal-foot, dialog .buttons, [data-toast-avoid]')) {
      if (!drawn(el) || !reachable(el)) continue;
      if (cut(tb, el.getBoundingClientRect())) trouble.push('toast "' + text + '" covers ' + (el.className || el.tagName));
    }
    for (const el of document.querySelectorAll(SEL)) {
      if (inStack(el) || !drawn(el) || !reachable(el)) continue;
      const c = cut(tb, el.getBoundingClientRect());
      if (!c) continue;
      const hit = document.elementFromPoint((c.l + c.r) / 2, (c.t + c.b) / 2);
      // What the control shows there may be scrolled under something else; the toast must
      // not be what takes the tap (its own × may: the one part of it that takes taps).
      if (hit && hit.closest('#toasts') && !hit.closest('#toasts button')) trouble.push('toast "' + text + '" blocks ' + name(el));
    }
  }
  return { shown: toasts.length, trouble };
})()`;

/** The toasts shown now (their count) and what they are in the way of ([] = nothing). */
export async function toastTrouble(page: Page): Promise<{ shown: number; trouble: string[] }> {
  return (await page.evaluate(TOAST_TROUBLE)) as { shown: number; trouble: string[] };
}
