import { describe, expect, it } from 'vitest';
import { SteppedClock } from '../../../../src/clock.ts';
import type { Radio } from '../../../../src/gateway/radio/radio.ts';
import type { GatewayReadiness } from '../../../../src/gateway/types.ts';
import { createHotplugWatcher, type ProbeScanner } from '../../../../src/host/gateways/hotplug.ts';
import { silentLogger } from '../../../../src/logger.ts';
import type { NetworksService } from '../../../../src/services/networks/index.ts';

/** A Radio with one gateway on `sim:a` whose readiness the test sets; the watcher's view only. */
function fakes(opts: { ready: boolean }) {
  const state = { ready: opts.ready, ports: ['sim:a', 'sim:other'], armed: false };
  const listeners = new Set<() => void>();
  const driver = {
    readiness: (): Pick<GatewayReadiness, 'ready' | 'gateway_mac'> => ({
      ready: state.ready,
      gateway_mac: null,
    }),
  };
  const radio = {
    live: () => [{ driver, label: 'sim:a' }],
    on: (_e: string, fn: () => void) => {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  } as unknown as Radio;
  const networks = {
    list: () => ({ networks: [], unassigned: [], alerts: [] }),
    gateways: () => [],
    onChange: () => () => undefined,
  } as unknown as NetworksService;
  const probed: string[][] = [];
  let listings = 0;
  const scanner: ProbeScanner = {
    rescan: (o) => {
      probed.push([...(o.only ?? [])]);
      return Promise.resolve({
        attached: [],
        tried: (o.only ?? []).map((path) => ({ path, result: 'no_answer' })),
      });
    },
  };
  const news = (): void => listeners.forEach((fn) => fn());
  const ports = {
    list: () => {
      listings++;
      return Promise.resolve(state.ports.map((path) => ({ path })));
    },
  };
  return { state, radio, networks, scanner, probed, news, ports, listings: () => listings };
}

/**
 * Lets the watcher's work settle between clock steps: it resolves port names on the file
 * system (real I/O), so each step waits until it is idle again.
 */
async function step(clock: SteppedClock, ms: number, w?: { idle(): Promise<void> }): Promise<void> {
  for (let t = 0; t < ms; t += 100) {
    clock.advance(100);
    await new Promise((r) => setImmediate(r));
    await w?.idle();
  }
}

describe('the hot-plug watcher', () => {
  it('lists nothing while every gateway is attached', async () => {
    const clock = new SteppedClock(1, 0);
    const f = fakes({ ready: true });
    const w = createHotplugWatcher({ ...f, armed: () => false, clock, log: silentLogger() });
    await step(clock, 10_000, w);
    expect(f.listings()).toBe(0);
    w.stop();
  });

  it('holds an appeared port while a start is armed, probes it once disarmed, never the old one', async () => {
    const clock = new SteppedClock(1, 0);
    const f = fakes({ ready: false });
    const w = createHotplugWatcher({ ...f, armed: () => f.state.armed, clock, log: silentLogger() });
    await step(clock, 500, w); // baseline: sim:a, sim:other
    f.state.armed = true;
    f.state.ports = ['sim:a', 'sim:other', 'sim:new'];
    await step(clock, 6000, w);
    expect(f.probed).toEqual([]);
    f.state.armed = false;
    await step(clock, 2500, w);
    expect(f.probed).toEqual([['sim:new']]);
    // It did not answer: not tried again, and 'sim:other' (there before) never.
    await step(clock, 6000, w);
    expect(f.probed).toEqual([['sim:new']]);
    w.stop();
  });

  it('lists every 2 s for a minute, then backs off to every 30 s; a port event lists at once and speeds it up again', async () => {
    const clock = new SteppedClock(1, 0);
    const f = fakes({ ready: false });
    let event: (() => void) | null = null;
    const at: number[] = [];
    const ports = {
      list: () => {
        at.push(clock.now());
        return f.ports.list();
      },
      watch: (fn: () => void) => {
        event = fn;
        return () => (event = null);
      },
    };
    const w = createHotplugWatcher({ ...f, ports, armed: () => false, clock, log: silentLogger() });
    await step(clock, 60_000, w);
    // The first minute: every 2 s (the baseline at 0, then 30 more).
    expect(at.length).toBeGreaterThanOrEqual(30);
    expect(at.length).toBeLessThanOrEqual(32);
    const fast = at.length;
    await step(clock, 600_000, w);
    const gaps = at
      .slice(fast - 1)
      .map((t, i, a) => (i === 0 ? 0 : t - a[i - 1]!))
      .slice(1)
      .map((g) => Math.round(g / 1000));
    // Doubling (…, 4, 8, 16 s) up to 30 s, never slower: ~21 listings in 10 min instead of 300.
    expect(gaps).toContain(4);
    expect(gaps).toContain(16);
    expect(gaps.every((g, i) => i === 0 || g >= gaps[i - 1]!)).toBe(true);
    expect(Math.max(...gaps)).toBe(30);
    expect(gaps.slice(-10).every((g) => g === 30)).toBe(true);
    expect(at.length - fast).toBeLessThanOrEqual(25);
    // A port event: a listing within the 250 ms debounce, then the 2 s pace again.
    const n = at.length;
    event!();
    await step(clock, 300, w);
    expect(at.length).toBe(n + 1);
    await step(clock, 10_000, w);
    expect(at.length - n).toBeGreaterThanOrEqual(5);
    // Attached again: no listing at all; the next loss starts at the fast pace.
    f.state.ready = true;
    f.news();
    await step(clock, 120_000, w);
    const quiet = at.length;
    await step(clock, 60_000, w);
    expect(at.length).toBe(quiet);
    w.stop();
  });

  it('keeps watching after a listing fails', async () => {
    const clock = new SteppedClock(1, 0);
    const f = fakes({ ready: false });
    let calls = 0;
    const ports = {
      list: () => {
        calls++;
        // The second listing fails (a udev hiccup); the watch must go on at its pace.
        return calls === 2 ? Promise.reject(new Error('listing failed')) : f.ports.list();
      },
    };
    const w = createHotplugWatcher({ ...f, ports, armed: () => false, clock, log: silentLogger() });
    await step(clock, 10_000, w);
    expect(calls).toBeGreaterThanOrEqual(4);
    w.stop();
  });

  it('stops listing at stop()', async () => {
    const clock = new SteppedClock(1, 0);
    const f = fakes({ ready: false });
    const w = createHotplugWatcher({ ...f, armed: () => false, clock, log: silentLogger() });
    await step(clock, 4500, w);
    const before = f.listings();
    expect(before).toBeGreaterThan(1);
    w.stop();
    await step(clock, 10_000, w);
    expect(f.listings()).toBe(before);
  });
});
