/**
 * Blackout stays in reach and covers no other control (issue 35, item 6). On a phone the
 * floating Blackout sat on the scene editor's Run and Save (a tap on Run blacked the field
 * out) and on Move and Node config, and the device table started below the first screen.
 * At 390, 1024 and 1280 px, on every page (at its top and scrolled to its end), in the scene
 * editor with actions, and with dialogs open, the Blackout button the operator sees must
 * meet no other visible control; at 390 px the first device row shows on the first screen,
 * above the Blackout band. blackout-everywhere.test.ts makes the same check for every
 * dialog and menu at 1280 and 390 px.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withHost, type Harness } from '../integration/harness.ts';
import { discoverAll } from '../integration/host/helpers.ts';
import { coveredByBlackout, toastTrouble } from './blackout-rect.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';

type Page = BrowserHandle['page'];

const row0 = (page: Page) => page.locator('[data-testid=device-table] [role=row][data-addr]').first();
const click = (page: Page, name: string) => page.getByRole('button', { name, exact: true }).click();
const frames = (page: Page) =>
  page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');

/** Scrolls every scrolling box of the page to its end (the page itself too). */
const SCROLL_TO_END = `
  document.scrollingElement.scrollTo(0, document.scrollingElement.scrollHeight);
  for (const el of document.querySelectorAll('*')) {
    const cs = getComputedStyle(el);
    if (/(auto|scroll)/.test(cs.overflowY + cs.overflowX)) el.scrollTo(el.scrollWidth, el.scrollHeight);
  }
`;

/** With the toast carrying `text` on screen: it is in nobody's way (toastTrouble). */
async function toastInNobodysWay(page: Page, text: string | RegExp, what: string): Promise<void> {
  await page.locator('#toasts .toast', { hasText: text }).first().waitFor();
  const t = await toastTrouble(page);
  expect(t.shown, `${what}: the toast is shown`).toBeGreaterThan(0);
  // The stack is re-placed each frame: what it avoids may still be moving in the frame the
  // toast appears (a saved scene's footer redraws), so it must be out of the way once settled.
  await expect
    .poll(async () => (await toastTrouble(page)).trouble, {
      message: `${what}: what the toasts are in the way of (t.shown=${t.shown})`,
      timeout: 1_500,
    })
    .toEqual([]);
}

async function coversNothing(page: Page, testId: string, what: string): Promise<void> {
  await frames(page);
  const covered = await coveredByBlackout(page, testId);
  expect(covered, `${what}: controls under the Blackout button`).toEqual([]);
}

/** The page at its top and scrolled to its end. */
async function pageCoversNothing(page: Page, what: string): Promise<void> {
  await coversNothing(page, 'blackout', `${what}, top`);
  // The status bar's red flag is the other one-press safety control: nothing may sit on it either.
  await coversNothing(page, 'flag-red', `${what}, red flag, top`);
  await page.evaluate(SCROLL_TO_END);
  await coversNothing(page, 'blackout', `${what}, scrolled to the end`);
  await coversNothing(page, 'flag-red', `${what}, red flag, scrolled to the end`);
}

const DIALOGS: [string, (p: Page) => Promise<void>][] = [
  ['control-dialog', (p) => click(p, 'Control…')],
  ['discover-dialog', (p) => click(p, 'Discover…')],
  ['options-dialog', (p) => row0(p).locator('button.chip').click()],
  ['firmware-dialog', (p) => click(p, 'Firmware…')],
  ['confirm', (p) => click(p, 'Reload')],
  ['settings-dialog', (p) => p.getByRole('button', { name: 'Settings' }).click()],
];

let b: BrowserHandle;
beforeAll(async () => {
  b = await openBrowser({ width: 1280, height: 800 });
});
afterAll(async () => {
  await b?.close();
});

async function seed(h: Harness): Promise<void> {
  const devs = await discoverAll(h);
  for (const name of ['Finish Left', 'Start Gate 2', 'Pit Lane Arch']) {
    expect((await h.post('/api/groups/create', { name })).status).toBe(200);
  }
  expect(devs.length).toBeGreaterThan(3);
}

describe('blackout covers nothing', () => {
  for (const width of [390, 1024, 1280]) {
    it(`no-control-sits-under-blackout-on-any-page-in-the-scene-editor-or-a-dialog-at-${width}px`, async () => {
      await withHost({ nodes: 8, seed: 3 }, async (h) => {
        await seed(h);
        const page = b.page;
        await page.setViewportSize({ width, height: width < 500 ? 844 : width < 1100 ? 768 : 800 });

        // The Devices page as it opens: at 390 px the first device row is on the first
        // screen, above the Blackout band.
        await page.goto(h.url + '/');
        await row0(page).waitFor();
        await frames(page);
        if (width === 390) {
          const row = await row0(page).boundingBox();
          const bo = await page.getByTestId('blackout').boundingBox();
          expect(row && bo).toBeTruthy();
          await b.shot('blackout-band-devices-390');
          expect(row!.y, 'the first device row starts on screen').toBeGreaterThanOrEqual(0);
          expect(row!.y + row!.height, 'the first device row ends above Blackout').toBeLessThanOrEqual(bo!.y);
        }
        await pageCoversNothing(page, `devices at ${width} px`);

        // With a selection (Move, Clear selection, Node config come alive).
        await page.goto(h.url + '/');
        await row0(page).locator('input[type=checkbox]').check();
        await pageCoversNothing(page, `devices with a selection at ${width} px`);

        for (const path of ['scenes', 'health', 'log', 'race', 'help']) {
          await page.goto(`${h.url}/${path}`);
          await page.getByTestId('blackout').waitFor();
          await page.locator('main').first().waitFor();
          await pageCoversNothing(page, `/${path} at ${width} px`);
        }

        // The scene editor with actions: Run and Create/Save at its foot.
        await page.goto(`${h.url}/scenes`);
        await page.getByRole('button', { name: 'New scene', exact: true }).click();
        const kind = page.getByLabel('New action kind');
        for (const label of ['Apply Native Effect', 'Delay', 'Apply Native Effect']) {
          await kind.selectOption({ label });
          await click(page, '+ Add');
        }
        await page.getByTestId('action-2').waitFor();
        await page.getByRole('button', { name: 'Run', exact: true }).waitFor();
        if (width === 390) await b.shot('blackout-band-scene-editor-390');
        await pageCoversNothing(page, `scene editor at ${width} px`);

        // Toasts on screen: saved, then run (on a phone they sat on Duplicate, Save and Run).
        await page.evaluate('window.scrollTo(0, 0)');
        await page.getByRole('button', { name: /^Create/ }).click();
        await toastInNobodysWay(page, /Saved scene/, `scene saved at ${width} px`);
        if (width === 390) await b.shot('toast-scene-saved-390');
        await coversNothing(page, 'blackout', `scene editor with a toast at ${width} px`);
        await click(page, 'Run');
        await toastInNobodysWay(page, /^Ran /, `scene run at ${width} px`);

        for (const [id, open] of DIALOGS) {
          await page.goto(h.url + '/');
          await row0(page).waitFor();
          await open(page);
          const dialog = page.locator(`dialog[open][data-testid="${id}"]`);
          await dialog.waitFor();
          await dialog.getByTestId('blackout-dialog').waitFor();
          if (width === 390 && id === 'control-dialog') await b.shot('blackout-band-control-390');
          await coversNothing(page, 'blackout-dialog', `${id} at ${width} px`);
          await page.evaluate(SCROLL_TO_END);
          await coversNothing(page, 'blackout-dialog', `${id} at ${width} px, scrolled`);
          if (id === 'control-dialog') {
            // A toast raised from the dialog: clear of its head (Blackout, ×) and its buttons.
            await dialog.getByRole('button', { name: 'Send', exact: true }).click();
            await toastInNobodysWay(page, /sent to/, `control dialog sent at ${width} px`);
            await b.shot(`toast-control-sent-${width}`);
            await coversNothing(page, 'blackout-dialog', `control dialog with a toast at ${width} px`);
          }
        }
        expect(b.errorToasts).toEqual([]);
      });
    });
  }
});
