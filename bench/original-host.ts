/**
 * The original host (PSi86/RaceLink_Host, Python/Flask, standalone mode) as a benchmark
 * opponent: started from a checkout of it, with a data folder that holds the same fleet as
 * Lightnet's benchmark state. Nothing of it is copied into this project — the benchmark
 * runs it, as an operator would (`racelink-standalone`), to time it in the same run.
 *
 * Where the checkout is: `--original DIR`, else $RACELINK_HOST_DIR. It needs Flask and
 * pyserial for the Python that runs it (`--original-python`, default /usr/bin/python3;
 * Debian: python3-flask python3-serial). Without a checkout the benchmarks say so and leave
 * the original out.
 *
 * The original keeps its state in `~/.racelink/standalone_config.json` (options.rl_state_v1,
 * schema 1, a JSON string in the JSON file): HOME points at a temporary folder holding it.
 * It has no simulator: it starts with no gateway (its startup probe finds no serial port),
 * while Lightnet starts on its simulator — the original is spared its gateway work.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { StateModel } from '../src/domain/model.ts';

export interface OriginalHost {
  dir: string;
  python: string;
}

const argValue = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};

/** The original's checkout and Python, or a reason why it cannot run here. */
export function findOriginal(): OriginalHost | string {
  const dir = argValue('--original') ?? process.env.RACELINK_HOST_DIR;
  if (!dir) return 'no checkout of PSi86/RaceLink_Host given (--original DIR or RACELINK_HOST_DIR)';
  const abs = resolve(dir);
  if (!existsSync(join(abs, 'racelink', 'integrations', 'standalone', 'webapp.py')))
    return `${abs} is not a RaceLink_Host checkout`;
  const python = argValue('--original-python') ?? '/usr/bin/python3';
  const check = spawnSync(python, ['-c', 'import flask, serial'], { stdio: 'ignore' });
  if (check.status !== 0) return `${python} lacks Flask or pyserial (Debian: python3-flask python3-serial)`;
  return { dir: abs, python };
}

/** The original's device record (state schema 1) for one of ours. */
function originalDevice(d: StateModel['devices'][number]): Record<string, unknown> {
  return {
    addr: d.full_mac ?? d.addr,
    dev_type: d.dev_type,
    name: d.name,
    version: d.version,
    caps: 0,
    groupId: d.groupId,
    flags: d.flags,
    presetId: d.presetId,
    effectId: d.effectId,
    brightness: d.brightness,
    configByte: d.configByte,
    specials: d.specials,
    voltage_mV: d.voltage_mV,
    node_rssi: d.node_rssi,
    node_snr: d.node_snr,
    host_rssi: d.host_rssi,
    host_snr: d.host_snr,
    last_seen_ts: 0,
    link_online: null,
    link_ts: 0,
    link_error: null,
    last_ack: { ok: false, opcode: null, status: null, seq: null, ts: 0 },
  };
}

/**
 * Writes `home`/.racelink/standalone_config.json: `state`'s devices and groups in the
 * original's form (its group list starts with the static "All WLED Nodes" entry, which its
 * API shows as group 0), listening on `port`.
 */
export async function writeOriginalHome(home: string, state: StateModel, port: number): Promise<void> {
  const groups = [
    { name: 'All WLED Nodes', static_group: 1, dev_type: 0 },
    ...state.groups.map((g) => ({ name: g.name, static_group: 0, dev_type: g.dev_type })),
  ];
  const rlState = { schema_version: 1, devices: state.devices.map(originalDevice), groups };
  await mkdir(join(home, '.racelink'), { recursive: true });
  await writeFile(
    join(home, '.racelink', 'standalone_config.json'),
    JSON.stringify({
      host: '127.0.0.1',
      port,
      debug: false,
      options: { rl_state_v1: JSON.stringify(rlState) },
    }),
  );
}

/** The command that starts it as `racelink-standalone` does (its console script's entry). */
export function originalCommand(o: OriginalHost): [string, string[]] {
  return [
    o.python,
    ['-c', 'from racelink.integrations.standalone.webapp import run_standalone; run_standalone()'],
  ];
}

/** The lists its console loads on open (its API has no native-presets or fw/uploads lists). */
export const ORIGINAL_LISTS = ['devices', 'groups', 'scenes', 'presets/list', 'task'];
