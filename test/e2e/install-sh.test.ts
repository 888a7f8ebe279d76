/**
 * install.sh from the release archive, into a temporary root (`--root DIR`, as an image
 * builder runs it): the program tree with its `current` link, the lightnet system user in
 * dialout (written by useradd/groupadd --prefix into the root's etc files), the data dir it
 * owns, a hardened systemd unit that `systemd-analyze verify` accepts, the enable link; the
 * installed program starts; an update keeps the old version as `previous`, --rollback
 * switches back (and forward again); --uninstall keeps the data, --purge removes it. A first
 * install sets a generated password (printed once, kept in the settings file, which only root
 * and the service's group read) unless --no-password; an update keeps it.
 * Needs root (useradd); skipped, saying so, otherwise.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareEnv, buildRelease, run, startPackaged, VERSION, type Release } from './release/artifacts.ts';

const isRoot = process.getuid?.() === 0;
const hasUseradd = spawnSync('useradd', ['--help']).status === 0;
if (!isRoot || !hasUseradd) {
  console.warn(
    `SKIPPED install.sh tests: ${isRoot ? 'useradd is missing' : 'they need root (useradd --prefix)'}`,
  );
}
const hasAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0;

const NEXT = `${VERSION}-next.1`;
let release: Release;
let work: string;
let root: string;
let unpacked: string;
let nextUnpacked: string;

const inRoot = (p: string): string => join(root, p);
const install = (dir: string, ...args: string[]) =>
  run('bash', [join(dir, 'install.sh'), '--root', root, ...args]);
const envFile = (): string => readFileSync(inRoot('etc/lightnet/lightnet.env'), 'utf8');
const passwordIn = (env: string): string | undefined => env.match(/^LIGHTNET_PASSWORD=(.*)$/m)?.[1];
let password = '';
const passwdLine = (): string | undefined =>
  readFileSync(inRoot('etc/passwd'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('lightnet:'));

describe.skipIf(!isRoot || !hasUseradd)('install.sh into a temporary root', () => {
  beforeAll(async () => {
    release = await buildRelease();
    work = await mkdtemp(join(tmpdir(), 'lightnet-install-'));
    expect(run('tar', ['-xzf', release.tarball, '-C', work]).status).toBe(0);
    unpacked = join(work, `lightnet-${VERSION}`);
    // A second version to update to: the same program under another version number.
    nextUnpacked = join(work, `lightnet-${NEXT}`);
    await cp(unpacked, nextUnpacked, { recursive: true });
    await writeFile(join(nextUnpacked, 'VERSION'), `${NEXT}\n`);
    // The target root: the account files a fresh Debian image has (dialout is gid 20 there).
    root = join(work, 'root');
    await mkdir(join(root, 'etc'), { recursive: true });
    await writeFile(inRoot('etc/passwd'), 'root:x:0:0:root:/root:/bin/bash\n');
    await writeFile(inRoot('etc/group'), 'root:x:0:\ndialout:x:20:\n');
    await writeFile(inRoot('etc/shadow'), 'root:*:19000:0:99999:7:::\n', { mode: 0o640 });
    await writeFile(inRoot('etc/gshadow'), 'root:*::\ndialout:*::\n', { mode: 0o640 });
  }, 120_000);

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
    await release.cleanup();
  });

  it('installs-the-tree-user-data-dir-settings-unit-and-current-link', async () => {
    const r = install(unpacked);
    expect(r.status, r.out).toBe(0);
    expect(readlinkSync(inRoot('opt/lightnet/current'))).toBe(VERSION);
    expect(existsSync(inRoot(`opt/lightnet/${VERSION}/dist/server/main.js`))).toBe(true);
    expect(statSync(inRoot(`opt/lightnet/${VERSION}/bin/lightnet`)).mode & 0o111).not.toBe(0);

    const [, , uid, gid, , home, shell] = (passwdLine() ?? '').split(':');
    expect(Number(uid)).toBeLessThan(1000); // a system user
    expect(home).toBe('/var/lib/lightnet');
    expect(shell).toBe('/usr/sbin/nologin');
    const group = await readFile(inRoot('etc/group'), 'utf8');
    expect(group).toMatch(/^dialout:x:20:lightnet$/m);
    expect(await readFile(inRoot('etc/shadow'), 'utf8')).toMatch(/^lightnet:!/m); // no password login

    const data = statSync(inRoot('var/lib/lightnet'));
    expect([data.uid, data.gid]).toEqual([Number(uid), Number(gid)]);
    expect(data.mode & 0o777).toBe(0o750);
    expect(await readFile(inRoot('etc/lightnet/lightnet.env'), 'utf8')).toMatch(
      /^LIGHTNET_HOST=0\.0\.0\.0$/m,
    );
    // It listens on the network, so it got a password: generated, printed once, kept in the
    // settings file that root owns and only the service's group may read.
    password = passwordIn(envFile()) ?? '';
    expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(r.out).toContain(`the web UI password is: ${password}`);
    expect(r.out).toContain('change it there, then sudo systemctl restart lightnet');
    const env = statSync(inRoot('etc/lightnet/lightnet.env'));
    expect([env.uid, env.gid, env.mode & 0o777]).toEqual([0, Number(gid), 0o640]);

    const unit = await readFile(inRoot('etc/systemd/system/lightnet.service'), 'utf8');
    for (const line of [
      'User=lightnet',
      'SupplementaryGroups=dialout',
      'ExecStart=/opt/lightnet/current/bin/lightnet --data-dir /var/lib/lightnet',
      'Restart=on-failure',
      'StandardOutput=journal',
      'NoNewPrivileges=yes',
      'ProtectSystem=strict',
      'ReadWritePaths=/var/lib/lightnet',
      'DevicePolicy=closed',
      'DeviceAllow=char-ttyUSB rw',
      'DeviceAllow=char-ttyACM rw',
      'WantedBy=multi-user.target',
    ]) {
      expect(unit).toContain(`\n${line}\n`);
    }
    expect(
      lstatSync(inRoot('etc/systemd/system/multi-user.target.wants/lightnet.service')).isSymbolicLink(),
    ).toBe(true);
  });

  it.skipIf(!hasAnalyze)('the-unit-passes-systemd-analyze-verify', async () => {
    // verify loads the unit's dependencies (sysinit.target …) from the root: give it the
    // unit library of this machine's systemd, as a real image has.
    await mkdir(inRoot('usr/lib/systemd'), { recursive: true });
    await cp('/lib/systemd/system', inRoot('usr/lib/systemd/system'), {
      recursive: true,
      verbatimSymlinks: true,
    });
    const v = run('systemd-analyze', ['verify', `--root=${root}`, '/etc/systemd/system/lightnet.service']);
    // Unknown keys only warn (exit 0): no output at all is the pass.
    expect(v, v.out).toEqual({ status: 0, out: '' });
  });

  it('the-installed-program-starts-through-the-current-link', async () => {
    const data = join(work, 'run-data');
    // With the settings file's password (as the unit's EnvironmentFile gives it).
    const host = await startPackaged(inRoot('opt/lightnet/current/bin/lightnet'), data, {
      ...bareEnv(),
      LIGHTNET_PASSWORD: password,
    });
    expect((await fetch(`${host.api}/devices`)).status).toBe(401);
    const authed = await fetch(`${host.api}/devices`, { headers: { authorization: `Bearer ${password}` } });
    expect(authed.status).toBe(200);
    expect(await host.stop()).toBe(0);
  });

  it('installing-the-same-version-again-changes-nothing-and-keeps-one-user', () => {
    const r = install(unpacked);
    expect(r.status, r.out).toBe(0);
    expect(readlinkSync(inRoot('opt/lightnet/current'))).toBe(VERSION);
    expect(existsSync(inRoot('opt/lightnet/previous'))).toBe(false);
    expect(readFileSync(inRoot('etc/passwd'), 'utf8').match(/^lightnet:/gm)).toHaveLength(1);
  });

  it('an-update-keeps-the-old-version-and-rollback-switches-back-and-forth', async () => {
    await writeFile(inRoot('var/lib/lightnet/state.json'), '{"kept":true}');
    const up = install(nextUnpacked);
    expect(up.status, up.out).toBe(0);
    // The update keeps the settings and their password, and prints no password.
    expect(passwordIn(envFile())).toBe(password);
    expect(up.out).not.toContain(password);
    expect(up.out).not.toContain('WARNING');
    expect(readlinkSync(inRoot('opt/lightnet/current'))).toBe(NEXT);
    expect(readlinkSync(inRoot('opt/lightnet/previous'))).toBe(VERSION);

    // The documented command: the installed version's own script.
    const back = install(inRoot('opt/lightnet/current'), '--rollback');
    expect(back.status, back.out).toBe(0);
    expect(readlinkSync(inRoot('opt/lightnet/current'))).toBe(VERSION);
    expect(readlinkSync(inRoot('opt/lightnet/previous'))).toBe(NEXT);
    const forth = install(inRoot('opt/lightnet/current'), '--rollback');
    expect(forth.status, forth.out).toBe(0);
    expect(readlinkSync(inRoot('opt/lightnet/current'))).toBe(NEXT);
    expect(await readFile(inRoot('var/lib/lightnet/state.json'), 'utf8')).toBe('{"kept":true}');
  });

  it('uninstall-keeps-the-data-unless-purged', async () => {
    const u = install(inRoot('opt/lightnet/current'), '--uninstall');
    expect(u.status, u.out).toBe(0);
    expect(existsSync(inRoot('opt/lightnet'))).toBe(false);
    expect(existsSync(inRoot('etc/systemd/system/lightnet.service'))).toBe(false);
    expect(existsSync(inRoot('etc/systemd/system/multi-user.target.wants/lightnet.service'))).toBe(false);
    expect(await readFile(inRoot('var/lib/lightnet/state.json'), 'utf8')).toBe('{"kept":true}');
    expect(passwdLine()).toBeDefined();

    const p = install(unpacked, '--uninstall', '--purge');
    expect(p.status, p.out).toBe(0);
    expect(existsSync(inRoot('var/lib/lightnet'))).toBe(false);
    expect(existsSync(inRoot('etc/lightnet'))).toBe(false);
    expect(passwdLine()).toBeUndefined();
    expect(await readFile(inRoot('etc/group'), 'utf8')).toMatch(/^dialout:x:20:$/m);
    // Its group goes too (a later install would otherwise fail to add the user).
    expect(await readFile(inRoot('etc/group'), 'utf8')).not.toMatch(/^lightnet:/m);

    // Once more, with nothing left: it says so rather than "kept the data".
    const again = install(unpacked, '--uninstall');
    expect(again.status, again.out).toBe(0);
    expect(again.out).toContain('not installed here');
    expect(again.out).not.toContain('kept the data');
  });

  it('rollback-without-a-previous-version-says-so', () => {
    const r = install(unpacked, '--rollback');
    expect(r.status).toBe(1);
    expect(r.out).toContain('no previous version');
  });

  // useradd --prefix on an empty folder fails with "cannot lock …/etc/group"; the script
  // says what is missing instead, before it writes anything.
  it('a-root-without-account-files-is-refused-naming-them-and-nothing-is-written', async () => {
    const bare = join(work, 'bare-root');
    await mkdir(bare);
    const r = run('bash', [join(unpacked, 'install.sh'), '--root', bare]);
    expect(r.status, r.out).toBe(2);
    expect(r.out).toContain('has no etc/passwd and etc/group');
    expect(existsSync(join(bare, 'opt'))).toBe(false);
    expect(existsSync(join(bare, 'etc'))).toBe(false);
  });

  it('no-password-is-a-loud-choice-and-an-update-without-one-says-so', async () => {
    const r = install(unpacked, '--no-password');
    expect(r.status, r.out).toBe(0);
    expect(passwordIn(envFile())).toBeUndefined();
    expect(envFile()).toMatch(/^#LIGHTNET_PASSWORD=/m);
    expect(r.out).toContain('WARNING: no password (--no-password): anyone on');
    expect(r.out).not.toContain('the web UI password is');
    // An update of such an install (or of one from before passwords) says it again.
    const up = install(nextUnpacked);
    expect(up.status, up.out).toBe(0);
    expect(up.out).toContain('WARNING: no password is set and the service listens on the network');
    expect(passwordIn(envFile())).toBeUndefined();
    const p = install(unpacked, '--uninstall', '--purge');
    expect(p.status, p.out).toBe(0);
  });
});
