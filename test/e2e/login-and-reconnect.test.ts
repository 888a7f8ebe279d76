/**
 * Browser scenarios: the login page when the host has a password, and the UI
 * reconnecting by itself (banner, then a fresh model) when the host restarts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost } from '../../src/host/index.ts';
import { silentLogger } from '../../src/logger.ts';
import { testConfig, withHost } from '../integration/harness.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';

let b: BrowserHandle;
beforeAll(async () => {
  b = await openBrowser({ width: 1024, height: 768 });
});
afterAll(async () => {
  await b?.close();
});

describe('login and reconnect', () => {
  it('password-protected-host-shows-the-login-page-and-lets-the-operator-in', async () => {
    await withHost({ nodes: 2, password: 'track-day' }, async (h) => {
      const page = b.page;
      await page.goto(h.url + '/');
      // The host redirects to <prefix>/login, which is the UI's own page.
      await page.getByTestId('login').waitFor();
      expect(new URL(page.url()).pathname).toBe('/lightnet/login');
      await page.getByLabel('Password').fill('wrong');
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('alert').getByText('Wrong password.').waitFor();
      await b.shot('07-login');
      await page.getByLabel('Password').fill('track-day');
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByTestId('device-table').waitFor();
      await page.getByTestId('gateway-pill').getByText('sim').waitFor();
      expect(new URL(page.url()).pathname).toBe('/lightnet/');
      // Only the wrong-password 401 may have been logged by the browser.
      expect(b.errors.filter((e) => !e.includes('401'))).toEqual([]);
      // Settings → Log out ends the session: back on the login page, and the host refuses it.
      await page.getByRole('button', { name: 'Settings' }).click();
      await page.getByTestId('logout').click();
      await page.getByTestId('login').waitFor();
      await page.goto(h.url + '/');
      await page.getByTestId('login').waitFor();
      expect(new URL(page.url()).pathname).toBe('/lightnet/login');
      b.errors.length = 0;
    });
  });

  it('host-restart-shows-the-reconnect-banner-and-the-ui-recovers-by-itself', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-e2e-restart-'));
    const cfg = testConfig(dataDir, { nodes: 3, timeScale: 0.1 });
    let host = await startHost(cfg, silentLogger());
    try {
      const page = b.page;
      await page.goto(host.url + '/');
      await page.getByTestId('device-table').waitFor();
      await page.getByTestId('gateway-pill').getByText('sim').waitFor();
      const port = host.port;
      await host.close();
      await page.getByTestId('banner-link').waitFor();
      await b.shot('08-reconnecting');
      // The toast shows for 3 s: watch for it from now, not after the waits below (on a
      // loaded machine they can outlast it).
      const reestablished = page
        .locator('.toast', { hasText: 'Connection to host re-established' })
        .waitFor({ timeout: 90_000 });
      reestablished.catch(() => undefined); // awaited below; no unhandled rejection if a wait fails first
      host = await startHost({ ...cfg, port }, silentLogger());
      // A group made while the page was disconnected shows up after the reconnect.
      await fetch(host.url + '/api/groups/create', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'After Restart' }),
      });
      await page.getByTestId('banner-link').waitFor({ state: 'detached', timeout: 60_000 });
      await page.locator('.group-row', { hasText: 'After Restart' }).waitFor();
      await reestablished;
      expect(b.errorToasts).toEqual([]);
      // Failed requests while the host was down are expected; nothing else.
      expect(
        b.errors.filter((e) => !/ERR_CONNECTION_REFUSED|Failed to load resource|EventSource/.test(e)),
      ).toEqual([]);
    } finally {
      await host.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
  it('a-host-gone-during-the-first-load-is-announced-back-with-no-error-toast', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-e2e-restart-'));
    const cfg = testConfig(dataDir, { nodes: 2, timeScale: 0.1 });
    let host = await startHost(cfg, silentLogger());
    const page = b.page;
    // Every device-list read after the page's first is held until the host has gone away,
    // then fails as it would: the reload when the stream first opens is still running.
    let reads = 0;
    let release = (): void => {};
    const held = new Promise<void>((r) => (release = r));
    const aborted: Promise<void>[] = [];
    await page.route('**/api/devices', (route) => {
      if (++reads === 1) return route.continue();
      aborted.push(held.then(() => route.abort('connectionrefused')));
    });
    try {
      b.errorToasts.length = 0;
      await page.goto(host.url + '/');
      await page.getByTestId('device-table').waitFor();
      await expect.poll(() => reads, { timeout: 30_000 }).toBeGreaterThan(1);
      const port = host.port;
      await host.close();
      await page.getByTestId('banner-link').waitFor();
      const reestablished = page
        .locator('.toast', { hasText: 'Connection to host re-established' })
        .waitFor({ timeout: 90_000 });
      reestablished.catch(() => undefined);
      release();
      await Promise.all(aborted);
      await page.unroute('**/api/devices');
      host = await startHost({ ...cfg, port }, silentLogger());
      await page.getByTestId('banner-link').waitFor({ state: 'detached', timeout: 60_000 });
      await reestablished;
      expect(b.errorToasts).toEqual([]);
    } finally {
      release();
      await Promise.allSettled(aborted);
      await page.unroute('**/api/devices').catch(() => undefined);
      await host.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('a-reload-answered-booting-by-a-restarting-host-shows-no-error-toast', async () => {
    // A reload the live stream asked for can reach a restarted host that is still loading
    // its state (503 "booting"): the reconnect reloads every list once it is ready, so that
    // answer is no error to show. Here the host answers one device-list read that way.
    await withHost({ nodes: 2 }, async (h) => {
      const page = b.page;
      b.errorToasts.length = 0;
      await page.goto(h.url + '/');
      await page.getByTestId('device-table').waitFor();
      // The simulated nodes announce themselves: wait for the first in the list.
      let mac = '';
      await expect
        .poll(
          async () =>
            (mac =
              (await h.get<{ devices: { addr: string }[] }>('/api/devices')).body.devices[0]?.addr ?? ''),
          { timeout: 30_000 },
        )
        .not.toBe('');
      let answered = false;
      await page.route('**/api/devices', (route) => {
        if (answered) return route.continue();
        answered = true;
        return route.fulfill({
          status: 503,
          contentType: 'application/json',
          body: JSON.stringify({ ok: false, error: 'booting: state is still loading, retry shortly' }),
        });
      });
      try {
        // A rename changes the device list: the stream's refresh token makes the page reload it.
        await h.post('/api/devices/update-meta', { macs: [mac], name: 'Booting Probe' });
        await expect.poll(() => answered, { timeout: 30_000 }).toBe(true);
        // The next reload (after another change) shows the new name: the page kept working.
        await page.unroute('**/api/devices');
        await h.post('/api/devices/update-meta', { macs: [mac], name: 'After Booting' });
        await page.getByText('After Booting').first().waitFor({ state: 'attached' });
        expect(b.errorToasts).toEqual([]);
      } finally {
        await page.unroute('**/api/devices').catch(() => undefined);
      }
    });
  });
});
