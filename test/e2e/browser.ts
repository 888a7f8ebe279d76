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
  shot(name: string): Promise<string>;
  close(): Promise<void>;
}

export async function openBrowser(viewport = { width: 1440, height: 900 }): Promise<BrowserHandle> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} missing: run scripts/ensure-chromium.sh`);
  const profile = await mkdtemp(join(tmpdir(), 'lightnet-chromium-'));
  // A persistent context is how playwright takes a user-data-dir: a fresh one per run.
  const context = await chromium.launchPersistentContext(profile, {
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
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await mkdir(ARTIFACTS, { recursive: true });
  return {
    context,
    page,
    errors,
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
