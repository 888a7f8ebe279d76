/**
 * The Lightnet plugin inside the real RotorHazard (one RotorHazard start for the whole
 * file): it loads, starts the host on the simulated fleet, serves Lightnet's UI through
 * RotorHazard's port, runs a scene bound to Race Start, feeds the heat into the start
 * blocks, follows Lightnet's scene list without a restart, and leaves no host process when
 * RotorHazard stops. Skipped, saying so, when LIGHTNET_ROTORHAZARD names no launcher.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBrowser, type BrowserHandle } from './browser.ts';
import { AUTH, RH_LAUNCHER, rotorhazardAvailable, startRig, type Rig } from './rotorhazard/rig.ts';
import { SocketIoClient } from './rotorhazard/socketio.ts';

const available = rotorhazardAvailable();
if (!available) {
  console.warn(
    `SKIPPED rotorhazard-plugin tests: LIGHTNET_ROTORHAZARD ${RH_LAUNCHER ? `(${RH_LAUNCHER}) does not exist` : 'is not set'} ` +
      '(point it at tools/rotorhazard.sh; .ci/run does so when ../shared is present)',
  );
}

interface Device {
  addr: string;
  name: string;
  online: boolean;
  dev_type_caps: string[];
}
interface PluginStatus {
  problem: string | null;
  host: { state: string; pid: number | null } | null;
}
interface ActionSetup {
  effects: Record<
    string,
    { name: string; fields: { name: string; options: { value: string }[] | null }[] | null }
  >;
}

let rig: Rig;
let io: SocketIoClient;
let hostPid = 0;

async function until<T>(
  fn: () => Promise<T | null | undefined | false>,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    // Re-check after the host/RotorHazard had a chance to act (state polling, no fixed sleep).
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Binds RotorHazard events to effects as its Event Actions page saves them. */
async function setActions(actions: Record<string, string>[]): Promise<void> {
  const saved = io.wait<{ actions: string }>('event_actions', (m) => m.actions === JSON.stringify(actions));
  await io.emit('set_config', { section: 'USER', key: 'actions', value: JSON.stringify(actions) });
  await io.emit('load_data', { load_types: ['event_actions'] });
  await saved;
}

describe.skipIf(!available)('lightnet plugin in RotorHazard', () => {
  beforeAll(async () => {
    rig = await startRig({ port: 6810, nodes: 6, seed: 3 });
    await rig.waitOutput(/Loaded external plugin 'lightnet'/);
    await rig.waitOutput(/Lightnet: connected to the host/);
    io = await SocketIoClient.connect(rig.rhUrl);
    // Devices exist for the host once discovered (through the proxy, as the UI would).
    const d = await rig.api<{ task: { id: number } }>('POST', '/api/discover', {});
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

  it('loads-without-load-issue-and-runs-the-host-on-the-simulated-fleet', async () => {
    expect(rig.output()).not.toMatch(/Plugin 'lightnet' not loaded/);
    const st = await rig.api<PluginStatus>('GET', '/_rh/status');
    expect(st.body.problem).toBeNull();
    expect(st.body.host?.state).toBe('running');
    hostPid = st.body.host?.pid ?? 0;
    expect(hostPid).toBeGreaterThan(0);
    const devices = (await rig.api<{ devices: Device[] }>('GET', '/api/devices')).body.devices;
    expect(devices.map((x) => x.addr).sort()).toEqual(rig.fleet.nodes.map((n) => n.addr).sort());
    // Without the admin login the proxy refuses, like RotorHazard's own pages.
    expect((await fetch(`${rig.rhUrl}/lightnet/api/devices`)).status).toBe(401);
  });

  it('a-heat-with-pilots-set-in-rotorhazard-reaches-the-start-block-slots', async () => {
    await setActions([{ event: 'heatSet', effect: 'lightnet_startblock_group', lightnet_sb_group: '255' }]);
    for (const [id, callsign] of [
      [1, 'Jäger'],
      [2, 'Nova'],
    ] as const) {
      await io.emit('add_pilot');
      await io.emit('alter_pilot', { pilot_id: id, callsign });
    }
    type Heats = { heats: { id: number; slots: { id: number; node_index: number }[] }[] };
    // Earlier pilot edits broadcast heat lists too: wait for one that holds the new heat.
    const heats = io.wait<Heats>('heat_data', (d) => d.heats.some((h) => h.slots.length >= 2));
    await io.emit('add_heat');
    await io.emit('load_data', { load_types: ['heat_data'] });
    const heat = (await heats).heats.at(-1) as { id: number; slots: { id: number; node_index: number }[] };
    const slot = (i: number) => heat.slots.find((s) => s.node_index === i)?.id;
    await io.emit('alter_heat', { heat: heat.id, slot_id: slot(0), pilot: 1 });
    await io.emit('alter_heat', { heat: heat.id, slot_id: slot(1), pilot: 2 });
    await io.emit('set_current_heat', { heat: heat.id });

    const view = await until(async () => {
      const v = await rig.api<{ startblock_slots: { slot: number; callsign: string }[] }>(
        'GET',
        '/api/integration',
      );
      return v.body.startblock_slots.length >= 2 && v.body.startblock_slots[1]?.callsign === 'Nova'
        ? v.body
        : null;
    }, 'the heat in GET /api/integration');
    expect(view.startblock_slots[0]).toEqual({ slot: 1, callsign: 'Jäger', racechannel: 'R1' });
    const blocks = rig.fleet.nodes.filter((n) => n.snapshot().startblock !== null);
    expect(blocks.length).toBeGreaterThan(0);
    await until(
      async () =>
        blocks.every((n) => {
          const rec = n.snapshot().startblock?.display[1];
          return rec?.name === 'JAGER' && rec.channel === 'R1';
        }),
      'pilot names on the start blocks',
    );
    await setActions([]);
  });

  it('serves-the-lightnet-ui-with-live-updates-through-rotorhazards-port', async () => {
    let b: BrowserHandle | null = null;
    try {
      b = await openBrowser();
      await b.page.setExtraHTTPHeaders({ authorization: AUTH });
      await b.page.goto(`${rig.rhUrl}/lightnet/`);
      const devices = (await rig.api<{ devices: Device[] }>('GET', '/api/devices')).body.devices;
      const first = devices[0] as Device;
      await b.page.getByText(first.name).first().waitFor();
      // A rename through the proxy reaches the open page over the proxied SSE stream.
      const renamed = await rig.api('POST', '/api/devices/update-meta', {
        macs: [first.addr],
        name: 'Finish Gate',
      });
      expect(renamed.status).toBe(200);
      await b.page.getByText('Finish Gate').first().waitFor();
      // The heat RotorHazard set (previous test) is shown as the start blocks show it.
      await b.page.getByTestId('banner-heat').getByText('1 Jäger R1').waitFor();
      await b.shot('rotorhazard-lightnet-ui');
    } finally {
      await b?.close();
    }
  });

  it('a-scene-created-in-lightnet-appears-in-the-event-action-choices', async () => {
    const created = await rig.api<{ scene: { key: string } }>('POST', '/api/scenes', {
      label: 'Race Go',
      actions: [
        {
          kind: 'native_effect',
          target: { kind: 'broadcast' },
          params: { mode: 2, brightness: 180, color1: [0, 255, 0] },
        },
      ],
    });
    expect(created.status).toBe(200);
    const key = created.body.scene.key;
    await until(async () => {
      const setup = io.wait<ActionSetup>('action_setup');
      await io.emit('load_data', { load_types: ['action_setup'] });
      const s = await setup;
      const field = s.effects.lightnet_scene?.fields?.find((f) => f.name === 'lightnet_scene');
      return field?.options?.some((o) => o.value === key);
    }, 'the scene in the Event Action choices');
  });

  it('run-scene-bound-to-race-start-runs-when-rotorhazard-starts-a-race', async () => {
    const scenes = (await rig.api<{ scenes: { key: string; label: string }[] }>('GET', '/api/scenes')).body
      .scenes;
    const key = scenes.find((s) => s.label === 'Race Go')?.key as string;
    await setActions([{ event: 'raceStart', effect: 'lightnet_scene', lightnet_scene: key }]);
    const leds = rig.fleet.nodes.filter((n) => n.snapshot().startblock === null);
    expect(leds.every((n) => n.snapshot().bri !== 180)).toBe(true);
    const started = io.wait('race_status', (m: { race_status?: number }) => m.race_status === 1, 60_000);
    await io.emit('stage_race');
    await started;
    await until(
      async () => leds.every((n) => n.snapshot().bri === 180 && n.snapshot().effectMode === 2),
      'scene on nodes',
    );
    await io.emit('stop_race');
    await io.emit('discard_laps');
  });

  it('arm-at-staging-fires-one-sync-at-the-start-rotorhazard-announced', async () => {
    const arm = await rig.api<{ scene: { key: string } }>('POST', '/api/scenes', {
      label: 'Start gates',
      actions: [
        {
          kind: 'native_effect',
          target: { kind: 'broadcast' },
          params: { mode: 3, brightness: 220, color1: [255, 255, 255] },
          flags_override: { arm_on_sync: true },
        },
      ],
    });
    expect(arm.status).toBe(200);
    await until(async () => {
      const setup = io.wait<ActionSetup>('action_setup');
      await io.emit('load_data', { load_types: ['action_setup'] });
      const f = (await setup).effects.lightnet_arm_start?.fields?.[0];
      return f?.options?.some((o) => o.value === arm.body.scene.key);
    }, 'the arm scene in the choices');
    await setActions([
      { event: 'raceStage', effect: 'lightnet_arm_start', lightnet_arm_scene: arm.body.scene.key },
    ]);
    const leds = rig.fleet.nodes.filter((n) => n.snapshot().startblock === null);
    const staged = io.wait('race_status', (m: { race_status?: number }) => m.race_status === 3, 60_000);
    await io.emit('stage_race');
    await staged;
    // Armed during staging, fired by the one SYNC at the start.
    await until(
      async () => leds.every((n) => n.snapshot().armed !== null || n.snapshot().bri === 220),
      'armed',
    );
    await until(
      async () => leds.every((n) => n.snapshot().bri === 220 && n.snapshot().armed === null),
      'fired',
    );
    const announced = (await rig.api<{ last_stage: { server_start_epoch_ms: number } }>('GET', '/_rh/status'))
      .body.last_stage.server_start_epoch_ms;
    const view = await until(async () => {
      const v = await rig.api<{
        last_start: {
          start_epoch_ms: number;
          fired_at_epoch_ms: number;
          ok: boolean;
          late_ms: number;
        } | null;
      }>('GET', '/api/integration');
      return v.body.last_start;
    }, 'the start record');
    expect(view.start_epoch_ms).toBe(Math.trunc(announced));
    expect(view.ok).toBe(true);
    expect(view.late_ms).toBeGreaterThanOrEqual(0);
    // The SYNC frame reached the gateway link at its moment, not at some later event.
    const written = rig.writes.find((t) => t >= view.fired_at_epoch_ms);
    expect(written).toBeDefined();
    console.info(
      `race start: timer late ${view.late_ms} ms, SYNC written ${(written as number) - view.fired_at_epoch_ms} ms after firing, ${(written as number) - announced} ms from the announced start (lead ${announced - view.fired_at_epoch_ms + view.late_ms} ms); writes ${rig.writes
        .filter((t) => Math.abs(t - announced) < 500)
        .map((t) => t - announced)
        .join(',')}`,
    );
    await io.emit('stop_race');
    await io.emit('discard_laps');
    await setActions([]);
  });

  it('rotorhazard-shutdown-leaves-no-host-process', async () => {
    expect(hostPid).toBeGreaterThan(0);
    await rig.stopRotorHazard();
    await until(async () => {
      try {
        process.kill(hostPid, 0);
        return false;
      } catch {
        return true;
      }
    }, 'the host process to exit');
  });
});
