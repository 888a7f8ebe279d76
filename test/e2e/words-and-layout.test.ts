/**
 * The words and layout a new operator trips over (issue 25, item 10): Health headers
 * that ran together ("FailedConfig"), a Health table cut on a phone and log words broken
 * in the middle, signal columns named and ordered differently on Devices and Health,
 * "⚠ 1 differ" on a fresh simulated device, an empty scene pointing below at a control
 * that is above, and no first steps. Boxes are measured in the page.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { withHost } from '../integration/harness.ts';
import { discoverAll, runTask } from '../integration/host/helpers.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';

type Page = BrowserHandle['page'];

/** Horizontal gaps (px) between the texts of neighbouring headers of a table. */
const HEADER_GAPS = (sel: string) => `(() => {
  const ths = [...document.querySelectorAll('${sel} thead th')].filter((th) => th.offsetParent !== null);
  const boxes = ths.map((th) => {
    const r = document.createRange();
    r.selectNodeContents(th);
    const b = r.getBoundingClientRect();
    return { text: th.textContent.trim(), left: b.left, right: b.right };
  });
  return boxes.slice(1).map((b, i) => ({ pair: boxes[i].text + '|' + b.text, gap: b.left - boxes[i].right }));
})()`;

/**
 * Words and key=value tokens of the log lines (message and fields) drawn over two lines.
 * A path may wrap after one of its slashes or hyphens (the browser's own wrap points, where a
 * reader expects them, and what keeps a long one inside a phone's width: a temp folder's
 * random name decides where it falls); a break anywhere else is a broken word.
 */
const BROKEN_WORDS = `(() => {
  const broken = [];
  const top = (t, i) => {
    const r = document.createRange();
    r.setStart(t, i);
    r.setEnd(t, i + 1);
    return Math.round(r.getBoundingClientRect().top);
  };
  for (const td of document.querySelectorAll('main table tbody tr td')) {
    const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      for (const m of t.data.matchAll(/[A-Za-z0-9_.:=\\/-]{2,}/g)) {
        const r = document.createRange();
        r.setStart(t, m.index);
        r.setEnd(t, m.index + m[0].length);
        const lines = new Set([...r.getClientRects()].map((x) => Math.round(x.top)));
        if (lines.size < 2) continue;
        for (let i = 1; i < m[0].length; i++) {
          if (top(t, m.index + i) !== top(t, m.index + i - 1) && !'/-'.includes(m[0][i - 1])) {
            broken.push(m[0]);
            break;
          }
        }
      }
    }
  }
  return broken;
})()`;

const headerTexts = async (page: Page, sel: string): Promise<string[]> =>
  (await page.locator(sel).allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());

const SIGNAL = /^(VBat|Battery|Node|Host)/;

/**
 * A name as the page holds and draws it (issue 35, item 8): its text nodes, whether its
 * box cuts it, the hover title, and the end CSS draws after a cut device name.
 */
interface NameBox {
  texts: string[];
  cut: boolean;
  title: string | null;
  tail: string | null;
}
const NAME_BOX = (sel: string) => `[...document.querySelectorAll(${JSON.stringify(`${sel}, ${sel} *`)})]
  .filter((el) => [...el.childNodes].some((n) => n.nodeType === 3 && n.data.trim()))
  .map((el) => {
  const texts = [...el.childNodes].filter((n) => n.nodeType === 3 && n.data.trim()).map((n) => n.data);
  const after = el.parentElement && getComputedStyle(el.parentElement, '::after').content;
  return {
    texts: el.children.length ? texts.concat('<' + el.children.length + ' elements>') : texts,
    cut: el.scrollWidth > el.clientWidth + 0.5,
    title: el.getAttribute('title') ?? el.closest('[title]')?.getAttribute('title') ?? null,
    tail: after && /^".*"$/.test(after) ? JSON.parse(after) : null,
  };
})`;

/** Realistic group names, and one as long as the host allows (64 characters). */
const TYPICAL = ['Finish Left', 'Start Gate 2', 'Pit Lane Arch', 'Finish Right'];
const LONGEST = 'Start and finish gantry over the main straight, pit lane side 12';

let b: BrowserHandle;
beforeAll(async () => {
  b = await openBrowser({ width: 1280, height: 800 });
});
afterAll(async () => {
  await b?.close();
});
beforeEach(async () => {
  await b.page.goto('about:blank');
  b.errors.length = 0;
});

describe('words and layout', () => {
  it('health-and-log-read-cleanly-at-1280-1024-and-390px-and-name-signals-as-devices-does', async () => {
    await withHost({ nodes: 6, seed: 1 }, async (h) => {
      await discoverAll(h);
      await runTask(h, '/api/status', {});
      const page = b.page;
      for (const width of [1280, 1024, 390]) {
        await page.setViewportSize({ width, height: width < 500 ? 844 : 800 });
        await page.goto(h.url + '/health');
        const table = page.getByTestId('health-table');
        await table.locator('tbody tr').nth(5).waitFor();
        const gaps = (await page.evaluate(HEADER_GAPS('[data-testid=health-table]'))) as {
          pair: string;
          gap: number;
        }[];
        const tight = gaps.filter((g) => g.gap < 6);
        expect(tight, `health headers at ${width} px`).toEqual([]);
        // Not cut: the table fits its box (nothing hidden to the right).
        const fits = await page.evaluate(
          `(() => { const w = document.querySelector('.ops-table-wrap'); return w.scrollWidth <= w.clientWidth + 1; })()`,
        );
        expect(fits, `health table fits at ${width} px`).toBe(true);
        await b.shot(`health-${width}`);

        await page.goto(h.url + '/log');
        await page.locator('main table tbody tr').nth(3).waitFor();
        expect(await page.evaluate(BROKEN_WORDS), `log words at ${width} px`).toEqual([]);
      }

      // The same signal columns, named and ordered alike, on Devices and Health.
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(h.url + '/');
      await page.locator('[data-testid=device-table] [role=row][data-addr]').first().waitFor();
      const onDevices = (await headerTexts(page, '[data-testid=device-table] [role=columnheader]')).filter(
        (t) => SIGNAL.test(t),
      );
      await page.goto(h.url + '/health');
      await page.getByTestId('health-table').locator('tbody tr').first().waitFor();
      const onHealth = (await headerTexts(page, '[data-testid=health-table] thead th')).filter((t) =>
        SIGNAL.test(t),
      );
      expect(onDevices.map((t) => t.replace(/[▲▼]/g, '').trim())).toEqual(onHealth);
      expect(onHealth).toEqual(['VBat', 'Node ↓', 'Host ↑']);
      expect(b.errors).toEqual([]);
    });
  });

  it('a-fresh-simulated-device-shows-no-difference-in-its-options', async () => {
    await withHost({ nodes: 2, seed: 1 }, async (h) => {
      await discoverAll(h);
      const page = b.page;
      await page.goto(h.url + '/');
      await page
        .locator('[data-testid=device-table] [role=row][data-addr]')
        .first()
        .locator('button.chip')
        .click();
      const opts = page.getByTestId('options-dialog');
      // Every readable value read back from the node.
      await opts.getByTestId('live-led_fps').getByText('device: 75 ✓').waitFor({ timeout: 60_000 });
      await opts
        .getByTestId('live-led_seg0')
        .getByText(/device: 0\.\.\d+/)
        .waitFor({ timeout: 60_000 });
      await opts
        .getByTestId('live-led_seg1')
        .getByText(/device: /)
        .waitFor({ timeout: 60_000 });
      await b.shot('fresh-device-options');
      expect(await opts.getByText(/differ/).count()).toBe(0);
      expect(b.errors).toEqual([]);
    });
  });

  it('group-and-device-names-read-whole-at-1280px-and-a-cut-name-is-one-text-with-its-title', async () => {
    expect(LONGEST).toHaveLength(64);
    await withHost({ nodes: 6, seed: 1 }, async (h) => {
      const devs = await discoverAll(h);
      expect(devs.length).toBeGreaterThanOrEqual(5);
      const names = [...TYPICAL, LONGEST];
      for (const [i, name] of names.entries()) {
        const g = await h.post<{ id: number }>('/api/groups/create', { name });
        expect(g.status, JSON.stringify(g.body)).toBe(200);
        await runTask(h, '/api/devices/update-meta', { macs: [devs[i]!.addr], groupId: g.body.id });
      }
      // Device names an operator gives: one that fits, one longer than a phone's column.
      const short = 'Finish Left';
      const long = 'Finish Left gate pole light west side';
      for (const [i, name] of [short, long].entries()) {
        const r = await h.post('/api/devices/update-meta', { macs: [devs[i]!.addr], name });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
      }
      const page = b.page;
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: width < 500 ? 844 : 800 });
        await page.goto(h.url + '/');
        const table = page.getByTestId('device-table');
        await table.getByRole('button', { name: long, exact: true }).waitFor();
        await page.locator('.group-row', { hasText: 'Pit Lane Arch' }).waitFor();
        await b.shot(`names-${width}`);
        const at = `at ${width} px`;

        const side = (await page.evaluate(NAME_BOX('.group-row .group-name'))) as NameBox[];
        const sideByName = new Map(side.map((n) => [n.texts.join('|'), n]));
        const group = (await page.evaluate(NAME_BOX('.c-group'))) as NameBox[];
        const device = (await page.evaluate(NAME_BOX('.c-name .link'))) as NameBox[];
        for (const name of names) {
          // Whole and one text, in the sidebar and in the Group column.
          const s = sideByName.get(name);
          expect(s, `${at}: sidebar holds '${name}' as one text (${JSON.stringify(side)})`).toBeTruthy();
          // A phone has no Group column (the sidebar names the group).
          const g = width >= 700 ? group.find((x) => x.texts.join('|') === name) : s;
          expect(
            g,
            `${at}: Group column holds '${name}' as one text (${JSON.stringify(group)})`,
          ).toBeTruthy();
          if (width === 1280 && name !== LONGEST) {
            expect(s!.cut, `${at}: sidebar shows '${name}' whole`).toBe(false);
            expect(g!.cut, `${at}: Group column shows '${name}' whole`).toBe(false);
          }
          // Cut: the whole name is on hover.
          for (const x of [s!, g!]) if (x.cut) expect(x.title, `${at}: title of '${name}'`).toContain(name);
        }
        expect(sideByName.get(LONGEST)!.cut, `${at}: a 64-character name is cut in the sidebar`).toBe(true);

        // Device names: one text node each (find and copy see "Finish Left", not two boxes).
        for (const name of [short, long]) {
          const d = device.filter((x) => x.texts.join('|') === name);
          expect(d, `${at}: '${name}' as one text (${JSON.stringify(device)})`).toHaveLength(1);
        }
        const cutLong = device.find((x) => x.texts[0] === long)!;
        // Cut (always on a phone): the end still shows, drawn by CSS, its space kept.
        if (width === 390) expect(cutLong.cut, `${at}: '${long}' is cut`).toBe(true);
        if (cutLong.cut) expect(cutLong.tail, `${at}: the end of '${long}'`).toBe(long.slice(-6));
        const fits = device.find((x) => x.texts[0] === short)!;
        if (width === 1280)
          expect([fits.cut, fits.tail], `${at}: '${short}' shows whole, once`).toEqual([false, null]);
      }
      expect(b.errors).toEqual([]);
    });
  });

  it('a-new-operator-sees-first-steps-and-the-empty-scene-points-at-its-control', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      const page = b.page;
      await page.goto(h.url + '/');
      const steps = page.getByTestId('first-steps');
      await steps.waitFor();
      expect(await steps.locator('li').allTextContents()).toEqual([
        expect.stringContaining('Discover…'),
        expect.stringContaining('groups'),
        expect.stringContaining('scene'),
      ]);
      await page.getByRole('link', { name: 'Help' }).first().click();
      await page
        .getByTestId('help-page')
        .getByTestId('first-steps')
        .getByRole('heading', { name: 'First steps' })
        .waitFor();

      await page.getByRole('link', { name: 'Scenes' }).click();
      await page.getByRole('button', { name: 'New scene', exact: true }).click();
      const hint = page.getByText(/No actions yet/);
      await hint.waitFor();
      const text = (await hint.textContent()) ?? '';
      expect(text).not.toMatch(/below/);
      // It names the control as the screen labels it.
      const named = /“([^”]+)”/.exec(text)?.[1];
      expect(named).toBe('Add action');
      await page.locator('label', { hasText: named }).getByRole('combobox').waitFor();
      expect(b.errors).toEqual([]);
    });
  });
});
