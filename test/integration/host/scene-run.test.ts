/**
 * Scene runs against the simulated fleet: the nodes end in the state the scene
 * describes, the estimate equals what the gateway really received, and the run's
 * concurrency, cancel and failure rules hold.
 */
import { describe, expect, it } from 'vitest';
import type { Harness } from '../harness.ts';
import { withHost } from '../harness.ts';
import { discoverAll, runTask, simAddrs } from './helpers.ts';
import { planScene } from '../../../src/services/scenes/plan/scene.ts';
import type { SceneAction } from '../../../src/domain/scenes/types.ts';
import { toHex } from '../../../src/protocol/bytes.ts';
import { OPC } from '../../../src/protocol/types.ts';

interface RunBody {
  ok: boolean;
  result: {
    ok: boolean;
    error: string | null;
    cancelled: boolean;
    aborted_at_index?: number;
    actions: { index: number; ok: boolean; state: string; error?: string; frames_sent: number }[];
    started_ts: number;
    ended_ts: number;
    total_duration_ms: number;
  };
}

interface Estimate {
  ok: boolean;
  total: {
    packets: number;
    frames: number;
    bytes: number;
    link_bytes: number;
    airtime_ms: number;
    wall_clock_ms: number;
  };
  per_action: { packets: number; frames: number; detail: Record<string, unknown> }[];
  lora: Record<string, unknown>;
}

/** Puts node i into group i + 1 (groups 1..n), so every gate has its own offset. */
async function fleetInGroups(h: Harness): Promise<Map<string, number>> {
  await discoverAll(h);
  const addrs = simAddrs(h);
  const groupOf = new Map<string, number>();
  for (let i = 0; i < addrs.length; i++) {
    await h.post('/api/groups/create', { name: `Gate ${i + 1}` });
    const t = await runTask(h, '/api/devices/update-meta', { macs: [addrs[i]], groupId: i + 1 });
    expect(t.state, t.last_error ?? '').toBe('done');
    groupOf.set(addrs[i] as string, i + 1);
  }
  return groupOf;
}

const node = (h: Harness, addr: string) => {
  const n = h.host.sim?.fleet.nodes.find((x) => x.addr === addr);
  if (!n) throw new Error(`no simulated node ${addr}`);
  return n.snapshot();
};

const ARM: SceneAction[] = [
  {
    kind: 'offset_group',
    target: { kind: 'groups', value: [1, 2, 3, 4, 5] },
    offset: { mode: 'linear', base_ms: 0, step_ms: 100 },
    actions: [
      {
        kind: 'native_effect',
        target: { kind: 'groups', value: [1, 2, 3, 4, 5] },
        params: { mode: 2, speed: 90, brightness: 180, color1: [0, 255, 0] },
        flags_override: { arm_on_sync: true },
      },
    ],
  },
];

describe('scene runs on the simulated fleet', () => {
  it('start-sequence-arms-every-gate-then-sync-fires-them-in-offset-order', async () => {
    await withHost({ nodes: 5 }, async (h) => {
      const groupOf = await fleetInGroups(h);
      const create = await h.post<{ scene: { key: string } }>('/api/scenes', {
        label: 'Race start',
        actions: ARM,
      });
      expect(create.status, JSON.stringify(create.body)).toBe(200);
      const key = create.body.scene.key;

      const est = await h.get<Estimate>(`/api/scenes/${key}/estimate`);
      // Every known group participates: one broadcast formula and one broadcast child.
      expect(est.body.total).toMatchObject({ packets: 2, frames: 2 });
      expect(est.body.per_action[0]?.detail).toMatchObject({ wire_path: 'A_broadcast_formula' });

      const arm = await h.post<RunBody>(`/api/scenes/${key}/run`);
      expect(arm.body.ok, JSON.stringify(arm.body)).toBe(true);
      for (const [addr, g] of groupOf) {
        const s = node(h, addr);
        // Armed, not rendered; the offset config is pending until the trigger SYNC.
        expect(s.armed?.fields).toMatchObject({ mode: 2, speed: 90, brightness: 180 });
        expect(s.armed?.offsetMs).toBe(100 * g);
        expect(s.offset.pending).toEqual({ mode: 'LINEAR', baseMs: 0, stepMs: 100 });
        expect(s.segment.mode).not.toBe(2);
      }

      // The pilots go onto the start block's display (slot 1; the node shows slot 1 by default).
      const sb = [...groupOf.keys()].find((a) => node(h, a).startblock !== null);
      expect(sb, 'the 5-node fleet has a start block').toBeDefined();
      const pilots = await h.post<RunBody>('/api/scenes/pilots/run', {
        actions: [
          {
            kind: 'startblock',
            target: { kind: 'groups', value: [1, 2, 3, 4, 5] },
            params: {
              fn_key: 'startblock_control',
              startblock_use_current_heat: false,
              startblock_slot_list: [{ slot: 1, callsign: 'Ace', racechannel: 'R1' }],
            },
          },
        ],
      });
      expect(pilots.body.result.actions[0]).toMatchObject({ ok: true, frames_sent: 1 });
      expect(node(h, sb as string).startblock?.display[1]).toEqual({ slot: 1, channel: 'R1', name: 'ACE' });
      // Still armed: a STREAM does not touch the LED state.
      expect(node(h, sb as string).armed).not.toBeNull();

      const sse = await h.sse();
      const go = await h.post<RunBody>('/api/scenes/go/run', { label: 'Go', actions: [{ kind: 'sync' }] });
      expect(go.body.result).toMatchObject({ ok: true, error: null });
      const fired = h.host.services.clock.now();
      await sse.waitFor('scene_progress', (d) => (d as { phase: string }).phase === 'end');
      for (const [addr, g] of groupOf) {
        const s = node(h, addr);
        expect(s.armed).toBeNull();
        expect(s.offset.active).toEqual({ mode: 'LINEAR', baseMs: 0, stepMs: 100 });
        expect(s.phaseOffsetMs).toBe(100 * g);
        expect(s.deferredApplyAt).not.toBeNull();
      }
      // Simulated time: let the largest offset (500 ms) pass.
      await h.host.services.clock.sleep(800);
      const applied = [...groupOf].map(([addr, g]) => ({ g, s: node(h, addr) }));
      for (const { s } of applied) {
        expect(s.segment).toMatchObject({ mode: 2, speed: 90 });
        expect(s.segment.colors[0]).toEqual([0, 255, 0]);
        expect(s.bri).toBe(180);
        expect(s.deferredApplyAt).toBeNull();
      }
      // Fired in offset order: gate g lights 100·g ms after the SYNC.
      const at = applied.sort((a, b) => a.g - b.g).map(({ s }) => s.lastApply?.at ?? 0);
      for (let i = 1; i < at.length; i++) expect(at[i] ?? 0).toBeGreaterThan(at[i - 1] ?? 0);
      expect((at[0] ?? 0) - fired).toBeLessThan(400);
    });
  });

  it('estimate-equals-the-frames-the-gateway-received-byte-for-byte', async () => {
    await withHost({ nodes: 4 }, async (h) => {
      const groupOf = await fleetInGroups(h);
      const [a] = [...groupOf.keys()];
      await h.post('/api/native-presets', {
        label: 'Breathe green',
        params: {
          mode: 2,
          speed: 128,
          intensity: 7,
          custom1: 3,
          palette: 0,
          color1: [0, 255, 0],
          brightness: 200,
        },
        flags: { arm_on_sync: true },
      });
      const actions: SceneAction[] = [
        {
          kind: 'led_preset',
          target: { kind: 'groups', value: [1, 3] },
          params: { presetId: 4, brightness: 90 },
          flags_override: {},
        },
        {
          kind: 'offset_group',
          target: { kind: 'groups', value: [1, 2, 3] },
          offset: {
            mode: 'explicit',
            values: [
              { id: 1, offset_ms: 300 },
              { id: 2, offset_ms: 200 },
              { id: 3, offset_ms: 100 },
            ],
          },
          actions: [
            {
              kind: 'native_preset',
              target: { kind: 'groups', value: [1, 2, 3] },
              params: { presetId: 'RL:breathe_green' },
              flags_override: {},
            },
            {
              kind: 'native_effect',
              target: { kind: 'device', value: a as string },
              params: { mode: 0, brightness: 50 },
              flags_override: { arm_on_sync: true },
            },
          ],
        },
        { kind: 'delay', duration_ms: 50 },
        { kind: 'sync' },
        {
          kind: 'native_effect',
          target: { kind: 'groups', value: [1, 2, 3, 4] },
          params: { mode: 0, brightness: 10 },
          flags_override: {},
        },
      ];
      const est = await h.post<Estimate>('/api/scenes/estimate', { actions });
      expect(est.status, JSON.stringify(est.body)).toBe(200);
      // Airtime at the settings the gateway reported when the driver connected.
      expect(est.body.lora).toMatchObject({
        sf: 7,
        bw_hz: 125000,
        cr: 5,
        preamble_sym: 8,
        sync_word: 0x12,
        source: 'gateway',
      });
      const received: string[] = [];
      let packets = 0;
      const gw = h.host.sim?.fleet.gateway;
      const off = gw?.events.on('m2n', (m) => {
        if (m.outcome === 'rejected') return; // the driver writes a TXPENDING-rejected frame again
        received.push(`${m.typeFull.toString(16)} ${m.receiver} ${toHex(m.body)}`);
        packets += m.typeFull === OPC.STREAM ? Math.ceil(m.body.length / 8) : 1;
      });
      const run = await h.post<RunBody>('/api/scenes/mixed/run', { actions });
      off?.();
      expect(run.body.ok, JSON.stringify(run.body)).toBe(true);

      const plan = planScene(
        h.host.services.scenes.validateActions(actions),
        h.host.services.sceneDispatch.planContext(),
      );
      const planned = plan.flatMap((p) =>
        p.frames.map((f) => `${OPC[f.request.op].toString(16)} ${f.receiver} ${toHex(f.body)}`),
      );
      expect(received).toEqual(planned);
      expect(est.body.total.frames).toBe(received.length);
      expect(est.body.total.packets).toBe(packets);
      const usbBytes = received.reduce((n, r) => n + (r.split(' ')[2]?.length ?? 0) / 2 + 6, 0);
      expect(est.body.total.link_bytes).toBe(usbBytes);
      expect(run.body.result.actions.map((r) => r.frames_sent)).toEqual(
        est.body.per_action.map((p) => p.frames),
      );
      // Those frames calibrated the per-packet overhead of the wall-clock estimate.
      const after = await h.post<Estimate>('/api/scenes/estimate', { actions });
      expect(after.body.lora.wire_overhead_source).toBe('measured');
      expect(after.body.lora.wire_overhead_ms_per_packet).toBeGreaterThan(5);
      expect(after.body.total.packets).toBe(est.body.total.packets);
      // The device rows follow the last immediate CONTROL (mode 0 at brightness 10).
      const rows = (await h.get<{ devices: { brightness: number; effectId: number }[] }>('/api/devices')).body
        .devices;
      expect(rows.map((d) => [d.effectId, d.brightness])).toEqual(rows.map(() => [0, 10]));
      // The explicit table 300/200/100 is linear (400 − 100·g); group 4 gets NONE.
      expect(est.body.per_action[1]?.detail).toMatchObject({ wire_path: 'C_formula_plus_overrides' });
    });
  });
});
