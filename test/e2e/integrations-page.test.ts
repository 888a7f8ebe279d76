/**
 * The Integrations page (issue 38, part 3) at 1280 and 390 px: reached from the menu band,
 * it shows the MQTT bridge connected to its broker (no password in the URL), its counters
 * moving live (a malformed command counted as refused, without a reload), the broker's loss
 * (not connected, the last error) and its return, and the OSC card; nothing wider than a
 * phone, and Blackout reachable and uncovered. Screenshots go to /tmp/shots-mqtt/.
 */
import { mkdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withHost } from '../integration/harness.ts';
import { startBroker, Watcher, type Broker } from '../mqtt/broker.ts';
import { coveredByBlackout } from './blackout-rect.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';

const SHOTS = '/tmp/shots-mqtt';
let b: BrowserHandle;
let broker: Broker;
beforeAll(async () => {
  b = await openBrowser({ width: 1280, height: 800 });
  await mkdir(SHOTS, { recursive: true });
});
afterAll(async () => {
  await b?.close();
});

describe('integrations page', () => {
  for (const width of [1280, 390]) {
    it(`shows-mqtt-and-osc-live-at-${width}px`, async () => {
      broker = await startBroker();
      const w = await Watcher.connect(broker.url, []);
      try {
        await withHost(
          {
            nodes: 2,
            osc: { port: 0 },
            mqtt: {
              url: broker.url.replace('mqtt://', 'mqtt://lightnet:hunter2@'),
              baseTopic: 'lightnet',
              discoveryPrefix: 'homeassistant',
              discovery: true,
              backoffMs: 100,
            },
          },
          async (h) => {
            const page = b.page;
            await page.goto('about:blank');
            b.errors.length = 0;
            b.errorToasts.length = 0;
            await page.setViewportSize({ width, height: width < 500 ? 844 : 800 });
            await page.goto(h.url + '/');
            await page.locator('nav.pages a', { hasText: 'Integrations' }).click();
            const card = page.getByTestId('mqtt-card');
            await card.waitFor();
            await expect.poll(() => page.getByTestId('mqtt-connection').textContent()).toBe('connected');
            const shown = await page.getByTestId('mqtt-broker').textContent();
            expect(shown).toContain(`127.0.0.1:${broker.port}`);
            expect(shown).not.toContain('hunter2');
            expect(await page.getByTestId('osc-card').textContent()).toMatch(/listening on UDP \d+/);

            // A malformed command: counted as refused, on the card without a reload.
            await w.publish('lightnet/bridge/request/blackout', 'not json');
            await expect
              .poll(() => card.locator('[data-counter=refused] dd').textContent(), { timeout: 20_000 })
              .toBe('1');
            expect(await card.locator('[data-counter=refused]').getAttribute('class')).toBe('ig-bad');

            // Nothing wider than the window; Blackout on screen and covering nothing.
            const overflow = await page.evaluate(
              '(() => document.querySelector("[data-testid=integrations-page]").scrollWidth - document.querySelector("[data-testid=integrations-page]").clientWidth)()',
            );
            expect(overflow).toBeLessThanOrEqual(0);
            expect(await page.getByTestId('blackout').isVisible()).toBe(true);
            expect(await coveredByBlackout(page, 'blackout')).toEqual([]);
            await page.screenshot({ path: `${SHOTS}/integrations-${width}.png`, fullPage: true });

            // The broker goes away: the card says so (live), then comes back by itself.
            await broker.kill();
            await expect
              .poll(() => page.getByTestId('mqtt-connection').textContent(), { timeout: 20_000 })
              .toBe('not connected — reconnecting');
            await page.getByTestId('mqtt-last-error').waitFor({ timeout: 20_000 });
            await page.screenshot({ path: `${SHOTS}/integrations-lost-${width}.png`, fullPage: true });
            await broker.restart();
            await expect
              .poll(() => page.getByTestId('mqtt-connection').textContent(), { timeout: 30_000 })
              .toBe('connected');
            expect(await card.locator('[data-counter=reconnects] dd').textContent()).toBe('1');
            expect(b.errors).toEqual([]);
            expect(b.errorToasts).toEqual([]);
          },
        );
      } finally {
        await w.close();
        await broker.stop();
      }
    });
  }
});
