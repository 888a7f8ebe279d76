/**
 * Every device row can be told apart at every width (issue 25, item 5): on the simulated
 * fleet whose names share their start ("LED 7CDFA1…" five times), at 1280, 1024 and 390
 * px, the name texts the operator actually sees (characters inside their clip box, not
 * under an ellipsis) are all different; no cell overlaps the next or leaves the table;
 * the group number and the online time show whole; and in the sidebar a long group name
 * ends before its count. Boxes are measured in the page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withHost } from '../integration/harness.ts';
import { discoverAll } from '../integration/host/helpers.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';

/**
 * Page-side (a string: this project's tsconfig has no DOM types): the characters of an
 * element that are drawn inside every clipping box around them; a hidden run reads '…';
 * text drawn by CSS after an element (a cut name's end) follows.
 */
const VISIBLE_TEXT = `
window.__visibleText = (el) => {
  const clip = (node) => {
    let left = -Infinity, right = Infinity;
    for (let a = node; a && a !== document.body; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.overflowX === 'visible') continue;
      const r = a.getBoundingClientRect();
      let rr = r.right;
      // The ellipsis glyph is drawn over the last characters that would fit.
      if (cs.textOverflow === 'ellipsis' && a.scrollWidth > a.clientWidth) rr -= parseFloat(cs.fontSize) * 0.9;
      left = Math.max(left, r.left);
      right = Math.min(right, rr);
    }
    return { left, right };
  };
  let out = '';
  let hidden = false;
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    if (getComputedStyle(t.parentElement).display === 'none') continue;
    const c = clip(t.parentElement);
    for (let i = 0; i < t.data.length; i++) {
      const range = document.createRange();
      range.setStart(t, i);
      range.setEnd(t, i + 1);
      const r = range.getBoundingClientRect();
      if (r.width > 0 && r.left >= c.left - 0.5 && r.right <= c.right + 0.5) {
        out += t.data[i];
        hidden = false;
      } else if (!hidden) {
        out += '…';
        hidden = true;
      }
    }
  }
  // The end of a cut name is drawn by CSS (MiddleEllipsis: ::after, not a text node).
  for (const x of [el, ...el.querySelectorAll('*')]) {
    const cs = getComputedStyle(x, '::after');
    if (cs.display !== 'none' && /^".*"$/.test(cs.content)) out += JSON.parse(cs.content);
  }
  return out;
};
`;

interface RowMeasure {
  name: string;
  type: string;
  /** Cells overlapping the next one or the table's right edge, by column. */
  overlaps: string[];
  /** Cells whose content is wider than the cell (cut), by column. */
  cut: string[];
  groupNumberShown: boolean;
}

const MEASURE = `(() => {
  const wrap = document.querySelector('.table-wrap').getBoundingClientRect();
  return [...document.querySelectorAll('[data-testid=device-table] [role=row][data-addr]')].map((row) => {
    const cells = [...row.querySelectorAll(':scope > [role=cell]')];
    const overlaps = [];
    const cut = [];
    cells.forEach((c, i) => {
      const r = c.getBoundingClientRect();
      const next = cells[i + 1]?.getBoundingClientRect();
      const key = [...c.classList].find((k) => k.startsWith('c-')) ?? 'chk';
      if ((next && r.right > next.left + 0.5) || r.right > wrap.right + 0.5) overlaps.push(key);
      if (['c-seen', 'c-vbat'].includes(key) && c.scrollWidth > c.clientWidth + 1) cut.push(key);
      // The name's parts (button, rename, short address) stay inside the name cell.
      if (key === 'c-name') {
        for (const part of c.querySelectorAll('.name-cell > *')) {
          if (part.getBoundingClientRect().right > r.right + 0.5) overlaps.push('c-name content');
        }
      }
    });
    const group = row.querySelector('.c-group');
    const num = group?.querySelector('.muted');
    const groupNumberShown = !group || (num && num.getBoundingClientRect().right <= group.getBoundingClientRect().right + 0.5);
    return {
      name: window.__visibleText(row.querySelector('.c-name .link')),
      type: window.__visibleText(row.querySelector('.type-chip')),
      overlaps,
      cut,
      groupNumberShown: !!groupNumberShown,
    };
  });
})()`;

const SIDEBAR = `(() => [...document.querySelectorAll('.group-row')].map((g) => {
  const name = g.querySelector('.group-name').getBoundingClientRect();
  const count = g.querySelector('.count').getBoundingClientRect();
  return { text: g.querySelector('.group-name').textContent, nameRight: name.right, countLeft: count.left };
}))()`;

let b: BrowserHandle;
beforeAll(async () => {
  b = await openBrowser({ width: 1280, height: 800 });
  await b.page.addInitScript(VISIBLE_TEXT);
});
afterAll(async () => {
  await b?.close();
});

describe('identifiable rows', () => {
  it('every-row-reads-differently-and-nothing-overlaps-at-1280-1024-and-390px', async () => {
    // Seed 1: the README's default fleet, five names starting "LED 7CDFA1".
    await withHost({ nodes: 12, seed: 1 }, async (h) => {
      const long = 'Start gate left side arch and the poles beyond it';
      const g = await h.post<{ id: number }>('/api/groups/create', { name: long });
      expect(g.status).toBe(200);
      let devs = await discoverAll(h, { targetGroupId: g.body.id });
      // This scenario is about the rows, not the radio: a weak link the first discovery
      // missed on a loaded machine is found by a second one, as an operator would run it.
      if (devs.length < 12) devs = await discoverAll(h, { targetGroupId: g.body.id });
      expect(devs).toHaveLength(12);
      const typeNames = new Set(devs.map((d) => (d as unknown as { dev_type_name: string }).dev_type_name));
      const page = b.page;
      for (const width of [1280, 1024, 390]) {
        await page.setViewportSize({ width, height: width < 500 ? 844 : 800 });
        await page.goto(h.url + '/');
        const rows = page.locator('[data-testid=device-table] [role=row][data-addr]');
        await expect.poll(() => rows.count()).toBe(12);
        await page.locator('[data-testid=device-table]').scrollIntoViewIfNeeded();
        const shot = await b.shot(`identifiable-${width}`);
        const m = (await page.evaluate(MEASURE)) as RowMeasure[];
        const at = `at ${width} px (${shot})`;
        const names = m.map((r) => r.name);
        expect(new Set(names).size, `${at}: visible names ${JSON.stringify(names)}`).toBe(12);
        // Each visible name keeps the distinctive end of the full name.
        for (const [i, r] of m.entries()) expect(r.name.length, `${at}: row ${i}`).toBeGreaterThan(4);
        expect(
          new Set(m.map((r) => r.type)).size,
          `${at}: types ${JSON.stringify(m.map((r) => r.type))}`,
        ).toBe(typeNames.size);
        expect(
          m.flatMap((r) => r.overlaps),
          `${at}: overlapping cells`,
        ).toEqual([]);
        expect(
          m.flatMap((r) => r.cut),
          `${at}: cut seen / battery cells`,
        ).toEqual([]);
        expect(
          m.every((r) => r.groupNumberShown),
          `${at}: the group number shows`,
        ).toBe(true);
        const side = (await page.evaluate(SIDEBAR)) as {
          text: string;
          nameRight: number;
          countLeft: number;
        }[];
        for (const s of side)
          expect(s.nameRight, `${at}: sidebar '${s.text}'`).toBeLessThanOrEqual(s.countLeft);
      }
      expect(b.errors).toEqual([]);
    });
  });
});
