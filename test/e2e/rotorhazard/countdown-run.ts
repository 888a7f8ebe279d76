/**
 * One staged race on the real RotorHazard (rig.ts) and how its countdown landed: the
 * trigger SYNCs the simulated gateway put on the air (their end: when the nodes change)
 * against the moments RotorHazard itself announced over Socket.IO (`race_status` while
 * staging: `pi_staging_at_s`, `pi_starts_at_s`, its monotonic clock), converted with this
 * process's own reading of the same clock. Shared by the e2e test and bench/race-tones.ts.
 */
import { decodeLoraPacket } from '../../../src/protocol/packets.ts';
import { OPC } from '../../../src/protocol/types.ts';
import type { Rig } from './rig.ts';
import type { SocketIoClient } from './socketio.ts';

export interface CountdownResult {
  /** On air − due, ms, per tone in order. */
  tones: number[];
  /** On air − start, ms (null: no GO on air). */
  go: number | null;
  /** Per host step: whether the timer announced it (4.4.1-dev tone events). */
  announced: boolean[];
  states: string[];
}

interface StepView {
  step: string;
  state: string;
  announced: boolean;
  due_epoch_ms: number;
  fire_at_epoch_ms: number;
  sent_epoch_ms: number | null;
}

const monoS = (): number => Number(process.hrtime.bigint()) / 1e9;

async function until<T>(
  fn: () => Promise<T | null | undefined | false>,
  what: string,
  ms = 60_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function countdownRace(rig: Rig, io: SocketIoClient): Promise<CountdownResult> {
  const ends: number[] = [];
  const gw = rig.fleet.gateway.addr;
  const off = rig.fleet.air.events.on('tx', (e) => {
    const p = decodeLoraPacket(e.bytes);
    if (!p || p.sender !== gw || (p.typeFull & 0x7f) !== OPC.SYNC) return;
    if (p.body.length === 5 && ((p.body[4] as number) & 1) === 1) ends.push(e.end);
  });
  try {
    // stage_ready carries RACE_STAGE's fields (race_status may come before the times are set).
    const staging = io.wait<{ pi_staging_at_s?: number; pi_starts_at_s?: number }>(
      'stage_ready',
      (m) => typeof m.pi_starts_at_s === 'number' && m.pi_starts_at_s > 0,
      60_000,
    );
    const racing = io.wait('race_status', (m: { race_status?: number }) => m.race_status === 1, 60_000);
    await io.emit('stage_race');
    const st = await staging;
    const pair = { wall: Date.now(), mono: monoS() };
    const wallOf = (s: number): number => pair.wall + (s - pair.mono) * 1000;
    await racing;
    type View = { race_lights: { countdown: { active: boolean; steps: StepView[] } } };
    const cd = await until(async () => {
      const v = (await rig.api<View>('GET', '/api/integration')).body.race_lights.countdown;
      return v.active ? null : v;
    }, 'the countdown to end');
    const stagingAt = wallOf(st.pi_staging_at_s as number);
    const startAt = wallOf(st.pi_starts_at_s as number);
    // This race's steps: the last ones recorded, from its first tone to its GO.
    const goIdx = cd.steps.map((s) => s.step).lastIndexOf('go');
    let first = goIdx;
    while (first > 0 && cd.steps[first - 1]?.step !== 'go') first--;
    const steps = cd.steps.slice(first, goIdx + 1);
    const toneCount = steps.length - 1;
    const due = [...Array.from({ length: toneCount }, (_, i) => stagingAt + i * 1000), startAt];
    // Each step's trigger: the first one on the air after the previous step's.
    const sorted = [...ends].sort((a, b) => a - b);
    const skew = (d: number): number | null => {
      const hit = sorted.find((t) => Math.abs(t - d) < 400);
      return hit === undefined ? null : hit - d;
    };
    const tones = due.slice(0, -1).map((d) => skew(d) ?? Number.NaN);
    // Where a step's time went (bench:race-tones with LIGHTNET_COUNTDOWN_TRACE=1).
    if (process.env.LIGHTNET_COUNTDOWN_TRACE)
      steps.forEach((s, i) => {
        const d = due[i] as number;
        const sent = s.sent_epoch_ms;
        const w = sent === null ? undefined : rig.writes.find((t) => t >= sent - 1);
        const air = sorted.find((t) => Math.abs(t - d) < 400);
        console.log(
          `trace ${s.step}: host due−rh due ${(s.due_epoch_ms - d).toFixed(1)} fire ${(s.fire_at_epoch_ms - d).toFixed(1)} sent ${sent === null ? '-' : (sent - d).toFixed(1)} write ${w === undefined ? '-' : (w - d).toFixed(1)} air ${air === undefined ? '-' : (air - d).toFixed(1)}`,
        );
      });
    return {
      tones,
      go: skew(due.at(-1) as number),
      announced: steps.slice(0, -1).map((s) => s.announced),
      states: steps.map((s) => s.state),
    };
  } finally {
    off();
    const ready = io.wait('race_status', (m: { race_status?: number }) => m.race_status === 0, 30_000);
    await io.emit('stop_race');
    await io.emit('discard_laps');
    await ready;
  }
}
