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
      expect(text).toContain('New action kind');
      expect(b.errors).toEqual([]);
    });
  });
});
