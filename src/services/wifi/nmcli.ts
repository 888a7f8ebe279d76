/**
 * NetworkManager backend of the host WiFi (ota.md §5). Every call is an argument array
 * (never a shell) with LC_ALL=C and a kill timeout. Node APs are joined through one
 * dedicated, non-autoconnecting profile, so no user profile is ever touched and the host
 * never joins a node AP on its own later. Passwords never reach logs or error texts.
 */
import type { Clock } from '../../clock.ts';
import type { Logger } from '../../logger.ts';
import type { CommandResult, CommandRunner } from './command-runner.ts';
import { splitTerse } from './host-wifi.ts';
import {
  bssidMatches,
  colonBssid,
  LeaseFile,
  WifiDisabledError,
  type ConnectRequest,
  type Joined,
  type WifiBackend,
  type WifiLease,
} from './backend.ts';

/** Our own NetworkManager profile for node APs. */
export const OTA_PROFILE = 'lightnet-ota';
export const NMCLI_MISSING = 'nmcli not available on host (cannot switch WiFi automatically)';
const UNSUPPORTED = 'host WiFi control needs Linux with NetworkManager (nmcli)';

interface ScanRow {
  inUse: boolean;
  bssid: string;
  ssid: string;
}

export class NmcliBackend implements WifiBackend {
  readonly kind = 'nmcli' as const;
  /** One WiFi-switching operation at a time, process-wide (ota.md §8.11). */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly runner: CommandRunner,
    private readonly leaseFile: LeaseFile,
    /** Wall time: nmcli and the air take real time, whatever the simulated clock does. */
    private readonly io: Clock,
    private readonly log: Logger,
    private readonly platform: NodeJS.Platform = process.platform,
  ) {}

  async unsupportedReason(): Promise<string | null> {
    if (this.platform !== 'linux') return UNSUPPORTED;
    try {
      const v = await this.nm(['--version'], 6000);
      if (v.code !== 0) return UNSUPPORTED;
      const r = await this.nm(['-t', '-f', 'RUNNING', 'general'], 6000);
      if (r.code !== 0 || r.stdout.trim() !== 'running')
        return `${UNSUPPORTED}: NetworkManager is not running`;
    } catch (err) {
      return (err as Error).message;
    }
    return null;
  }

  async interfaceProblem(iface: string): Promise<string | null> {
    const r = await this.nm(['-t', '-f', 'DEVICE,TYPE,STATE,CONNECTION', 'device', 'status'], 6000);
    if (r.code !== 0) return `nmcli device status failed (exit ${r.code})`;
    const wifi = r.stdout
      .split('\n')
      .map((l) => splitTerse(l))
      .filter((f) => f[1] === 'wifi')
      .map((f) => f[0] ?? '');
    if (wifi.includes(iface)) return null;
    return wifi.length === 0
      ? 'this host has no WiFi interface (NetworkManager lists none)'
      : `this host has no WiFi interface ${iface} (WiFi interfaces: ${wifi.join(', ')})`;
  }

  async radioEnabled(): Promise<boolean> {
    const r = await this.nm(['-t', '-f', 'WIFI', 'radio'], 6000);
    const out = r.stdout.trim().toLowerCase();
    return r.code === 0 ? out === 'enabled' : out.includes('enabled') && !out.includes('disabled');
  }

  takeLease(iface: string, restoreRadio: boolean): Promise<WifiLease> {
    return this.serial(async () => {
      const radioWasOn = await this.radioEnabled();
      let previous: WifiLease['previous'] = null;
      const act = await this.nm(
        ['-t', '-f', 'NAME,UUID,TYPE,DEVICE', 'connection', 'show', '--active'],
        8000,
      );
      if (act.code === 0) {
        for (const line of lines(act.stdout)) {
          const [name = '', uuid = '', , device = ''] = splitTerse(line);
          if (device === iface && name !== OTA_PROFILE && uuid) previous = { name, uuid };
        }
      }
      const lease: WifiLease = { iface, radioWasOn, previous, restoreRadio, ts: Date.now() };
      await this.leaseFile.write(lease);
      this.log.info({ iface, radioWasOn, previous: previous?.name ?? null }, 'host WiFi lease taken');
      return lease;
    });
  }

  radioOn(iface: string, signal?: AbortSignal): Promise<void> {
    return this.serial(async () => {
      const r = await this.nm(['radio', 'wifi', 'on'], 12_000);
      if (r.code !== 0) throw new Error(`nmcli radio wifi on failed (${r.code}): ${out(r)}`);
      await this.waitIface(iface, 15_000, signal);
    });
  }

  connect(req: ConnectRequest): Promise<Joined> {
    return this.serial(() => this.doConnect(req));
  }

  release(iface: string): Promise<void> {
    return this.serial(async () => {
      const r = await this.nm(['connection', 'down', 'id', OTA_PROFILE], 20_000);
      if (r.code !== 0 && r.code !== 10) this.log.debug({ iface, code: r.code }, 'OTA profile down failed');
    });
  }

  restore(lease: WifiLease): Promise<{ restored: boolean; warnings: string[] }> {
    return this.serial(async () => {
      const warnings: string[] = [];
      let restored = true;
      await this.nm(['connection', 'down', 'id', OTA_PROFILE], 20_000);
      const del = await this.nm(['connection', 'delete', 'id', OTA_PROFILE], 10_000);
      if (del.code !== 0 && del.code !== 10)
        warnings.push(`Host WiFi cleanup: deleting profile '${OTA_PROFILE}' failed: ${out(del)}`);
      if (!lease.radioWasOn && lease.restoreRadio) {
        const r = await this.nm(['radio', 'wifi', 'off'], 12_000);
        if (r.code !== 0) {
          restored = false;
          warnings.push(`Host WiFi restore failed: nmcli radio wifi off failed (${r.code}): ${out(r)}`);
        }
      } else if (lease.previous) {
        const up = await this.nm(
          ['--wait', '15', 'connection', 'up', 'uuid', lease.previous.uuid, 'ifname', lease.iface],
          25_000,
        );
        if (up.code !== 0) {
          restored = false;
          warnings.push(
            `Host WiFi restore failed: re-activating '${lease.previous.name}' failed (${up.code}): ${out(up)}`,
          );
        }
      } else if (lease.radioWasOn) {
        const r = await this.nm(['device', 'set', lease.iface, 'autoconnect', 'yes'], 10_000);
        if (r.code !== 0) warnings.push(`Host WiFi restore: autoconnect on ${lease.iface} failed: ${out(r)}`);
      }
      await this.leaseFile.remove();
      this.log.info(
        { iface: lease.iface, restored, previous: lease.previous?.name ?? null },
        'host WiFi restored',
      );
      return { restored, warnings };
    });
  }

  private async doConnect(req: ConnectRequest): Promise<Joined> {
    const { iface, ssids } = req;
    if (ssids.length === 0) throw new Error('no candidate SSIDs supplied');
    await this.waitIface(iface, 12_000, req.signal);
    await this.nm(['connection', 'delete', 'id', OTA_PROFILE], 10_000);
    const initial = new Set((await this.scan(iface)).map((r) => r.bssid));
    const start = this.io.now();
    const deadline = start + Math.max(1000, req.timeoutMs);
    const halfway = start + Math.max(1000, req.timeoutMs) / 2;
    let lastErr = '';
    let matched = false;
    let ambiguous: string[] = [];
    while (this.io.now() < deadline) {
      req.signal?.throwIfAborted();
      await this.nm(['device', 'wifi', 'rescan', 'ifname', iface], 10_000);
      const rows = (await this.scan(iface)).filter((r) => ssids.includes(r.ssid));
      const pick = choose(rows, req, initial, this.io.now() >= halfway);
      ambiguous = pick.ambiguous;
      if (!pick.row) {
        await this.io.sleep(1500, req.signal);
        continue;
      }
      matched = true;
      const { ssid } = pick.row;
      const bssid = pick.pin ? pick.row.bssid : null;
      const args = (withPsk: boolean): string[] => [
        '--wait',
        String(Math.min(60, Math.max(10, Math.round(req.timeoutMs / 1000)))),
        'device',
        'wifi',
        'connect',
        ssid,
        'ifname',
        iface,
        'name',
        OTA_PROFILE,
        ...(withPsk ? ['password', req.password] : []),
        ...(bssid ? ['bssid', bssid] : []),
      ];
      let r = await this.nm(args(true), 70_000);
      const text = out(r).toLowerCase();
      if (r.code !== 0 && text.includes('key-mgmt') && text.includes('missing')) {
        // An open AP: no PSK expected.
        await this.nm(['connection', 'delete', 'id', OTA_PROFILE], 10_000);
        r = await this.nm(args(false), 70_000);
      }
      if (r.code === 0) {
        await this.nm(['connection', 'modify', OTA_PROFILE, 'connection.autoconnect', 'no'], 10_000);
        this.log.info({ iface, ssid, bssid: pick.row.bssid }, 'host WiFi joined node AP');
        return { ssid, bssid: pick.row.bssid };
      }
      const t = out(r);
      const low = t.toLowerCase();
      if (low.includes('wi-fi is disabled') || low.includes('wireless is disabled'))
        throw new WifiDisabledError(t);
      if (low.includes('secrets were required') || low.includes('no secrets provided')) {
        throw new Error(
          `AP '${ssid}': authentication failed (Secrets rejected). Likely causes: the AP password is wrong, ` +
            `OR the device's hostapd is briefly rate-limiting the host after recent failed attempts — wait ~30 s and retry. ` +
            `Raw nmcli output: ${t}`,
        );
      }
      if (low.includes('insufficient privileges') || low.includes('not authorized')) {
        throw new Error(
          `nmcli access denied (polkit). Grant the user running Lightnet NetworkManager rights ` +
            `(see README "Over-the-air updates and host WiFi"), then restart. Raw nmcli output: ${t}`,
        );
      }
      lastErr = `nmcli device wifi connect failed (${r.code}): ${t}`;
      await this.io.sleep(900, req.signal);
    }
    const list = `[${ssids.join(', ')}]`;
    if (ambiguous.length > 1)
      throw new Error(
        `cannot identify the node's AP (expected BSSID ${req.bssid ?? showPredicted(req.predicted)}; saw ${ambiguous.join(', ')})`,
      );
    if (matched) throw new Error(`could not connect to any of ${list}: ${lastErr}`);
    throw new Error(`timeout waiting for one of ${list} to appear on ${iface}`);
  }

  private async waitIface(iface: string, budgetMs: number, signal?: AbortSignal): Promise<void> {
    const end = this.io.now() + budgetMs;
    let last = 'missing';
    for (;;) {
      const r = await this.nm(['-t', '-f', 'DEVICE,TYPE,STATE', 'device', 'status'], 6000);
      if (r.code === 0) {
        const row = lines(r.stdout)
          .map(splitTerse)
          .find((f) => f[0] === iface);
        last = row?.[2] ?? 'missing';
        if (row && row[1] === 'wifi' && last !== 'unavailable') return;
      }
      if (this.io.now() >= end) throw new Error(`host WiFi iface '${iface}' not ready (state=${last})`);
      await this.io.sleep(400, signal);
    }
  }

  private async scan(iface: string): Promise<ScanRow[]> {
    const r = await this.nm(
      ['-t', '-f', 'IN-USE,BSSID,SSID', 'device', 'wifi', 'list', 'ifname', iface, '--rescan', 'no'],
      8000,
    );
    if (r.code !== 0) return [];
    return lines(r.stdout)
      .map(splitTerse)
      .map(([inUse = '', bssid = '', ssid = '']) => ({
        inUse: inUse.trim() === '*',
        bssid: bssid.toUpperCase(),
        ssid,
      }))
      .filter((x) => x.bssid);
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** One nmcli call; argv with the PSK redacted in logs. A missing binary is a clear error. */
  private async nm(args: string[], timeoutMs: number): Promise<CommandResult> {
    const shown = args.map((a, i) => (args[i - 1] === 'password' ? '***' : a));
    try {
      const r = await this.runner.run('nmcli', args, { timeoutMs });
      this.log.debug({ argv: shown, code: r.code }, 'nmcli');
      return r;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(NMCLI_MISSING);
      throw err;
    }
  }
}

function choose(
  rows: ScanRow[],
  req: ConnectRequest,
  initial: Set<string>,
  pastHalf: boolean,
): { row: ScanRow | null; pin: boolean; ambiguous: string[] } {
  if (req.bssid) {
    const pin = req.bssid.toUpperCase();
    return { row: rows.find((r) => r.bssid === pin) ?? null, pin: true, ambiguous: [] };
  }
  if (req.predicted) {
    const hit = rows.find((r) => bssidMatches(r.bssid, req.predicted ?? ''));
    if (hit) return { row: hit, pin: true, ambiguous: [] };
  }
  if (req.avoid || pastHalf || !req.predicted) {
    // A node AP that appeared after we asked it to open, and that is not the previous node's.
    const fresh = rows.filter((r) => r.bssid !== req.avoid && !initial.has(r.bssid));
    if (fresh.length === 1 && fresh[0]) return { row: fresh[0], pin: true, ambiguous: [] };
    if (fresh.length > 1) return { row: null, pin: false, ambiguous: fresh.map((r) => r.bssid) };
  }
  if (!req.predicted && !req.avoid) {
    for (const s of req.ssids) {
      const r = rows.find((x) => x.ssid === s);
      if (r) return { row: r, pin: false, ambiguous: [] };
    }
  }
  return { row: null, pin: false, ambiguous: [] };
}

/** A predicted BSSID as people read it: full, or `*:*:*:` and the known last three bytes. */
const showPredicted = (p: string | null): string =>
  !p ? '?' : p.length === 12 ? colonBssid(p) : `*:*:*:${colonBssid(p)}`;

const lines = (s: string): string[] => s.split('\n').filter((l) => l.trim());
/** nmcli's own message (stderr first); never contains our argv, so never the PSK. */
const out = (r: CommandResult): string => (r.stderr.trim() || r.stdout.trim()).slice(0, 300);
