/**
 * The inline script index.html starts the first lists with (ui/src/early.ts), run as the
 * browser runs it — a classic script in a page whose `<base href>` is the host's prefix —
 * with fetch recorded; and takeEarly, the app's side, handing each answer out once.
 */
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { EARLY_PATHS, earlyScript, takeEarly } from '../../ui/src/early.ts';

interface Page {
  window: Record<string, unknown>;
  fetched: { url: string; init: unknown }[];
}

function runIn(pathname: string, base = 'http://pi.local:5000/lightnet/'): Page {
  const fetched: Page['fetched'] = [];
  const window: Record<string, unknown> = {};
  runInNewContext(earlyScript(), {
    window,
    URL,
    location: { pathname },
    document: { baseURI: base },
    fetch: (url: string, init: unknown) => {
      fetched.push({ url, init });
      return Promise.resolve(new Response(JSON.stringify({ url })));
    },
  });
  return { window, fetched };
}

const holder = globalThis as Record<string, unknown>;
afterEach(() => {
  delete holder.__lightnetEarly;
});

describe('early lists', () => {
  it('the-inline-script-asks-for-every-first-list-under-the-base-the-device-list-first', () => {
    const page = runIn('/lightnet/');
    expect(page.fetched.map((f) => f.url)).toEqual(
      EARLY_PATHS.map((p) => `http://pi.local:5000/lightnet/api/${p}`),
    );
    expect(page.fetched[0]!.url).toMatch(/\/api\/devices$/);
    for (const f of page.fetched) expect(f.init).toEqual({ credentials: 'same-origin' });
    expect(Object.keys(page.window.__lightnetEarly as object)).toEqual([...EARLY_PATHS]);
    // A client route below another prefix (RotorHazard's proxy keeps /lightnet; a bare host has none).
    expect(runIn('/scenes', 'http://laptop:5077/').fetched[0]!.url).toBe('http://laptop:5077/api/devices');
  });

  it('the-login-page-sends-nothing', () => {
    for (const path of ['/lightnet/login', '/lightnet/login/', '/login']) {
      const page = runIn(path);
      expect(page.fetched, path).toEqual([]);
      expect(page.window.__lightnetEarly, path).toBeUndefined();
    }
  });

  it('each-early-answer-is-taken-once-and-a-failed-one-is-not-left-unhandled', async () => {
    const page = runIn('/lightnet/');
    holder.__lightnetEarly = page.window.__lightnetEarly;
    const first = takeEarly('devices');
    expect(first).toBeDefined();
    expect(await (await first!).json()).toEqual({ url: 'http://pi.local:5000/lightnet/api/devices' });
    expect(takeEarly('devices')).toBeUndefined();
    expect(takeEarly('log')).toBeUndefined();
    expect(takeEarly('groups')).toBeDefined();

    // A request that fails before the app takes it: no unhandled rejection, and the app
    // still sees the failure when it does.
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const failing: Record<string, unknown> = {};
      runInNewContext(earlyScript(), {
        window: failing,
        URL,
        location: { pathname: '/' },
        document: { baseURI: 'http://h/' },
        fetch: () => Promise.reject(new TypeError('Failed to fetch')),
      });
      await new Promise((r) => setTimeout(r, 10));
      expect(unhandled).toEqual([]);
      holder.__lightnetEarly = failing.__lightnetEarly;
      await expect(takeEarly('scenes')).rejects.toThrow('Failed to fetch');
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('without-the-inline-script-there-is-nothing-to-take', () => {
    expect(takeEarly('devices')).toBeUndefined();
  });
});
