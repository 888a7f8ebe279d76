/**
 * The house rules (.dependency-cruiser.cjs, run by `npm run lint` as `lint:deps`) must catch
 * what they name: a small house on a temporary folder breaks each rule once — next to an
 * import that keeps it — and the checker, run with the project's own config, must refuse
 * exactly those imports. A rule that matched nothing would pass the real tree silently.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '../../..');
const run = promisify(execFile);

/** path → source; every import names a file of the fixture (or a Node module). */
const house: Record<string, string> = {
  // Ground floor: protocol/ is pure, so reading a file breaks it.
  'src/protocol/bytes.ts': "import { readFileSync } from 'node:fs';\nexport const b = readFileSync;\n",
  'src/protocol/flags.ts': "import { b } from './bytes.ts';\nexport const f = b;\n",
  'src/clock.ts': 'export const now = (): number => 0;\n',
  // The ground floor naming a shape of a higher one (type-only imports count).
  'src/util/log.ts': "import type { A } from '../state/a.ts';\nexport const l: A | null = null;\n",
  // A pure model that knows the driver.
  'src/domain/model.ts': "import { d } from '../gateway/driver.ts';\nexport const m = d;\n",
  // A type-only circle inside one floor.
  'src/state/a.ts': "import type { B } from './b.ts';\nexport interface A { b?: B }\n",
  'src/state/b.ts': "import type { A } from './a.ts';\nexport interface B { a?: A }\n",
  // Two capabilities: beta reaches past alpha's face once and through it once.
  'src/services/alpha/index.ts': "export { inner } from './inner.ts';\n",
  'src/services/alpha/inner.ts': "import { now } from '../../clock.ts';\nexport const inner = now;\n",
  'src/services/beta/index.ts':
    "import { inner } from '../alpha/inner.ts';\nimport { inner as viaFace } from '../alpha/index.ts';\nexport const beta = [inner, viaFace];\n",
  // A sub-room's own index.ts is a face too (services/gamma/laps/).
  'src/services/gamma/laps/index.ts': 'export const laps = 1;\n',
  'src/services/gamma/index.ts': "import { laps } from './laps/index.ts';\nexport const gamma = laps;\n",
  // A service that serves HTTP itself.
  'src/services/gamma/route.ts': "import { app } from '../../http/app.ts';\nexport const r = app;\n",
  'src/http/app.ts': "import { gamma } from '../services/gamma/index.ts';\nexport const app = gamma;\n",
  // http/ past a capability's face, and up into the root.
  'src/http/deep.ts': "import { inner } from '../services/alpha/inner.ts';\nexport const deep = inner;\n",
  'src/http/routes.ts': "import { host } from '../host/index.ts';\nexport const routes = host;\n",
  // A service opening sockets itself.
  'src/services/beta/socket.ts': "import { connect } from 'node:net';\nexport const c = connect;\n",
  // The driver reaching up into services.
  'src/gateway/driver.ts': "import { beta } from '../services/beta/index.ts';\nexport const d = beta;\n",
  // The root may import any face, a sub-room's too; the simulator only from there.
  'src/sim/fleet.ts': "import { now } from '../clock.ts';\nexport const fleet = now;\n",
  'src/host/index.ts':
    "import { laps } from '../services/gamma/laps/index.ts';\nimport { fleet } from '../sim/fleet.ts';\nexport const host = [laps, fleet];\n",
  'src/services/alpha/sim-user.ts': "import { fleet } from '../../sim/fleet.ts';\nexport const s = fleet;\n",
  // The UI: value import of a service breaks it, a type-only one does not.
  'ui/src/view.ts':
    "import { beta } from '../../src/services/beta/index.ts';\nimport type { A } from '../../src/state/a.ts';\nexport const v: [unknown, A | null] = [beta, null];\n",
};

let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lightnet-house-'));
  for (const [p, text] of Object.entries(house)) {
    await mkdir(dirname(join(dir, p)), { recursive: true });
    await writeFile(join(dir, p), text);
  }
  await copyFile(join(repo, 'tsconfig.json'), join(dir, 'tsconfig.json'));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Runs the checker as `npm run lint:deps` does, with the project's config, on the fixture. */
async function depcruise(): Promise<{ code: number; stdout: string }> {
  const bin = join(repo, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
  const args = [
    bin,
    'src',
    'ui/src',
    '--config',
    join(repo, '.dependency-cruiser.cjs'),
    '--output-type',
    'err',
  ];
  try {
    const { stdout } = await run(process.execPath, args, { cwd: dir, maxBuffer: 16 << 20 });
    return { code: 0, stdout };
  } catch (e) {
    const err = e as { code?: number; stdout?: string };
    return { code: typeof err.code === 'number' ? err.code : -1, stdout: err.stdout ?? '' };
  }
}

describe('house rules', () => {
  it('refuses-each-broken-rule-and-only-those-imports', async () => {
    // The lint script's own form: it must fail, its exit code counting the errors it lists.
    const { code, stdout } = await depcruise();
    const found = [...stdout.matchAll(/^\s*error ([\w-]+): (\S+) →\s*(\S+)/gm)].map(
      (m) => `${m[1]}: ${m[2]} -> ${m[3]}`,
    );
    expect(code, stdout).toBe(found.length);
    expect(found.sort()).toEqual(
      [
        'capability-through-its-face-between-capabilities: src/services/beta/index.ts -> src/services/alpha/inner.ts',
        'core-below-services: src/gateway/driver.ts -> src/services/beta/index.ts',
        'no-circular: src/state/a.ts -> src/state/b.ts',
        'leaves-import-only-leaves: src/util/log.ts -> src/state/a.ts',
        'domain-and-transport-stay-low: src/domain/model.ts -> src/gateway/driver.ts',
        'capability-through-its-face: src/http/deep.ts -> src/services/alpha/inner.ts',
        'http-below-root: src/http/routes.ts -> src/host/index.ts',
        'services-no-sockets: src/services/beta/socket.ts -> net',
        'protocol-is-pure: src/protocol/bytes.ts -> fs',
        'services-below-http: src/services/gamma/route.ts -> src/http/app.ts',
        'sim-is-a-peer: src/services/alpha/sim-user.ts -> src/sim/fleet.ts',
        'ui-reads-host-types: ui/src/view.ts -> src/services/beta/index.ts',
      ].sort(),
    );
    // One run of the checker: it starts TypeScript, seconds on this shared machine.
  }, 60_000);
});
