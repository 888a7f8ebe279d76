/**
 * The Integrations page's DMX card in the browser, on the simulator with `--dmx sacn:1`: the
 * operator patches a group as a fixture on the page (a bad address is refused with the row
 * and field named), a console (the sacn library's Sender) streams, and the live channel
 * values and the counters move without a reload. Screenshots at 1280 and 390 px (into
 * /tmp/shots-dmx), Blackout reachable at both widths.
 */
import { mkdir } from 'node:fs/promises';
import { Sender } from 'sacn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withHost } from '../integration/harness.ts';
import { discoverAll, runTask } from '../integration/host/helpers.ts';
import { coveredByBlackout } from './blackout-rect.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';

const SHOTS = '/tmp/shots-dmx';
const STARTBLOCK = [50, 51];

let b: BrowserHandle;
beforeAll(async () => {
  b = await openBrowser({ width: 1280, height: 800 });
  await mkdir(SHOTS, { recursive: true });
});
afterAll(async () => {
  await b?.close();
});

type Page = BrowserHandle['page'];
type Locator = ReturnType<Page['locator']>;
const TO_TOP = `for (const el of [document.scrollingElement, ...document.querySelectorAll('*')])
  if (el.scrollTop > 0) el.scrollTop = 0;`;
const shows = (loc: Locator, want: string | RegExp, what = String(want)) =>
  expect
    .poll(async () => (await loc.textContent({ timeout: 20_000 })) ?? '', { message: what, timeout: 20_000 })
    .toMatch(want);
const frames = (page: Page) =>
  page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');

async function shots(page: Page, name: string): Promise<void> {
  for (const [w, hgt] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width: w, height: hgt });
    await frames(page);
    await page.evaluate(TO_TOP);
    await frames(page);
    await page.screenshot({ path: `${SHOTS}/${name}-${w}.png`, fullPage: false });
    const live = page.locator('[data-testid^="dmx-live-"]').first();
    if ((await live.count()) > 0) {
      await live.scrollIntoViewIfNeeded();
      await frames(page);
      await page.screenshot({ path: `${SHOTS}/${name}-${w}-live.png`, fullPage: false });
    }
    const box = await page.getByTestId('blackout').boundingBox();
    expect(box, `Blackout on screen at ${w} px`).not.toBeNull();
    expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? 0) <= w, `Blackout within ${w} px`).toBe(
      true,
    );
    expect(await coveredByBlackout(page, 'blackout'), `${name} at ${w} px`).toEqual([]);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

describe('integrations page: DMX', () => {
  it('patches-a-group-on-the-page-and-shows-the-console-values-move', async () => {
    await withHost({ nodes: 3, seed: 4, dmx: ['sacn:1'] }, async (h) => {
      await discoverAll(h);
      expect((await h.post('/api/groups/create', { name: 'Gates' })).status).toBe(200);
      const nodes = (h.host.sim?.fleet.nodes ?? []).filter((n) => !STARTBLOCK.includes(n.devType));
      await runTask(h, '/api/devices/update-meta', { macs: nodes.map((n) => n.addr), groupId: 1 });
      const page = b.page;
      await page.goto(h.url + '/integrations');
      await page.getByRole('heading', { name: 'Integrations', level: 1 }).waitFor();
      const nav = page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Integrations' });
      expect(await nav.getAttribute('aria-current')).toBe('page');
      // MQTT is off here: its card gives the real command for each way of running the host.
      const start = page.getByTestId('mqtt-card').getByTestId('mqtt-start');
      await shows(start, /From a checkout: npm start -- --mqtt mqtt:\/\/broker:1883/);
      await shows(start, /From a release archive: bin\/lightnet --mqtt mqtt:\/\/broker:1883/);
      await shows(start, /LIGHTNET_MQTT=mqtt:\/\/broker:1883 in \/etc\/lightnet\/lightnet.env/);
      const card = page.getByTestId('dmx-card');
      await shows(card.getByTestId('dmx-state'), 'no stream yet');
      await shots(page, 'dmx-empty');

      // Patch group 1 at 510: the 8 channels would end past 512 — refused, the row named.
      await card.getByRole('button', { name: 'Add fixture' }).click();
      const row = card.getByTestId('dmx-row-0');
      // Each group once, by name; a new fixture starts on the first real group, not Unconfigured.
      expect(await row.getByLabel('Group').locator('option').allTextContents()).toEqual([
        'Unconfigured',
        'Gates (1)',
      ]);
      expect(await row.getByLabel('Group').inputValue()).toBe('1');
      await row.getByLabel('Address').fill('510');
      await shows(row.getByTestId('dmx-footprint'), '8 ch · 510–517');
      await card.getByRole('button', { name: 'Save patch' }).click();
      await shows(card.getByTestId('dmx-patch-error'), /fixtures\[0\]\.address: .*ends at 517, past 512/);
      await row.getByLabel('Address').fill('1');
      await card.getByRole('button', { name: 'Save patch' }).click();
      await expect
        .poll(async () => (await h.get<{ fixtures: unknown[] }>('/api/dmx')).body.fixtures)
        .toEqual([expect.objectContaining({ group: 1, universe: 'sacn:1', address: 1, fixture: 'full' })]);

      const s = new Sender({
        universe: 1,
        port: h.host.dmx?.ports.sacn ?? 0,
        useUnicastDestination: '127.0.0.1',
        defaultPacketOptions: { sourceName: 'QLC+ desk', priority: 100, useRawDmxValues: true },
      });
      try {
        await s.send({ payload: { 1: 200, 2: 255, 3: 0, 4: 40 } });
        await shows(card.getByTestId('dmx-value-1-dimmer'), '200');
        await shows(card.getByTestId('dmx-value-1-blue'), '40');
        await shows(card.getByTestId('dmx-state'), 'live');
        await shows(card.getByTestId('dmx-universe-sacn:1'), /QLC\+ desk \(priority 100/);
        await expect.poll(() => nodes.every((n) => n.snapshot().bri === 200), { timeout: 20_000 }).toBe(true);
        await s.send({ payload: { 1: 60, 2: 255, 3: 0, 4: 40 } });
        await shows(card.getByTestId('dmx-value-1-dimmer'), '60');
        await shots(page, 'dmx-live');

        // The operator takes the group over: the console's next change is refused, in red, with
        // its time, the group named once by its name.
        const uni = card.getByTestId('dmx-universe-sacn:1');
        const group1 = { target: { kind: 'group', id: 1 } };
        expect((await h.post('/api/control/take-over', group1)).status).toBe(200);
        await s.send({ payload: { 1: 90, 2: 255, 3: 0, 4: 40 } });
        const lastError = uni.getByTestId('dmx-last-error');
        await shows(
          lastError,
          /^Last error at \d\d:\d\d:\d\d \(\d+ s ago\): Gates \(group 1\) is held by the operator's take-over \(priority 85\)/,
        );
        expect(await lastError.getAttribute('class')).toContain('int-error');
        // Handed back, the next change goes through: the error stays, muted, as history.
        expect((await h.post('/api/control/hand-back', group1)).status).toBe(200);
        await s.send({ payload: { 1: 120, 2: 255, 3: 0, 4: 40 } });
        await expect.poll(() => nodes.every((n) => n.snapshot().bri === 120), { timeout: 20_000 }).toBe(true);
        await shows(
          lastError,
          /^Earlier error at \d\d:\d\d:\d\d \(.*commands go through since\): Gates \(group 1\) is held/,
        );
        expect(await lastError.getAttribute('data-past')).toBe('true');
        expect(await lastError.getAttribute('class')).not.toContain('int-error');
      } finally {
        s.close();
      }
      // The console stopped: after the live timeout its groups are released, and the source
      // line says who was last heard, and when — not that it is still live.
      await shows(card.getByTestId('dmx-state'), 'stopped — groups released');
      await shows(
        card.getByTestId('dmx-source'),
        /^Last source: QLC\+ desk \(priority 100, last heard \d\d:\d\d:\d\d\) · 0 live sources$/,
      );
      await shots(page, 'dmx-stopped');
    });
  });
});
