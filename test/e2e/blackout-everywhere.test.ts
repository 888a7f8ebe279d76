/**
 * Blackout is the emergency control: it must work with every dialog, menu and
 * confirmation open, during a task, on a laptop and on a phone (issue 25, item 1).
 *
 * The scenario keeps a registry of every overlay the UI has — each <Modal testId>, each
 * <details> menu, each top-layer popover — read from ui/src, and fails when the UI gains one the registry does
 * not open. For each it opens the overlay, clicks the Blackout button the operator sees
 * (the dialog's own: the page behind a modal dialog is inert) and presses `b`, and counts
 * the blackout requests the page sends: exactly one per press; the button it clicks covers
 * no other control (blackout-rect.ts). `b` typed into a text field stays a letter.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { withHost, type Harness } from '../integration/harness.ts';
import { discoverAll, runTask } from '../integration/host/helpers.ts';
import { makeFirmware } from '../fixtures/ota/builders.ts';
import { withOtaRig } from '../fixtures/ota/rig.ts';
import { coveredByBlackout } from './blackout-rect.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';

type Page = BrowserHandle['page'];

interface Overlay {
  /** Opens it (from the Devices page, freshly loaded). */
  open(page: Page, h: Harness): Promise<void>;
  /** The Blackout button the operator sees while it is open. */
  kind: 'dialog' | 'menu' | 'popover';
}

const row0 = (page: Page) => page.locator('[data-testid=device-table] [role=row][data-addr]').first();
const click = (page: Page, name: string) => page.getByRole('button', { name, exact: true }).click();

/** The Networks dialog, from Settings (its sub-dialogs open from it). */
async function openNetworksDialog(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Settings' }).click();
  await click(page, 'Networks…');
  await page.locator('dialog[open][data-testid=networks-dialog] [data-testid=network-card-1]').waitFor();
}

/** Every overlay of the UI, by its Modal testId or its <details> class. */
const OVERLAYS: Record<string, Overlay> = {
  'discover-dialog': { kind: 'dialog', open: (p) => click(p, 'Discover…') },
  'new-group-dialog': { kind: 'dialog', open: (p) => p.getByTestId('new-group').click() },
  'resync-dialog': { kind: 'dialog', open: (p) => click(p, 'Re-sync groups…') },
  'control-dialog': { kind: 'dialog', open: (p) => click(p, 'Control…') },
  'firmware-dialog': { kind: 'dialog', open: (p) => click(p, 'Firmware…') },
  'led-presets': { kind: 'dialog', open: (p) => click(p, 'LED presets…') },
  'options-dialog': { kind: 'dialog', open: (p) => row0(p).locator('button.chip').click() },
  'battery-dialog': {
    kind: 'dialog',
    open: (p) => p.getByTestId('banner-battery').getByRole('button').first().click(),
  },
  'settings-dialog': { kind: 'dialog', open: (p) => p.getByRole('button', { name: 'Settings' }).click() },
  'native-presets': { kind: 'dialog', open: (p) => click(p, 'Native presets') },
  'command-sources-dialog': {
    kind: 'dialog',
    open: async (p) => {
      await p.getByRole('button', { name: 'Settings' }).click();
      await click(p, 'Command sources…');
    },
  },
  'racelink-import': {
    kind: 'dialog',
    open: async (p) => {
      await p.getByRole('button', { name: 'Settings' }).click();
      await click(p, 'Import from RaceLink…');
    },
  },
  'networks-dialog': {
    kind: 'dialog',
    open: async (p) => {
      await p.getByRole('button', { name: 'Settings' }).click();
      await click(p, 'Networks…');
    },
  },
  'network-create': {
    kind: 'dialog',
    open: async (p) => {
      await openNetworksDialog(p);
      await click(p, 'New network…');
    },
  },
  'network-move': {
    kind: 'dialog',
    open: async (p) => {
      await openNetworksDialog(p);
      await click(p, 'Move to another channel…');
    },
  },
  'channel-scan': {
    kind: 'dialog',
    open: async (p) => {
      await openNetworksDialog(p);
      await click(p, 'Scan channels…');
    },
  },
  'device-detail': {
    kind: 'dialog',
    open: async (p, h) => {
      const name = (await h.get<{ devices: { name: string }[] }>('/api/devices')).body.devices[0]!.name;
      await p.getByRole('link', { name: 'Health' }).click();
      await p.getByTestId('health-table').getByRole('button', { name, exact: true }).click();
    },
  },
  'group-pick': {
    kind: 'dialog',
    open: async (p) => {
      await p.getByRole('link', { name: 'Scenes' }).click();
      await p.getByRole('button', { name: 'New scene', exact: true }).click();
      await p.getByLabel('New action kind').selectOption({ label: 'Offset Group' });
      await click(p, '+ Add');
      const a = p.getByTestId('action-0');
      await a.getByRole('radio', { name: 'Groups' }).check();
      await a.getByRole('button', { name: 'Pick multiple…' }).click();
    },
  },
  // Every confirmation is this one dialog (confirmAction → ConfirmHost).
  confirm: { kind: 'dialog', open: (p) => click(p, 'Reload') },
  // A toast is showing (Blackout itself shows one): it must not cover the button.
  toasts: {
    kind: 'popover',
    open: async (p) => {
      await p.getByTestId('blackout').click();
      await p.locator('.toast', { hasText: 'Blackout: all nodes sent off' }).waitFor();
    },
  },
  'columns-menu': { kind: 'menu', open: (p) => p.locator('.columns-menu summary').click() },
  flags: {
    kind: 'menu',
    open: async (p) => {
      await p.getByRole('link', { name: 'Scenes' }).click();
      await p.getByRole('button', { name: 'New scene', exact: true }).click();
      await p.getByLabel('New action kind').selectOption({ label: 'Apply Native Preset' });
      await click(p, '+ Add');
      await p.getByTestId('action-0').locator('details.flags summary').click();
    },
  },
};

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await sourceFiles(p)));
    else if (p.endsWith('.tsx')) out.push(p);
  }
  return out;
}

/** Every Modal's testId and every <details> class in the UI source. */
async function overlaysInSource(): Promise<{ ids: Set<string>; untagged: string[] }> {
  const ids = new Set<string>();
  const untagged: string[] = [];
  for (const f of await sourceFiles(join(process.cwd(), 'ui', 'src'))) {
    // Comments may name elements too ("a bare <details> does not close").
    const text = (await readFile(f, 'utf8')).replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    // A Modal's props run to its first child tag.
    for (const m of text.matchAll(/<Modal\b([^<]*)/g)) {
      const id = /testId="([^"]+)"/.exec(m[1]!)?.[1];
      if (id) ids.add(id);
      else untagged.push(f);
    }
    // Top-layer popovers (the toasts) sit above everything, dialogs included.
    for (const m of text.matchAll(/<\w+\b([^>]*\bpopover=[^>]*)>/g)) {
      const id = /\bid="([^"]+)"/.exec(m[1]!)?.[1];
      if (id) ids.add(id);
      else untagged.push(f);
    }
    for (const m of text.matchAll(/<details\b([^>]*)>/g)) {
      const cls = /class="([^" ]+)/.exec(m[1]!)?.[1];
      // An in-flow disclosure (inside a dialog's body) covers nothing: not an overlay.
      if (cls === 'disclosure') continue;
      if (cls) ids.add(cls);
      else untagged.push(f);
    }
  }
  return { ids, untagged };
}

/** Page-side: counts blackout requests the moment the page sends them. */
const COUNT_BLACKOUTS = `
window.__blackouts = 0;
const realFetch = window.fetch.bind(window);
window.fetch = (input, init) => {
  const url = typeof input === 'string' ? input : input.url;
  if (/\\/api\\/blackout$/.test(url) && (init?.method ?? 'GET') === 'POST') window.__blackouts += 1;
  return realFetch(input, init);
};
`;

const sent = (page: Page) => page.evaluate<number>('window.__blackouts');

/** Runs one press and proves it sent exactly one blackout, which the host answered. */
async function pressSendsOne(page: Page, press: () => Promise<void>, what: string): Promise<void> {
  const before = await sent(page);
  const answered = page.waitForResponse((r) => r.url().endsWith('/api/blackout') && r.status() === 200);
  await press();
  await answered;
  expect(await sent(page), what).toBe(before + 1);
}

/**
 * The button is on screen and nothing covers its centre, as the page is (a click would
 * scroll it into view first, hiding a button that scrolled away with the page).
 */
async function reachable(button: ReturnType<Page['locator']>, what: string): Promise<void> {
  const page = button.page();
  // A dialog whose content is still arriving (a lazily loaded part, a list) grows and moves
  // while it is centred: measure once it has settled (the same box across two frames).
  let box = await button.boundingBox();
  for (let i = 0; i < 100; i++) {
    await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
    const again = await button.boundingBox();
    if (JSON.stringify(again) === JSON.stringify(box)) break;
    box = again;
  }
  const view = page.viewportSize();
  expect(box && view, what).toBeTruthy();
  const { x, y, width, height } = box!;
  const inView = x >= 0 && y >= 0 && x + width <= view!.width && y + height <= view!.height;
  expect(inView, `${what}: the Blackout button is on screen (${JSON.stringify(box)})`).toBe(true);
  const testId = await button.getAttribute('data-testid');
  // What a finger at its centre would touch (a string: this tsconfig has no DOM types).
  const top = await page.evaluate(
    `document.elementFromPoint(${x + width / 2}, ${y + height / 2})?.closest('[data-testid="${testId}"]') != null`,
  );
  expect(top, `${what}: nothing covers the Blackout button`).toBe(true);
  // …and the button covers no other control (issue 35: a floating one sat on Run and Move).
  expect(await coveredByBlackout(page, testId ?? ''), `${what}: controls under the Blackout button`).toEqual(
    [],
  );
}

let b: BrowserHandle;
/** What the page fetched that failed, since the browser opened (for a failure's message). */
const failedRequests: string[] = [];

/** The page's state when an overlay did not open: what a failure message needs to be read. */
async function diagnose(page: Page): Promise<string> {
  const state = await page.evaluate(`({
    dialogs: [...document.querySelectorAll('dialog')].map((d) => (d.dataset.testid ?? '?') + (d.open ? ':open' : '')),
    disabled: [...document.querySelectorAll('button')].filter((x) => x.disabled).map((x) => x.textContent.trim()),
    active: document.activeElement?.outerHTML.slice(0, 120) ?? null,
    toasts: [...document.querySelectorAll('.toast')].map((t) => t.textContent.trim()),
  })`);
  return JSON.stringify({ state, errors: b.errors, errorToasts: b.errorToasts, failedRequests });
}

async function proveOverlay(page: Page, h: Harness, id: string, o: Overlay, width: number): Promise<void> {
  await page.goto(h.url + '/');
  await row0(page).waitFor();
  await o.open(page, h);
  const what = `${id} at ${width} px`;
  if (o.kind === 'dialog') {
    const dialog = page.locator(`dialog[open][data-testid="${id}"]`);
    await dialog.waitFor({ timeout: 20_000 }).catch(async (err: unknown) => {
      throw new Error(`${what}: the dialog did not open — ${await diagnose(page)}`, { cause: err });
    });
    const button = dialog.getByTestId('blackout-dialog');
    await reachable(button, what);
    await pressSendsOne(page, () => button.click(), `${what}: click`);
    // The key: focus on the dialog itself (not a text field, where `b` is a letter).
    await dialog.locator('.modal-head h2').click();
    await pressSendsOne(page, () => page.keyboard.press('b'), `${what}: key b`);
    expect(await dialog.isVisible(), `${what}: the dialog stays open`).toBe(true);
  } else if (o.kind === 'popover') {
    await page.locator(`#${id}:popover-open`).waitFor();
    await reachable(page.getByTestId('blackout'), what);
    await pressSendsOne(page, () => page.getByTestId('blackout').click(), `${what}: click`);
    await pressSendsOne(page, () => page.keyboard.press('b'), `${what}: key b`);
  } else {
    const menu = page.locator(`details.${id}[open]`);
    await menu.waitFor();
    await reachable(page.getByTestId('blackout'), what);
    await pressSendsOne(page, () => page.getByTestId('blackout').click(), `${what}: click`);
    // A click outside a menu closes it (the Columns menu does): open it again for the key.
    if ((await menu.count()) === 0) await page.locator(`details.${id} summary`).first().click();
    await menu.waitFor();
    await pressSendsOne(page, () => page.keyboard.press('b'), `${what}: key b`);
  }
}

beforeAll(async () => {
  b = await openBrowser({ width: 1280, height: 800 });
  await b.page.addInitScript(COUNT_BLACKOUTS);
  b.page.on('requestfailed', (r) => failedRequests.push(`${r.url()} ${r.failure()?.errorText ?? ''}`));
  b.page.on('response', (r) => {
    if (r.status() >= 400) failedRequests.push(`${r.url()} ${r.status()}`);
  });
});
afterAll(async () => {
  await b?.close();
});
beforeEach(async () => {
  await b.page.goto('about:blank');
  b.errors.length = 0;
  b.errorToasts.length = 0;
});

describe('blackout everywhere', () => {
  it('the-registry-names-every-dialog-and-menu-the-ui-has', async () => {
    const { ids, untagged } = await overlaysInSource();
    expect(untagged, 'every <Modal> has a testId and every <details> a class').toEqual([]);
    // A new dialog or menu must be added to OVERLAYS (and so proven) before this passes.
    expect([...ids].sort()).toEqual(Object.keys(OVERLAYS).sort());
  });

  for (const width of [1280, 390]) {
    it(`blackout-sends-exactly-one-request-with-every-overlay-open-at-${width}px`, async () => {
      await withHost({ nodes: 4, seed: 9 }, async (h) => {
        await discoverAll(h);
        await h.post('/api/groups/create', { name: 'Left' });
        await h.post('/api/groups/create', { name: 'Right' });
        // One low battery: the low-battery banner and its dialog exist.
        const node = h.host.sim!.fleet.nodes[0]!;
        node.vbatMv = 3250;
        await runTask(h, '/api/status', {});
        const page = b.page;
        await page.setViewportSize({ width, height: width < 500 ? 844 : 800 });
        for (const [id, o] of Object.entries(OVERLAYS)) await proveOverlay(page, h, id, o, width);
        if (width === 390) await b.shot('blackout-390-confirm');

        // Every page, scrolled to its end: the status bar's Blackout is still in reach.
        for (const path of ['', 'scenes', 'health', 'log', 'race', 'help']) {
          await page.goto(`${h.url}/${path}`);
          await page.getByTestId('blackout').waitFor();
          await page.evaluate(`
            document.scrollingElement.scrollTo(0, document.scrollingElement.scrollHeight);
            for (const el of document.querySelectorAll('.app, main, .main, .work')) el.scrollTo(0, el.scrollHeight);
          `);
          await reachable(page.getByTestId('blackout'), `page /${path} at ${width} px, scrolled`);
          await pressSendsOne(
            page,
            () => page.getByTestId('blackout').click(),
            `page /${path} at ${width} px`,
          );
        }

        // `b` typed into a text field is a letter, not a blackout.
        await page.goto(h.url + '/');
        await row0(page).waitFor();
        await page.getByTestId('new-group').click();
        const name = page.getByTestId('new-group-dialog').locator('input[name=name]');
        const before = await sent(page);
        await name.fill('');
        await name.press('b');
        expect(await name.inputValue()).toBe('b');
        expect(await sent(page)).toBe(before);
        // Not b.errors: a scene draft whose Groups target is still empty asks for an
        // estimate the host refuses (400) — logged by the browser, not this scenario's subject.
        expect(b.errorToasts).toEqual([]);
      });
    });
  }

  // During a task, behind a locked dialog: a firmware update whose node never answers.
  for (const width of [1280, 390]) {
    it(`blackout-cancels-a-running-firmware-update-from-its-locked-dialog-at-${width}px`, async () => {
      await withOtaRig({ nodes: 1 }, async (rig) => {
        const page = b.page;
        await page.setViewportSize({ width, height: width < 500 ? 844 : 800 });
        for (const a of rig.addrs) {
          const node = rig.wled.node(rig.macOf[a] ?? '');
          node.otaSameSubnet = false;
          node.knobs.stallUpdate = true;
        }
        await page.goto(rig.h.url + '/');
        await row0(page).locator('input[type=checkbox]').check();
        await click(page, 'Firmware…');
        const fw = page.getByTestId('firmware-dialog');
        await fw.getByTestId('planned').getByText('1 device planned').waitFor();
        await fw.getByLabel('Firmware file').setInputFiles({
          name: 'wled_slow.bin',
          mimeType: 'application/octet-stream',
          buffer: makeFirmware({ size: 400_000 }),
        });
        await page.locator('.toast', { hasText: /Uploaded wled_slow\.bin/ }).waitFor();
        await fw.locator('input[name=baseUrl]').fill(rig.wled.url);
        await fw.getByRole('button', { name: 'Start update' }).click();
        await page.getByTestId('confirm').getByRole('button', { name: 'Start update' }).click();
        await fw
          .locator('.fw-row[data-state=running]', { hasText: 'UPLOAD_FW' })
          .waitFor({ timeout: 60_000 });
        // Locked: no ×, Esc does nothing — Blackout still works, and stops the update.
        expect(await fw.getByRole('button', { name: 'Close' }).count()).toBe(0);
        await fw.locator('.modal-head h2').click();
        await pressSendsOne(page, () => page.keyboard.press('b'), `firmware run at ${width} px: key b`);
        await page.locator('.toast', { hasText: /Blackout: all nodes sent off — .*cancelled/ }).waitFor();
        await fw
          .getByTestId('fw-header')
          .getByText(/^Cancelled/)
          .waitFor({ timeout: 60_000 });
        await pressSendsOne(
          page,
          () => fw.getByTestId('blackout-dialog').click(),
          `firmware run at ${width} px: click`,
        );
        for (const a of rig.addrs) expect(rig.wled.node(rig.macOf[a] ?? '').flashed).toEqual([]);
        expect(b.errors).toEqual([]);
        await page.goto('about:blank');
      });
    });
  }
});
