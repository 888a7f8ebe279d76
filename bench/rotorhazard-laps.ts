/**
 * Lap flash latency through the real RotorHazard and the Lightnet plugin: from RotorHazard's
 * RACE_LAP_RECORDED (the plugin stamps the moment its handler runs) to the first CONTROL
 * frame the host writes to the gateway link after it (a relay in front of the simulated
 * gateway timestamps every write). 4 pilots on 4 gates, laps simulated through RotorHazard's
 * own `simulate_lap`, spaced so each flash and its return are over before the next lap.
 * Then bursts of simultaneous passes (all 4 seats at once): flashes sent vs dropped, once
 * with a gate per seat and once with one gate for all seats (merged).
 *
 *   LIGHTNET_ROTORHAZARD=../shared/tools/rotorhazard.sh npx tsx bench/rotorhazard-laps.ts [--laps 100] [--bursts 25]
 *   ../shared/tools/pi-class.sh env LIGHTNET_ROTORHAZARD=… npx tsx bench/rotorhazard-laps.ts
 *
 * Prints a table; asserts nothing. Port 6890.
 */
import { knownLeds, rotorhazardAvailable, startRig, type Rig } from '../test/e2e/rotorhazard/rig.ts';
import { SocketIoClient } from '../test/e2e/rotorhazard/socketio.ts';
import { OPC } from '../src/protocol/types.ts';
import { numFlag, pct, sleep, waitFor } from './rotorhazard-util.ts';

const LAPS = numFlag('--laps', 100);
const BURSTS = numFlag('--bursts', 25);
const PILOTS = 4;
const FLASH_MS = 150;
/** Between laps: the flash (150 ms), its return and some air, so laps do not meet. */
const SPACING_MS = 450;

interface Flash {
  seats: number[];
  event_epoch_ms: number | null;
  received_epoch_ms: number;
  ok: boolean;
  error: string | null;
}
interface Stats {
  laps: number;
  flashes_sent: number;
  passes_flashed: number;
  merged: number;
  dropped: Record<string, number>;
}
const view = async (rig: Rig) =>
  (await rig.api<{ race_lights: { stats: Stats; recent_flashes: Flash[] } }>('GET', '/api/integration')).body
    .race_lights;

/** Index of the first CONTROL frame written at or after `t`. */
function firstControlWrite(rig: Rig, t: number): number | null {
  for (let i = 0; i < rig.writes.length; i++) {
    const at = rig.writes[i] as number;
    const b = rig.writeBytes[i] as Buffer;
    if (at >= t && b.length > 2 && b[2] === OPC.CONTROL) return at;
  }
  return null;
}

async function startRace(io: SocketIoClient): Promise<void> {
  const racing = io.wait('race_status', (m: { race_status?: number }) => m.race_status === 1, 60_000);
  await io.emit('stage_race');
  await racing;
  await sleep(500); // the start look is on the air
}

async function endRace(io: SocketIoClient): Promise<void> {
  const done = io.wait('race_status', (m: { race_status?: number }) => m.race_status === 0, 30_000);
  await io.emit('stop_race');
  await io.emit('discard_laps');
  await done;
}

async function bursts(rig: Rig, io: SocketIoClient, label: string): Promise<string> {
  const before = (await view(rig)).stats;
  await startRace(io);
  for (let b = 0; b < BURSTS; b++) {
    // All four seats cross the line together: four emits back to back.
    await Promise.all(Array.from({ length: PILOTS }, (_, seat) => io.emit('simulate_lap', { node: seat })));
    await sleep(FLASH_MS + 500);
  }
  await sleep(500);
  const after = (await view(rig)).stats;
  await endRace(io);
  const d = (k: string) => (after.dropped[k] ?? 0) - (before.dropped[k] ?? 0);
  const passes = after.laps - before.laps;
  return (
    `${label.padEnd(28)} passes ${passes}, frames sent ${after.flashes_sent - before.flashes_sent}, ` +
    `passes shown ${after.passes_flashed - before.passes_flashed} (merged ${after.merged - before.merged}), ` +
    `dropped: radio busy ${d('radio_busy')}, waited too long ${d('stale')}, >3 colours ${d('overflow')}, not sent ${d('not_sent')}`
  );
}

async function main(): Promise<void> {
  if (!rotorhazardAvailable()) {
    console.log('skipped: set LIGHTNET_ROTORHAZARD to tools/rotorhazard.sh');
    return;
  }
  const rig = await startRig({ port: 6890, nodes: 6, seed: 3 });
  try {
    await rig.waitOutput(/Lightnet: connected to the host/);
    const io = await SocketIoClient.connect(rig.rhUrl);
    await rig.api('POST', '/api/discover', {});
    await waitFor(
      async () =>
        (await rig.api<{ task: { state: string } | null }>('GET', '/api/task')).body.task?.state === 'done',
    );
    const gates = (await knownLeds(rig)).slice(0, PILOTS);
    if (gates.length < PILOTS) throw new Error('not enough LED nodes discovered in the simulated fleet');
    const perSeat = {
      seats: gates.map((g, seat) => ({ seat, gate: { kind: 'device', value: g.addr } })),
      flash: { effect: 0, length_ms: FLASH_MS, brightness: 255 },
    };
    const put = await rig.api('PUT', '/api/race-lights', perSeat);
    if (put.status !== 200) throw new Error(`settings refused: ${JSON.stringify(put.body)}`);

    // 1. Latency: one lap at a time, 4 pilots in turn.
    await startRace(io);
    const total: number[] = [];
    const hop: number[] = [];
    const host: number[] = [];
    let missing = 0;
    let read = 0;
    for (let i = 0; i < LAPS; i++) {
      const seat = i % PILOTS;
      await io.emit('simulate_lap', { node: seat });
      await sleep(SPACING_MS);
      if ((i + 1) % 10 === 0 || i === LAPS - 1) {
        // Read the host's records in batches (not during a lap: the read would load the same path).
        const recent = (await view(rig)).recent_flashes;
        const fresh = recent.slice(-(i + 1 - read));
        read = i + 1;
        for (const f of fresh) {
          const ev = f.event_epoch_ms as number;
          const w = f.ok ? firstControlWrite(rig, ev) : null;
          if (w === null) {
            missing++;
            continue;
          }
          total.push(w - ev);
          hop.push(f.received_epoch_ms - ev);
          host.push(w - f.received_epoch_ms);
        }
      }
    }
    await endRace(io);
    const row = (name: string, xs: number[]) =>
      `${name.padEnd(40)} p50 ${pct(xs, 50).toFixed(1).padStart(6)} ms   p99 ${pct(xs, 99).toFixed(1).padStart(6)} ms   max ${Math.max(
        ...xs,
      )
        .toFixed(1)
        .padStart(6)} ms`;
    const lines = [
      `lap flashes: ${total.length} laps measured, ${PILOTS} pilots, ${missing} without a flash record`,
      row('lap event -> first CONTROL written', total),
      row('  plugin -> host (HTTP)', hop),
      row('  host received -> written', host),
    ];

    // 2. Bursts: all seats at once, a gate per seat, then one gate for all.
    lines.push(await bursts(rig, io, 'burst, a gate per seat:'));
    await rig.api('PUT', '/api/race-lights', {
      all_seats_gate: { kind: 'device', value: gates[0]?.addr },
      flash: { effect: 84, length_ms: FLASH_MS, brightness: 255 },
    });
    lines.push(await bursts(rig, io, 'burst, one gate for all:'));
    console.log(lines.join('\n'));
    await io.close();
  } finally {
    await rig.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
