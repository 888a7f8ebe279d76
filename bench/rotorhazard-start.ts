/**
 * Race-start latency through the real RotorHazard and the Lightnet plugin: from the start
 * instant RotorHazard announced at staging (RACE_START is emitted at that instant, after its
 * own busy-wait) to the first byte the host writes to the gateway link (a relay in front of
 * the simulated gateway timestamps every write). Two bindings, the same races:
 *
 *   scene: Race Start → "Lightnet: run scene" (a one-frame scene): the event path's latency
 *   arm:   Race Stage → "Lightnet: arm scene, sync at race start": the SYNC's error against
 *          its planned moment (start − SYNC airtime), which is what the gates' precision is
 *
 *   LIGHTNET_ROTORHAZARD=../shared/tools/rotorhazard.sh npx tsx bench/rotorhazard-start.ts [--races 10]
 *
 * Prints a table; asserts nothing. Ports 6880..6889.
 */
import { rotorhazardAvailable, startRig, type Rig } from '../test/e2e/rotorhazard/rig.ts';
import { SocketIoClient } from '../test/e2e/rotorhazard/socketio.ts';
import { numFlag, pct, waitFor } from './rotorhazard-util.ts';

const RACES = numFlag('--races', 10);

async function race(rig: Rig, io: SocketIoClient): Promise<number> {
  const ready = io.wait('race_status', (m: { race_status?: number }) => m.race_status === 1, 60_000);
  await io.emit('stage_race');
  await ready;
  const stage = await waitFor(async () => {
    const s = await rig.api<{ last_stage: { server_start_epoch_ms: number } | null }>('GET', '/_rh/status');
    return s.body.last_stage;
  });
  // Let the bound action finish, then end the race so the next can be staged.
  await new Promise((r) => setTimeout(r, 700));
  const done = io.wait('race_status', (m: { race_status?: number }) => m.race_status === 0, 30_000);
  await io.emit('stop_race');
  await io.emit('discard_laps');
  await done;
  return stage.server_start_epoch_ms;
}

async function main(): Promise<void> {
  if (!rotorhazardAvailable()) {
    console.log('skipped: set LIGHTNET_ROTORHAZARD to tools/rotorhazard.sh');
    return;
  }
  const rig = await startRig({ port: 6880, nodes: 6, seed: 3 });
  try {
    await rig.waitOutput(/Lightnet: connected to the host/);
    const io = await SocketIoClient.connect(rig.rhUrl);
    await rig.api('POST', '/api/discover', {});
    await waitFor(
      async () =>
        (await rig.api<{ task: { state: string } | null }>('GET', '/api/task')).body.task?.state === 'done',
    );
    const mk = async (label: string, arm: boolean) =>
      (
        await rig.api<{ scene: { key: string } }>('POST', '/api/scenes', {
          label,
          actions: [
            {
              kind: 'native_effect',
              target: { kind: 'broadcast' },
              params: { mode: 2, brightness: 200, color1: [0, 255, 0] },
              flags_override: arm ? { arm_on_sync: true } : {},
            },
          ],
        })
      ).body.scene.key;
    const go = await mk('Bench go', false);
    const armed = await mk('Bench armed', true);
    const bind = async (actions: Record<string, string>[]) => {
      const saved = io.wait<{ actions: string }>(
        'event_actions',
        (m) => m.actions === JSON.stringify(actions),
      );
      await io.emit('set_config', { section: 'USER', key: 'actions', value: JSON.stringify(actions) });
      await io.emit('load_data', { load_types: ['event_actions'] });
      await saved;
    };

    const sceneLat: number[] = [];
    const hostIn: number[] = [];
    const hostWrite: number[] = [];
    await bind([{ event: 'raceStart', effect: 'lightnet_scene', lightnet_scene: go }]);
    for (let i = 0; i < RACES; i++) {
      const start = await race(rig, io);
      const first = rig.writes.find((t) => t >= start);
      if (first !== undefined) sceneLat.push(first - start);
      const run = (
        await rig.api<{ last_run: { requested_epoch_ms: number } | null }>('GET', '/api/integration')
      ).body.last_run;
      if (run) {
        hostIn.push(run.requested_epoch_ms - start);
        if (first !== undefined) hostWrite.push(first - run.requested_epoch_ms);
      }
    }

    const syncErr: number[] = [];
    const syncVsStart: number[] = [];
    await bind([{ event: 'raceStage', effect: 'lightnet_arm_start', lightnet_arm_scene: armed }]);
    for (let i = 0; i < RACES; i++) {
      await race(rig, io);
      const v = (
        await rig.api<{
          last_start: { start_epoch_ms: number; fired_at_epoch_ms: number; late_ms: number } | null;
        }>('GET', '/api/integration')
      ).body.last_start;
      if (!v) continue;
      const planned = v.fired_at_epoch_ms - v.late_ms;
      const first = rig.writes.find((t) => t >= v.fired_at_epoch_ms);
      if (first === undefined) continue;
      syncErr.push(first - planned);
      syncVsStart.push(first - v.start_epoch_ms);
    }
    await io.close();
    const row = (name: string, xs: number[]) =>
      `| ${name.padEnd(52)} | ${String(xs.length).padStart(3)} | ${pct(xs, 50).toFixed(1).padStart(6)} | ${pct(
        xs,
        99,
      )
        .toFixed(1)
        .padStart(6)} | ${Math.max(...xs)
        .toFixed(1)
        .padStart(6)} |`;
    console.log(`\nRotorHazard race start → Lightnet, ${RACES} races per binding (ms)\n`);
    console.log(`| ${'measure'.padEnd(52)} |   n |    p50 |    p99 |    max |`);
    console.log(`|${'-'.repeat(54)}|-----|--------|--------|--------|`);
    console.log(row('run scene: RACE_START → first frame written', sceneLat));
    console.log(row('  of which start → the host starts the scene', hostIn));
    console.log(row('  of which scene start → first frame written', hostWrite));
    console.log(row('arm+sync: SYNC written − planned moment (start − lead)', syncErr));
    console.log(row('arm+sync: SYNC written − announced start', syncVsStart));
  } finally {
    await rig.close();
  }
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
