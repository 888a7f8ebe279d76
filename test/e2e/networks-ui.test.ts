/**
 * The UI of several gateways (issue 26) in the real browser, against the host running two
 * (or three, or one) simulated gateways: a gateway pill per network whose colour follows
 * its gateway (unplugged → red, back → green), a banner naming the network of a gateway
 * that is down or missing and one for a gateway in no network, the Networks dialog with
 * every network and its counts, the Network column and filter, the networks of each group
 * in the sidebar, the device detail's network — at 1280 and 390 px. With one gateway none
 * of it shows (but the Settings entry to the dialog).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { describeRf, findChannel } from '../../src/domain/rf-channels.ts';
import type { RfConfig } from '../../src/protocol/types.ts';
import type { SimOnMemory } from '../../src/sim/sim-host.ts';
import { withHost, type Harness } from '../integration/harness.ts';
import { discoverAll, devices } from '../integration/host/helpers.ts';
import type { Route } from 'playwright-core';
import { openBrowser, type BrowserHandle } from './browser.ts';
import { testTempDir } from '../temp-dir.ts';

type Page = BrowserHandle['page'];

interface NetworkRow {
  id: number;
  name: string;
  gateway_mac: string | null;
  state: string;
  device_count: number;
  online_count: number;
  rf: RfConfig | null;
  gateway: { port: string | null } | null;
}

const networks = async (h: Harness) =>
  (
    await h.get<{ networks: NetworkRow[]; unassigned: { gateway_mac: string | null; label: string }[] }>(
      '/api/networks',
    )
  ).body;

const coloned = (mac: string): string => mac.match(/.{2}/g)!.join(':');

/** The simulated gateway of a network, by its MAC. */
function simOf(h: Harness, n: NetworkRow): SimOnMemory {
  const s = h.host.sims.find((x) => x.fleet.gateway.mac.replace(/:/g, '') === n.gateway_mac);
  if (!s) throw new Error(`no simulated gateway for ${n.name}`);
  return s;
}

/** Polls a browser-side check against a fresh host answer (counts move while nodes answer). */
async function eventually(check: () => Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Nothing on the page is wider than the window (a phone never scrolls sideways). */
async function noSidewaysScroll(page: Page, what: string): Promise<void> {
  const over = await page.evaluate<number>('document.documentElement.scrollWidth - innerWidth');
  expect(over, `${what}: the page is wider than the window`).toBeLessThanOrEqual(0);
}

/** Every element matched lies inside the window's width. */
async function insideWindow(page: Page, selector: string, what: string): Promise<void> {
  const width = page.viewportSize()!.width;
  const boxes = await page.locator(selector).evaluateAll((els) =>
    els.map((e) => {
      const r = e.getBoundingClientRect();
      return { left: r.left, right: r.right };
    }),
  );
  expect(boxes.length, `${what}: shown`).toBeGreaterThan(0);
  for (const b of boxes) expect(b.left >= 0 && b.right <= width, `${what}: ${JSON.stringify(b)}`).toBe(true);
}

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
  b.errorToasts.length = 0;
});

describe('networks in the UI', () => {
  for (const width of [1280, 390]) {
    it(`two-gateways-a-pill-each-unplugged-turns-red-with-a-banner-naming-its-network-at-${width}px`, async () => {
      await withHost({ nodes: 4, seed: 5, simGateways: 2 }, async (h) => {
        await discoverAll(h, { newGroupName: 'Track' });
        const page = b.page;
        await page.setViewportSize({ width, height: width < 500 ? 844 : 800 });
        await page.goto(h.url + '/');
        const list = (await networks(h)).networks;
        expect(list.map((n) => n.name)).toEqual(['Network 1', 'Network 2']);

        // One pill per network, the single gateway pill gone; hover names MAC, port, channel.
        for (const n of list) {
          const pill = page.getByTestId(`network-pill-${n.id}`);
          await pill.getByText(n.name, { exact: true }).waitFor();
          expect(['good', 'tx']).toContain(await pill.getAttribute('data-tone'));
          const title = (await pill.getAttribute('title')) ?? '';
          expect(title).toContain(`Gateway MAC ${coloned(n.gateway_mac!)}`);
          expect(title).toContain(`Port ${n.gateway!.port}`);
          expect(title).toContain(describeRf(n.rf!));
        }
        expect(await page.getByTestId('gateway-pill').count()).toBe(0);
        // The first network sits on the table's channel 1, named as the firmware names it.
        expect(describeRf(list[0]!.rf!)).toBe('EU868 ch 1 · 867.7 MHz');
        await insideWindow(page, '[data-testid^=network-pill-]', `pills at ${width} px`);

        // The Networks dialog, from a pill: both networks with their gateway, channel and counts.
        await page.getByTestId('network-pill-2').click();
        const dialog = page.locator('dialog[open][data-testid=networks-dialog]');
        await dialog.waitFor();
        for (const n of list) {
          const card = dialog.getByTestId(`network-card-${n.id}`);
          await card.getByText(n.name, { exact: true }).waitFor();
          await card
            .getByTestId('network-gateway')
            .getByText(coloned(n.gateway_mac!), { exact: false })
            .waitFor();
          await card.getByTestId('network-channel').getByText(describeRf(n.rf!)).waitFor();
          await eventually(async () => {
            const fresh = (await networks(h)).networks.find((x) => x.id === n.id)!;
            const text = await card.getByTestId('network-counts').textContent();
            return text === `${fresh.device_count} devices, ${fresh.online_count} online`;
          }, `${n.name}'s counts in the dialog`);
        }
        expect(await dialog.getByTestId('unassigned-gateway').count()).toBe(0);
        await noSidewaysScroll(page, `networks dialog at ${width} px`);
        await b.shot(`networks-dialog-${width}`);
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });

        // The devices of network 2 only, through the filter; the sidebar says where the group is.
        const rows = await devices(h);
        const onTwo = rows.filter((d) => d.network_id === 2).map((d) => d.addr);
        expect(onTwo.length).toBeGreaterThan(0);
        await page
          .getByTestId('network-filter')
          .selectOption({ label: `Network 2 (${list[1]!.device_count})` });
        const tableRows = page.locator('[data-testid=device-table] [role=row][data-addr]');
        await eventually(async () => {
          const shown = await tableRows.evaluateAll((els) => els.map((e) => e.getAttribute('data-addr')));
          return shown.length === onTwo.length && shown.every((a) => onTwo.includes(a!));
        }, 'the filter to show network 2 only');
        await page.getByTestId('network-filter').selectOption({ label: 'All networks' });
        const trackChips = page.locator('.group-row', { hasText: 'Track' }).getByTestId('group-networks');
        for (const n of list) {
          const members = rows.filter((d) => d.network_id === n.id && d.groupId === 1).length;
          if (members > 0)
            await trackChips.locator(`[data-network="${n.id}"]`, { hasText: String(members) }).waitFor();
        }

        // The Network column: offered in the Columns menu, each row naming its network.
        if (width === 1280) {
          await page.locator('.columns-menu summary').click();
          const box = page.locator('.columns-menu').getByRole('checkbox', { name: 'Network' });
          if (!(await box.isChecked())) await box.check();
          await page.keyboard.press('Escape');
          const first = rows.find((d) => d.network_id === 2)!;
          await page
            .locator(`[data-testid=device-table] [role=row][data-addr="${first.addr}"] .c-network`)
            .getByText('Network 2', { exact: true })
            .waitFor();
        }

        // The device detail names the device's network.
        if (width === 1280) {
          const d = rows.find((x) => x.network_id === 2)!;
          await page.getByRole('link', { name: 'Health' }).click();
          await page.getByTestId('health-table').getByRole('button', { name: d.name, exact: true }).click();
          const detail = page.locator('dialog[open][data-testid=device-detail]');
          await detail.getByTestId('device-network').getByText('Network 2', { exact: true }).waitFor();
          await page.keyboard.press('Escape');
          await detail.waitFor({ state: 'detached' });
        }

        // Network 2's gateway unplugged: its pill turns red, a banner names it and its devices.
        const two = list[1]!;
        simOf(h, two).fleet.faults.dropLink();
        const pill2 = page.getByTestId('network-pill-2');
        await page.locator('[data-testid=network-pill-2][data-tone=bad]').waitFor({ timeout: 30_000 });
        await pill2.getByText('DOWN').waitFor();
        expect(['good', 'tx']).toContain(await page.getByTestId('network-pill-1').getAttribute('data-tone'));
        const banner = page.getByTestId('banner-network-2');
        await banner
          .getByText(/Gateway of Network 2 is not connected — its \d+ devices? (is|are) unreachable/)
          .waitFor();
        expect(await banner.textContent()).toContain(`its ${two.device_count} device`);
        // The single aggregate banner makes way for the one that names the network.
        expect(await page.getByTestId('banner-gateway').count()).toBe(0);
        expect(await page.getByTestId('banner-network-1').count()).toBe(0);
        await insideWindow(page, '[data-testid=banner-network-2]', `banner at ${width} px`);
        await noSidewaysScroll(page, `unplugged at ${width} px`);
        await b.shot(`networks-unplugged-${width}`);

        // The dialog says it too.
        await pill2.click();
        await dialog.getByTestId('network-card-2').getByTestId('network-state').getByText('DOWN').waitFor();
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });

        // Plugged back in: green again, the banner gone.
        simOf(h, two).fleet.faults.restoreLink();
        await page
          .locator('[data-testid=network-pill-2][data-tone=good], [data-testid=network-pill-2][data-tone=tx]')
          .waitFor({ timeout: 60_000 });
        await banner.waitFor({ state: 'detached' });
        expect(b.errors).toEqual([]);
      });
    });
  }

  it('a-networks-event-and-refresh-token-from-the-host-are-picked-up', async () => {
    await withHost({ nodes: 2, seed: 6, simGateways: 2 }, async (h) => {
      const page = b.page;
      await page.setViewportSize({ width: 1280, height: 800 });
      // The page's stream, reachable from the test; and a watch on the banner that counts
      // every time it goes away once shown (a late stale answer would remove it).
      await page.addInitScript(`
        const Real = window.EventSource;
        window.EventSource = class extends Real {
          constructor(...a) { super(...a); window.__stream = this; }
        };
        window.__bannerGone = 0;
        addEventListener('DOMContentLoaded', () => {
          let shown = false;
          new MutationObserver(() => {
            const now = document.querySelector('[data-testid=banner-unassigned-gateway]') !== null;
            if (shown && !now) window.__bannerGone++;
            shown = now;
          }).observe(document.body, { childList: true, subtree: true });
        });
      `);
      // The host's list as the page asks for it: held while `holding` (to be answered in
      // the order the test chooses), and from the event on with the gateway the event names
      // (the host's state changed then; an answer made before it is the old state).
      const rf = findChannel('EU868', 3)!.rf;
      const spare = { label: 'tcp:10.0.0.9:7000', gateway_mac: 'AABBCCDDEEFF', ready: true, rf };
      let after = false;
      let holding = false;
      const held: { route: Route; after: boolean }[] = [];
      let onHeld: (() => void) | null = null;
      const answer = async (route: Route, late: boolean): Promise<void> => {
        const body = (await networks(h)) as Record<string, unknown>;
        await route.fulfill({ json: late ? { ...body, unassigned: [spare] } : body });
      };
      await page.route(
        (u) => u.pathname.endsWith('/api/networks'),
        async (route) => {
          if (holding) {
            held.push({ route, after });
            onHeld?.();
          } else await answer(route, after);
        },
      );
      // The route answers from this host: gone with it (the page is the next test's too).
      onTestFinished(() => page.unrouteAll({ behavior: 'ignoreErrors' }));
      await page.goto(h.url + '/');
      await page.getByTestId('network-pill-2').waitFor();
      const send = (type: string, data: unknown) =>
        page.evaluate(
          `window.__stream.dispatchEvent(new MessageEvent(${JSON.stringify(type)}, { data: ${JSON.stringify(JSON.stringify(data))} }))`,
        );
      // The refresh token reloads the list; its answer is held, still out when the event comes.
      holding = true;
      const reload = new Promise<void>((resolve) => (onHeld = resolve));
      await send('refresh', { what: ['networks'] });
      await reload;
      // The event's list is applied as it comes: here it names a gateway in no network.
      after = true;
      await send('networks', { networks: (await networks(h)).networks, unassigned: [spare] });
      const banner = page.getByTestId('banner-unassigned-gateway');
      await banner
        .getByText('A gateway (MAC AA:BB:CC:DD:EE:FF, EU868 ch 3 · 868.7 MHz) belongs to no network', {
          exact: false,
        })
        .waitFor();
      // Now the answers made before the event land (under load they did, and the banner went).
      expect(held.filter((x) => !x.after).length).toBeGreaterThan(0);
      const finished = held.map((x) => page.waitForEvent('requestfinished', (r) => r === x.route.request()));
      holding = false;
      for (const x of held.splice(0)) await answer(x.route, x.after);
      await Promise.all(finished);
      // One more token: its answer (the host's state now) is applied after those, by order.
      const next = page.waitForResponse((r) => r.url().endsWith('/api/networks'));
      await send('refresh', { what: ['networks'] });
      await next;
      await banner.waitFor();
      expect(
        await page.evaluate('window.__bannerGone'),
        'the banner went away when an old answer landed',
      ).toBe(0);
      expect(b.errors).toEqual([]);
    });
  });

  it('a-gateway-in-no-network-and-a-missing-gateway-are-named-in-banners', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lightnet-e2e-networks-'));
    try {
      // First start: two gateways become networks 1 and 2, their nodes are found.
      await withHost({ nodes: 3, seed: 3, simGateways: 2, dataDir: dir }, async (h) => {
        await discoverAll(h);
      });
      const page = b.page;
      await page.setViewportSize({ width: 1280, height: 800 });
      // Three gateways where two networks exist: the third belongs to none.
      await withHost({ nodes: 3, seed: 3, simGateways: 3, dataDir: dir }, async (h) => {
        await eventually(
          async () => (await networks(h)).unassigned.some((g) => g.gateway_mac),
          'the third gateway to identify',
        );
        const free = (await networks(h)).unassigned[0]!;
        await page.goto(h.url + '/');
        const banner = page.getByTestId('banner-unassigned-gateway');
        await banner.getByText(`A gateway (MAC ${coloned(free.gateway_mac!.replace(/:/g, ''))}, `).waitFor();
        await banner.getByText('belongs to no network — it carries no traffic', { exact: false }).waitFor();
        await banner.getByRole('button', { name: 'Assign…' }).click();
        const dialog = page.locator('dialog[open][data-testid=networks-dialog]');
        const card = dialog.getByTestId('unassigned-gateway');
        await card.getByText(free.label, { exact: true }).waitFor();
        // Its Assign form is open: the banner's button is the action, not a way to find it.
        await card.getByTestId('assign-form').waitFor();
        await b.shot('networks-unassigned-1280');
        await page.keyboard.press('Escape');
      });
      // One gateway where two networks exist: network 2's gateway is missing.
      await withHost({ nodes: 3, seed: 3, dataDir: dir }, async (h) => {
        const two = (await networks(h)).networks.find((n) => n.id === 2)!;
        expect(two.state).toBe('missing');
        await page.setViewportSize({ width: 390, height: 844 });
        await page.goto(h.url + '/');
        await page.locator('[data-testid=network-pill-2][data-tone=bad]').getByText('MISSING').waitFor();
        await page
          .getByTestId('banner-network-2')
          .getByText(`Gateway of Network 2 is not connected — its ${two.device_count} device`, {
            exact: false,
          })
          .waitFor();
        await noSidewaysScroll(page, 'missing gateway at 390 px');
        await b.shot('networks-missing-390');
      });
    } finally {
      await b.page.setViewportSize({ width: 1280, height: 800 });
      await rm(dir, { recursive: true, force: true });
    }
  });

  for (const width of [1280, 390]) {
    it(`a-spare-gateway-beside-a-working-network-is-amber-and-assignable-never-down-at-${width}px`, async () => {
      const dir = await testTempDir('lightnet-e2e-spare-');
      // `npm start`, then `npm start -- --sim-gateways 2` on the same folder (the README's
      // suggestion): the known gateway carries the whole fleet, the second is in no network.
      await withHost({ nodes: 3, seed: 8, dataDir: dir }, async (h) => {
        await eventually(
          async () => (await networks(h)).networks[0]?.state === 'ready',
          'network 1 bound on the first start',
        );
      });
      await withHost({ nodes: 3, seed: 8, simGateways: 2, dataDir: dir }, async (h) => {
        await eventually(
          async () => (await networks(h)).unassigned.some((g) => g.gateway_mac),
          'the second gateway to identify',
        );
        const free = (await networks(h)).unassigned[0]!;
        const mac = coloned(free.gateway_mac!.replace(/:/g, ''));
        const page = b.page;
        await page.setViewportSize({ width, height: width < 500 ? 844 : 800 });
        await page.goto(h.url + '/');
        await page.getByTestId('banner-unassigned-gateway').waitFor();
        // The network's pill says what its gateway does (never GATEWAY DOWN), and its
        // tooltip blames no one.
        const pill = page.getByTestId('gateway-pill');
        await pill.locator('.dot').waitFor();
        const word = (await pill.locator('span').nth(1).textContent()) ?? '';
        expect(['IDLE', 'TX', 'RX', 'RX_WINDOW']).toContain(word);
        expect(await pill.getAttribute('class')).not.toMatch(/\bbad\b/);
        expect((await pill.getAttribute('title')) ?? '').not.toMatch(/not ready|Last error/);
        // The spare: amber, named by its MAC, and a click away from being assigned.
        const spare = page.getByTestId('unassigned-pill');
        expect(await spare.getAttribute('data-tone')).toBe('warn');
        expect(await spare.textContent()).toContain('UNASSIGNED');
        expect((await spare.getAttribute('title')) ?? '').toContain(`Gateway ${mac} on ${free.label}`);
        expect(await page.getByRole('alert').count(), 'no red banner').toBe(0);
        await insideWindow(page, '.status-bar .pill', `status bar at ${width} px`);
        await noSidewaysScroll(page, `a spare gateway at ${width} px`);
        await b.shot(`networks-spare-${width}`);
        await spare.click();
        const dialog = page.locator('dialog[open][data-testid=networks-dialog]');
        const form = dialog.getByTestId('unassigned-gateway').getByTestId('assign-form');
        await form.waitFor();
        await dialog.getByTestId('network-card-1').getByTestId('network-state').getByText(word).waitFor();
        if (width === 1280) {
          // Assigned as a network of its own: two green pills, no banner.
          await form.getByLabel('Name').fill('Track B');
          await form.getByRole('button', { name: 'Assign', exact: true }).click();
          await form.waitFor({ state: 'detached' });
          await page.keyboard.press('Escape');
          await page.getByTestId('network-pill-2').getByText('Track B', { exact: true }).waitFor();
          await page.getByTestId('banner-unassigned-gateway').waitFor({ state: 'detached' });
          expect(await spare.count()).toBe(0);
        }
        expect(b.errors).toEqual([]);
      });
    });
  }

  it('a-flapping-gateway-link-raises-a-banner-naming-its-network-which-clears-once-stable', async () => {
    // The stepped clock runs an idle hour in about two seconds: a long window keeps the
    // flapping state up long enough for the browser (the rule itself is unchanged).
    const windowMs = 2 * 3_600_000;
    await withHost(
      { nodes: 2, seed: 4, overrides: { driverOptions: { unstableWindowMs: windowMs } } },
      async (h) => {
        const page = b.page;
        await page.goto(h.url + '/');
        await page.getByTestId('gateway-pill').waitFor();
        const faults = h.host.sim!.fleet.faults;
        const ready = async () =>
          (await h.get<{ gateway: { ready: boolean } }>('/api/gateway')).body.gateway.ready;
        for (let i = 1; i <= 4; i++) {
          await eventually(ready, `gateway ready before loss ${i}`);
          faults.dropLink();
          await eventually(async () => !(await ready()), `loss ${i}`);
          if (i < 4) faults.restoreLink();
        }
        // One gateway too: its banner names the network and says what to check.
        const banner = page.getByTestId('banner-unstable-1');
        await banner.waitFor();
        const text = (await banner.textContent()) ?? '';
        expect(text).toContain('Gateway of Network 1 lost its link 4 times in the last 7200 s');
        expect(text).toContain('check the USB cable, hub and power');
        await insideWindow(page, '[data-testid=banner-unstable-1]', 'unstable-link banner');
        faults.restoreLink();
        // A whole window without a loss: the banner goes by itself.
        await banner.waitFor({ state: 'detached', timeout: 90_000 });
        expect(b.errors).toEqual([]);
      },
    );
  });

  it('one-gateway-shows-nothing-new-but-the-settings-entry', async () => {
    await withHost({ nodes: 3, seed: 4 }, async (h) => {
      const rows = await discoverAll(h, { newGroupName: 'Solo' });
      expect(rows.length).toBeGreaterThan(0);
      const page = b.page;
      await page.goto(h.url + '/');
      await page.getByTestId('gateway-pill').waitFor();
      await page.locator('[data-testid=device-table] [role=row][data-addr]').first().waitFor();
      await page.locator('.group-row', { hasText: 'Solo' }).waitFor();
      expect(await page.getByTestId('network-pills').count()).toBe(0);
      expect(await page.getByTestId('network-filter').count()).toBe(0);
      expect(await page.getByTestId('group-networks').count()).toBe(0);
      expect(
        await page.locator('[data-testid^=banner-network-], [data-testid=banner-unassigned-gateway]').count(),
      ).toBe(0);
      await page.locator('.columns-menu summary').click();
      await page.locator('.columns-menu').getByRole('checkbox', { name: 'MAC' }).waitFor();
      expect(await page.locator('.columns-menu').getByRole('checkbox', { name: 'Network' }).count()).toBe(0);
      await page.keyboard.press('Escape');
      // The dialog is there from Settings, with the one network.
      await page.getByRole('button', { name: 'Settings' }).click();
      await page.getByTestId('networks-open').click();
      const dialog = page.locator('dialog[open][data-testid=networks-dialog]');
      await dialog.getByTestId('network-card-1').getByText('Network 1', { exact: true }).waitFor();
      expect(await dialog.locator('[data-testid^=network-card-]').count()).toBe(1);
      await page.keyboard.press('Escape');
      // The device detail names no network.
      await page.getByRole('link', { name: 'Health' }).click();
      await page
        .getByTestId('health-table')
        .getByRole('button', { name: rows[0]!.name, exact: true })
        .click();
      await page.locator('dialog[open][data-testid=device-detail]').waitFor();
      expect(await page.getByTestId('device-network').count()).toBe(0);
      expect(b.errors).toEqual([]);
    });
  });
});
