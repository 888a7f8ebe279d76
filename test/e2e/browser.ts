/**
 * Browser helper for the UI tests: playwright-core driving Debian's chromium
 * (never a downloaded browser) with a fresh profile, and screenshots saved under
 * test-artifacts/.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.LIGHTNET_CHROMIUM ?? '/usr/bin/chromium';
export const ARTIFACTS = join(process.cwd(), 'test-artifacts');

export interface BrowserHandle {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught page errors seen so far (a test asserts none). */
  errors: string[];
  /**
   * Every red toast the page showed, in order (toasts vanish after 6 s, so a test that
   * only waits for the green one would miss a red one shown beside it).
   */
  errorToasts: string[];
  shot(name: string): Promise<string>;
  close(): Promise<void>;
}

/** Page-side: reports each `.toast.error` element once as it is added. */
const ERROR_TOAST_WATCH = `
addEventListener('DOMContentLoaded', () => {
  const seen = new WeakSet();
  new MutationObserver(() => {
    for (const el of document.querySelectorAll('.toast.error')) {
      if (seen.has(el)) continue;
      seen.add(el);
      window.__lightnetErrorToast(el.textContent.replace(/×$/, '').trim());
    }
  }).observe(document.body, { childList: true, subtree: true });
});
`;

export async function openBrowser(viewport = { width: 1440, height: 900 }): Promise<BrowserHandle> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} missing: run scripts/ensure-chromium.sh`);
  const profile = await mkdtemp(join(tmpdir(), 'lightnet-chromium-'));
  // A persistent context is how playwright takes a user-data-dir: a fresh one per run.
  const launch = () =>
    chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  // A browser that fails to start leaves no profile folder behind.
  const context = await launch().catch(async (err: unknown) => {
    await rm(profile, { recursive: true, force: true });
    throw err;
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  // Tests share one page across hosts, and each host closes when its test ends: the page's
  // reconnects and late chunk loads to that closed port are refused. Those are about a host
  // the page has left, so they are dropped when it navigates to another origin.
  const refusedFrom = new Map<string, string>();
  const originOf = (url: string): string | null => {
    try {
      return new URL(url).origin;
    } catch {
      return null;
    }
  };
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const url = m.location().url;
    const line = m.text() + (url ? ` (${url})` : '');
    errors.push(line);
    const origin = url ? originOf(url) : null;
    if (origin && m.text().includes('net::ERR_CONNECTION_REFUSED')) refusedFrom.set(line, origin);
  });
  page.on('framenavigated', (frame) => {
    if (frame !== page.mainFrame()) return;
    const now = originOf(frame.url());
    for (let i = errors.length - 1; i >= 0; i--) {
      const from = refusedFrom.get(errors[i]!);
      if (from !== undefined && from !== now) errors.splice(i, 1);
    }
    refusedFrom.clear();
  });
  page.on('pageerror', (e) => errors.push(e.message));
  const errorToasts: string[] = [];
  await page.exposeFunction('__lightnetErrorToast', (text: string) => errorToasts.push(text));
  await page.addInitScript(ERROR_TOAST_WATCH);
  await mkdir(ARTIFACTS, { recursive: true });
  return {
    context,
    page,
    errors,
    errorToasts,
    async shot(name) {
      const file = join(ARTIFACTS, `${name}.png`);
      await page.screenshot({ path: file, fullPage: false });
      return file;
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
