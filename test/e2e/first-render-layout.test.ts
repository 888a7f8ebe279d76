/**
 * The console's first render reads no layout (issue 40). A script that reads a box's size
 * while the page has unrendered changes makes the browser recalculate style and lay out
 * the whole page at once, in the middle of the render: on a busy machine that forced
 * layout of the first screen (the shell and the device rows, ~1 400 elements with 300
 * devices) was ~70 ms of the renderer's CPU before anything was painted, and it was done
 * again after the render's own changes. Sizes are read where the layout is already clean:
 * in ResizeObserver reports, which come after the frame's layout and before its paint.
 *
 * The page records every read of a layout-dependent property (stack included) made outside
 * an observer's report, from its first script until the frame after the first device row.
 * The cues the reads were for still work: the phone toolbar's "more" arrow, and the device
 * table draws the rows that the scroll box shows, scrolled or searched, among 300.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fleetState } from '../../bench/fleet-state.ts';
import { serializeState } from '../../src/state/migrations.ts';
import { withHost, type Harness } from '../integration/harness.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';

/** Page-side (plain JS: the test project has no DOM types). */
const WATCH_LAYOUT_READS = String.raw`
(() => {
  const reads = [];
  let inReport = 0;
  let watching = true;
  window.__layoutReads = reads;
  const Native = window.ResizeObserver;
  window.ResizeObserver = class extends Native {
    constructor(cb) {
      super((entries, ro) => {
        inReport++;
        try {
          cb(entries, ro);
        } finally {
          inReport--;
        }
      });
    }
  };
  const note = (what) => {
    if (!watching || inReport) return;
    const stack = (new Error().stack ?? '').split('\n').slice(3, 7).map((l) => l.trim()).join(' < ');
    reads.push(what + ' at ' + stack);
  };
  const wrap = (proto, name) => {
    const d = Object.getOwnPropertyDescriptor(proto, name);
    if (!d) return;
    if (d.get) {
      Object.defineProperty(proto, name, {
        ...d,
        get() {
          note(name);
          return d.get.call(this);
        },
      });
    } else if (typeof d.value === 'function') {
      const f = d.value;
      proto[name] = function (...args) {
        note(name + '()');
        return f.apply(this, args);
      };
    }
  };
  for (const n of ['scrollWidth', 'scrollHeight', 'clientWidth', 'clientHeight', 'clientTop', 'clientLeft',
    'scrollTop', 'scrollLeft', 'getBoundingClientRect', 'getClientRects'])
    wrap(Element.prototype, n);
  for (const n of ['offsetWidth', 'offsetHeight', 'offsetTop', 'offsetLeft', 'offsetParent', 'innerText'])
    wrap(HTMLElement.prototype, n);
  // Until the frame after the first device row is in the document.
  const check = () => {
    if (document.querySelector('[data-testid=device-table] [data-addr]')) {
      requestAnimationFrame(() => setTimeout(() => {
        watching = false;
        window.__firstRowPainted = true;
      }, 0));
    } else requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
})();
`;

let b: BrowserHandle;
let phone: BrowserHandle;
beforeAll(async () => {
  [b, phone] = await Promise.all([
    openBrowser({ width: 1280, height: 800 }),
    openBrowser({ width: 390, height: 844 }),
  ]);
  for (const x of [b, phone]) await x.page.addInitScript(WATCH_LAYOUT_READS);
});
afterAll(async () => {
  await Promise.all([b?.close(), phone?.close()]);
});

async function withFleet(fn: (h: Harness) => Promise<void>): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-first-render-'));
  const state = fleetState(300, 16);
  state.devices.forEach((d, i) => (d.name = `Gate ${String(i + 1).padStart(4, '0')}`));
  await writeFile(join(dataDir, 'state.json'), serializeState(state));
  try {
    await withHost({ nodes: 0, dataDir }, async (h) => {
      try {
        await fn(h);
      } finally {
        // Leave the host before it closes: the pages' idle chunk loads and reconnects to
        // it would otherwise fail (and be counted as errors) in the next test.
        await Promise.all([b.page.goto('about:blank'), phone.page.goto('about:blank')]);
      }
    });
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function layoutReadsOfFirstRender(x: BrowserHandle, url: string): Promise<string[]> {
  await x.page.goto(url);
  await x.page.waitForFunction('window.__firstRowPainted === true', undefined, { timeout: 60_000 });
  return (await x.page.evaluate('window.__layoutReads')) as string[];
}

/** Addresses of the rows the table has drawn, in order. */
const drawnRows = (x: BrowserHandle): Promise<string[]> =>
  x.page
    .locator('[data-testid=device-table] .dt-body [data-addr]')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-addr') ?? ''));

describe('first render', () => {
  it('reads-no-layout-before-the-first-row-at-1280-and-390px', async () => {
    await withFleet(async (h) => {
      expect(await layoutReadsOfFirstRender(b, h.url + '/'), '1280 px').toEqual([]);
      expect(await layoutReadsOfFirstRender(phone, h.url + '/'), '390 px').toEqual([]);
      expect(b.errors).toEqual([]);
      expect(phone.errors).toEqual([]);
    });
  });

  it('the-phone-toolbar-still-shows-its-more-arrow-and-the-table-its-rows', async () => {
    await withFleet(async (h) => {
      // Phone: the device actions do not fit in 390 px; the cue says so until scrolled to the end.
      await phone.page.goto(h.url + '/');
      const cue = phone.page.getByRole('button', { name: 'More device actions', includeHidden: true });
      await expect.poll(() => cue.getAttribute('class')).toContain('shown');
      await cue.evaluate((el) => {
        const row = el.parentElement!;
        row.scrollLeft = row.scrollWidth;
      });
      await expect.poll(() => cue.getAttribute('class')).not.toContain('shown');

      // 1280 px: the rows drawn cover the box, and follow a scroll to the end and a search.
      await b.page.goto(h.url + '/');
      await b.page.locator('.title-row', { hasText: '300 shown' }).waitFor();
      const box = b.page.locator('.table-wrap');
      const shows = async (): Promise<number> =>
        box.evaluate((el) => Math.ceil(el.clientHeight / el.querySelector('.dt-body .dt-row')!.clientHeight));
      await expect.poll(async () => (await drawnRows(b)).length).toBeGreaterThanOrEqual(await shows());
      const first = await drawnRows(b);
      await box.evaluate((el) => (el.scrollTop = el.scrollHeight));
      await expect.poll(async () => (await drawnRows(b)).at(-1)).not.toBe(first.at(-1));
      const names = await b.page.locator('[data-testid=device-table] .dt-body .c-name').allTextContents();
      expect(names.some((n) => n.includes('Gate 0300'))).toBe(true);
      await b.page.getByLabel('Search devices').fill('Gate 0150');
      await b.page.locator('.title-row', { hasText: '1 shown' }).waitFor();
      expect(await b.page.locator('[data-testid=device-table] .dt-body .c-name').allTextContents()).toEqual([
        expect.stringContaining('Gate 0150'),
      ]);
      expect(b.errors).toEqual([]);
      expect(phone.errors).toEqual([]);
    });
  });
});
