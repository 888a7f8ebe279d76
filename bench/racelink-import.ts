/**
 * RaceLink import time: the pure planner on the v0.1.5 club fixture and on a synthetic big
 * club (250 devices, 60 groups, 100 presets, 100 scenes of 20 actions), then the full import
 * (backup kept, LED file written, Store commit fsynced) into a fresh temp data dir, and the
 * second import (nothing to change). Prints numbers; asserts nothing.
 *
 *   npm run bench:racelink-import
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScaledClock } from '../src/clock.ts';
import { emptyState } from '../src/domain/model.ts';
import { planImport } from '../src/domain/racelink/plan.ts';
import type { RaceLinkFile } from '../src/domain/racelink/types.ts';
import { EventBus } from '../src/events.ts';
import { silentLogger } from '../src/logger.ts';
import { createBackup } from '../src/services/backup/index.ts';
import { createRaceLinkImport } from '../src/services/import/index.ts';
import { createLedPresets } from '../src/services/led-presets/index.ts';
import { FirmwareStore } from '../src/services/ota/index.ts';
import { FileStatePersistence } from '../src/state/persistence.ts';
import { Store } from '../src/state/store.ts';
import { TaskManager } from '../src/tasks/task-manager.ts';
import { CLUB, folderFiles } from '../test/unit/import/racelink-files.ts';

const NOW = '2026-11-27T05:00:00Z';

function bigClub(): RaceLinkFile[] {
  const groups = [{ name: 'All WLED Nodes', static_group: 1, dev_type: 0 }];
  for (let g = 1; g <= 60; g++) groups.push({ name: `Sector ${g} 🏁`, static_group: 0, dev_type: 0 });
  const devices = Array.from({ length: 250 }, (_, i) => ({
    addr: `A0B765${(0x100000 + i).toString(16).toUpperCase().slice(-6)}`,
    dev_type: 10 + (i % 4),
    name: `Gate ${i} — Tribüne`,
    groupId: (i % 60) + 1,
    flags: 1,
    presetId: 1,
    brightness: 128,
    specials: {},
  }));
  const params = { mode: 2, speed: 128, intensity: 128, palette: 3, color1: [255, 150, 0], brightness: 200 };
  const presets = Array.from({ length: 100 }, (_, id) => ({
    id,
    key: `p${id}`,
    label: `Preset ${id}`,
    params,
    flags: {},
  }));
  const action = (i: number) => ({
    kind: i % 2 ? 'rl_preset' : 'wled_preset',
    target: { kind: 'groups', value: [(i % 60) + 1, ((i + 7) % 60) + 1] },
    params: { presetId: i % 100, brightness: 200 },
  });
  const scenes = Array.from({ length: 100 }, (_, id) => ({
    id,
    key: `s${id}`,
    label: `Scene ${id}`,
    actions: Array.from({ length: 20 }, (_, i) => action(id + i)),
  }));
  const file = (path: string, obj: unknown): RaceLinkFile => ({
    path,
    bytes: Buffer.from(JSON.stringify(obj)),
  });
  return [
    file('rl_standalone_config.json', { options: { rl_state_v1: { schema_version: 1, devices, groups } } }),
    file('rl_presets.json', { schema_version: 2, presets }),
    file('rl_scenes.json', { schema_version: 1, scenes }),
  ];
}

function timePlan(label: string, files: RaceLinkFile[], runs = 50): void {
  planImport(files, emptyState(), [], { now: NOW });
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    planImport(files, emptyState(), [], { now: NOW });
    t.push(performance.now() - s);
  }
  t.sort((a, b) => a - b);
  console.log(
    `plan ${label}: median ${t[Math.floor(runs / 2)]?.toFixed(2)} ms, max ${t[runs - 1]?.toFixed(2)} ms`,
  );
}

async function timeImport(label: string, files: RaceLinkFile[]): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'lightnet-bench-import-'));
  const log = silentLogger();
  const clock = new ScaledClock(1);
  const bus = new EventBus();
  const store = new Store({ persistence: new FileStatePersistence(dataDir), bus, clock, log });
  try {
    await store.load();
    const ledPresets = createLedPresets({ dataDir, store, bus, clock, log });
    await ledPresets.init();
    const firmware = new FirmwareStore(dataDir, clock, log);
    await firmware.init();
    const tasks = new TaskManager(bus, clock, log);
    const backup = createBackup({ dataDir, store, tasks, ledPresets, firmware, clock, log });
    const svc = createRaceLinkImport({ store, tasks, ledPresets, backup, clock, log });
    let s = performance.now();
    await svc.run({ files, dryRun: false });
    const first = performance.now() - s;
    s = performance.now();
    const again = await svc.run({ files, dryRun: false });
    const second = performance.now() - s;
    console.log(
      `import ${label} into ${dataDir.startsWith(tmpdir()) ? 'tmpdir' : dataDir}: ${first.toFixed(1)} ms ` +
        `(backup + files + fsynced commit); again: ${second.toFixed(1)} ms, changes ${again.report.changes}`,
    );
  } finally {
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const club = folderFiles(CLUB);
const big = bigClub();
timePlan('v0.1.5 club fixture (24 devices, 5 scenes)', club);
timePlan('big club (250 devices, 60 groups, 100 presets, 100×20-action scenes)', big, 20);
await timeImport('v0.1.5 club fixture', club);
await timeImport('big club', big);
