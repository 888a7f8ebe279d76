/**
 * Laps light the gates, end to end: the real RotorHazard 4.4.0 (mock timer nodes) with the
 * Lightnet plugin, a staged race, laps simulated through RotorHazard's own interface on two
 * seats. The gates mapped to those seats (simulated nodes) must show the seat colours
 * RotorHazard reports, in the order of the laps, and then return to the race's look.
 * Skipped, saying so, when LIGHTNET_ROTORHAZARD names no launcher.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimNode } from '../../src/sim/node/node.ts';
import { RH_LAUNCHER, knownLeds, rotorhazardAvailable, startRig, type Rig } from './rotorhazard/rig.ts';
import { SocketIoClient } from './rotorhazard/socketio.ts';

const available = rotorhazardAvailable();
if (!available) {
  console.warn(
    `SKIPPED rotorhazard-laps tests: LIGHTNET_ROTORHAZARD ${RH_LAUNCHER ? `(${RH_LAUNCHER}) does not exist` : 'is not set'} ` +
      '(point it at tools/rotorhazard.sh; .ci/run does so when ../shared is present)',
  );
}

let rig: Rig;
let io: SocketIoClient;

async function until<T>(
  fn: () => Promise<T | null | undefined | false> | T,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as T;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const hexOf = (n: SimNode): string =>
  '#' + (n.snapshot().segment.colors[0] ?? [0, 0, 0]).map((v) => v.toString(16).padStart(2, '0')).join('');

/** Every colour change of the gates, with its wall time (sampled every few ms). */
function recordColours(gates: SimNode[]): { log: { t: number; gate: number; hex: string }[]; stop(): void } {
  const log: { t: number; gate: number; hex: string }[] = [];
  const last = gates.map(() => '');
  const timer = setInterval(() => {
    gates.forEach((g, i) => {
      const hex = hexOf(g);
      if (hex !== last[i]) {
        last[i] = hex;
        log.push({ t: Date.now(), gate: i, hex });
      }
    });
  }, 3);
  return { log, stop: () => clearInterval(timer) };
}

describe.skipIf(!available)('laps light the gates (real RotorHazard)', () => {
  beforeAll(async () => {
    rig = await startRig({ port: 6830, nodes: 6, seed: 3 });
    await rig.waitOutput(/Loaded external plugin 'lightnet'/);
    await rig.waitOutput(/Lightnet: connected to the host/);
    io = await SocketIoClient.connect(rig.rhUrl);
    const d = await rig.api('POST', '/api/discover', {});
    expect(d.status).toBe(200);
    await until(async () => {
      const t = await rig.api<{ task: { state: string } | null }>('GET', '/api/task');
      return t.body.task?.state === 'done';
    }, 'discovery');
  }, 150_000);

  afterAll(async () => {
    await io?.close();
    await rig?.close();
  });

  it('a-staged-race-with-laps-on-two-seats-flashes-their-gates-in-the-seat-colours-in-order', async () => {
    const [gateA, gateB] = (await knownLeds(rig)) as [SimNode, SimNode];
    // Seats mapped in RotorHazard's own settings panel ("Lightnet race lights"): each field
    // is bound to the host's settings.
    type Panel = {
      panel: { name: string };
      fn_binds: { name: string; value: unknown; options: { value: string }[] | null }[];
    };
    const panel = await until(async () => {
      const ui = io.wait<{ page: string; panels: Panel[] }>('ui', (m) => m.page === 'settings');
      await io.emit('load_data', { load_types: [{ type: 'ui', value: 'settings' }] });
      const p = (await ui).panels.find((x) => x.panel.name === 'lightnet_race_lights');
      const gate = p?.fn_binds.find((f) => f.name === 'lightnet_rl_seat_0_gate');
      return gate?.options?.some((o) => o.value === `d:${gateA.addr}`) ? p : null;
    }, 'the race lights panel with the devices as gate choices');
    expect(panel.fn_binds.find((f) => f.name === 'lightnet_rl_enabled')?.value).toBe(true);
    const bind = (name: string, value: string) =>
      io.emit('set_ui_binding_value', { name: `lightnet_rl_${name}`, value });
    await bind('seat_0_gate', `d:${gateA.addr}`);
    await bind('seat_1_gate', `d:${gateB.addr}`);
    await bind('flash_effect', '0');
    await bind('flash_length_ms', '1500');
    const stored = await until(async () => {
      const r = await rig.api<{
        settings: {
          seats: { seat: number; gate: { value: string } | null }[];
          flash: { length_ms: number; effect: number };
        };
      }>('GET', '/api/race-lights');
      const s = r.body.settings;
      return s.seats.length === 2 && s.flash.length_ms === 1500 && s.flash.effect === 0 ? s : null;
    }, 'the panel values stored in the host').catch((err: Error) => {
      throw new Error(`${err.message}\n${rig.output().slice(-3000)}`);
    });
    expect(stored.seats.map((x) => x.gate?.value)).toEqual([gateA.addr, gateB.addr]);
    // A value the host refuses is reported and not stored.
    await bind('seat_2_color', 'red');
    await new Promise((r) => setTimeout(r, 500));
    const after = await rig.api<{ settings: { seats: unknown[] } }>('GET', '/api/race-lights');
    expect(after.body.settings.seats).toHaveLength(2);
    // Seat colours as RotorHazard reports them with the heat.
    const heat = await until(async () => {
      const v = await rig.api<{ heat: { seats: { seat: number; color: string | null }[] } | null }>(
        'GET',
        '/api/integration',
      );
      const seats = v.body.heat?.seats ?? [];
      return seats.length >= 2 && seats[0]?.color && seats[1]?.color ? seats : null;
    }, 'the heat with seat colours');
    const colourA = heat[0]?.color as string;
    const colourB = heat[1]?.color as string;
    expect(colourA).not.toBe(colourB);

    const racing = io.wait('race_status', (m: { race_status?: number }) => m.race_status === 1, 60_000);
    await io.emit('stage_race');
    await racing;
    // The start look (built-in: green) reaches both gates at the start RotorHazard announced.
    await until(() => hexOf(gateA) === '#00ff00' && hexOf(gateB) === '#00ff00', 'the start look');

    const rec = recordColours([gateA, gateB]);
    try {
      const lapAt: number[] = [];
      lapAt.push(Date.now());
      await io.emit('simulate_lap', { node: 0 });
      await until(() => hexOf(gateA) === colourA, 'seat 1 colour on its gate', 10_000);
      lapAt.push(Date.now());
      await io.emit('simulate_lap', { node: 1 });
      await until(() => hexOf(gateB) === colourB, 'seat 2 colour on its gate', 10_000);
      // Each gate returns to the race's look after the flash.
      await until(
        () => hexOf(gateA) === '#00ff00' && hexOf(gateB) === '#00ff00',
        'gates back to the look',
        10_000,
      );
      rec.stop();
      const flashA = rec.log.find((e) => e.gate === 0 && e.hex === colourA);
      const flashB = rec.log.find((e) => e.gate === 1 && e.hex === colourB);
      expect(flashA && flashB).toBeTruthy();
      expect((flashA as { t: number }).t).toBeLessThan((flashB as { t: number }).t);
      // Gate B showed only its own colour and the look (no other pilot's flash).
      expect(new Set(rec.log.filter((e) => e.gate === 1).map((e) => e.hex))).toEqual(
        new Set(['#00ff00', colourB]),
      );
      const v = await rig.api<{
        race_lights: { stats: { laps: number; flashes_sent: number }; recent_flashes: { seats: number[] }[] };
      }>('GET', '/api/integration');
      expect(v.body.race_lights.stats.flashes_sent).toBeGreaterThanOrEqual(2);
      // The plugin delivered the laps on its inline keep-alive path, none lost.
      const st = await rig.api<{ laps: { delivered: number; failed: number } }>('GET', '/_rh/status');
      expect(st.body.laps.delivered).toBeGreaterThanOrEqual(2);
      expect(st.body.laps.failed).toBe(0);
      expect(v.body.race_lights.recent_flashes.slice(-2).map((f) => f.seats)).toEqual([[0], [1]]);
      console.info(
        `laps: seat 1 flash ${(flashA as { t: number }).t - (lapAt[0] as number)} ms, seat 2 flash ${(flashB as { t: number }).t - (lapAt[1] as number)} ms after the simulate_lap request`,
      );
    } finally {
      rec.stop();
    }
    await io.emit('stop_race');
    // The stop look (built-in: red) follows RotorHazard's stop.
    await until(() => hexOf(gateA) === '#ff0000', 'the stop look', 10_000);
    await io.emit('discard_laps');
  });

  it('with-automatic-race-lights-off-a-lap-flash-bound-as-an-event-action-still-flashes', async () => {
    const [gateA] = (await knownLeds(rig)) as [SimNode];
    type Setup = {
      effects: Record<string, { fields: { name: string; options: { value: string }[] | null }[] | null }>;
    };
    const setup = io.wait<Setup>('action_setup');
    await io.emit('load_data', { load_types: ['action_setup'] });
    const effects = (await setup).effects;
    expect(effects.lightnet_lap_flash).toBeDefined();
    expect(effects.lightnet_race_phase?.fields?.[0]?.options?.map((o) => o.value)).toEqual([
      'staging',
      'start',
      'finish',
      'win',
      'stop',
      'heat_change',
    ]);
    await io.emit('set_ui_binding_value', { name: 'lightnet_rl_enabled', value: false });
    await until(async () => {
      const r = await rig.api<{ settings: { enabled: boolean } }>('GET', '/api/race-lights');
      return r.body.settings.enabled === false;
    }, 'race lights switched off');
    const actions = [{ event: 'raceLapRecorded', effect: 'lightnet_lap_flash' }];
    const saved = io.wait<{ actions: string }>('event_actions', (m) => m.actions === JSON.stringify(actions));
    await io.emit('set_config', { section: 'USER', key: 'actions', value: JSON.stringify(actions) });
    await io.emit('load_data', { load_types: ['event_actions'] });
    await saved;
    type View = { race_lights: { stats: { flashes_sent: number; ignored: { disabled: number } } } };
    const before = (await rig.api<View>('GET', '/api/integration')).body.race_lights.stats;
    const racing = io.wait('race_status', (m: { race_status?: number }) => m.race_status === 1, 60_000);
    await io.emit('stage_race');
    await racing;
    await io.emit('simulate_lap', { node: 0 });
    // The automatic forward is ignored (switched off); the Event Action's flash goes out.
    const after = await until(
      async () => {
        const s = (await rig.api<View>('GET', '/api/integration')).body.race_lights.stats;
        return s.flashes_sent > before.flashes_sent && s.ignored.disabled > before.ignored.disabled
          ? s
          : null;
      },
      'the Event Action flash',
      20_000,
    );
    expect(after.flashes_sent).toBe(before.flashes_sent + 1);
    const seat0 = (await rig.api<{ heat: { seats: { color: string }[] } }>('GET', '/api/integration')).body
      .heat.seats[0]?.color;
    await until(() => hexOf(gateA) === seat0, 'the seat colour on its gate', 5_000);
    await io.emit('stop_race');
    await io.emit('discard_laps');
    const cleared = io.wait<{ actions: string }>('event_actions', (m) => m.actions === '[]');
    await io.emit('set_config', { section: 'USER', key: 'actions', value: '[]' });
    await io.emit('load_data', { load_types: ['event_actions'] });
    await cleared;
  });
});
