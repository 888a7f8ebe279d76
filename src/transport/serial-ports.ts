import { promises as fs } from 'node:fs';
import path from 'node:path';
import { serialport } from './serialport-module.ts';
import type { TransportLog } from './link.ts';
import { errText } from '../util/err-text.ts';

export interface CandidatePort {
  path: string;
  /** `serialport`: reported by SerialPort.list(); `scan`: found by scanning /dev. */
  source: 'serialport' | 'scan';
  /** Manufacturer / VID:PID / by-id name, for logs and the "what was tried" report. */
  info?: string;
}

/** The subset of serialport's PortInfo we use (all optional: platforms differ). */
export interface ListedPort {
  path: string;
  manufacturer?: string | undefined;
  serialNumber?: string | undefined;
  pnpId?: string | undefined;
  vendorId?: string | undefined;
  productId?: string | undefined;
}

export interface ListCandidateOptions {
  /** Replaces SerialPort.list() (tests). */
  list?: () => Promise<ListedPort[]>;
  /** Root of the device tree to scan (default `/dev`; tests use a temp dir). */
  devRoot?: string;
  log?: TransportLog;
}

/**
 * Lists serial ports that could be a gateway: the USB ones from SerialPort.list() plus a
 * scan of `/dev/serial/by-id/*`, `/dev/ttyUSB*`, `/dev/ttyACM*`. The scan always runs,
 * because SerialPort.list() rejects where udev is missing ("spawn udevadm ENOENT") and
 * can miss ports that udev has not tagged. Entries are deduplicated by real path and keep
 * the position of the first one seen (serialport entries first, then by-id links, then raw
 * names), but a device that also has a `/dev/serial/by-id/…` link is returned under that
 * link: it names the board itself, while `ttyACM0` may become `ttyACM1` when a gateway
 * re-enumerates (reboot after a persisted RF change, a replug), and a reconnect must find
 * the same board again. Never throws.
 */
export async function listCandidatePorts(opts: ListCandidateOptions = {}): Promise<CandidatePort[]> {
  const log = opts.log ?? (() => undefined);
  const devRoot = opts.devRoot ?? '/dev';
  const found: CandidatePort[] = [];

  try {
    const listed = await (opts.list ?? (() => serialport().SerialPort.list()))();
    for (const p of listed) {
      if (!looksLikeUsb(p)) continue;
      const info = describe(p);
      found.push(
        info ? { path: p.path, source: 'serialport', info } : { path: p.path, source: 'serialport' },
      );
    }
  } catch (err) {
    log('serial port listing failed; scanning the device tree instead', { error: errText(err) });
  }

  const byIdDir = path.join(devRoot, 'serial', 'by-id');
  for (const name of await readDirSorted(byIdDir)) {
    found.push({ path: path.join(byIdDir, name), source: 'scan', info: name });
  }
  for (const name of await readDirSorted(devRoot)) {
    if (/^tty(USB|ACM)\d+$/.test(name)) found.push({ path: path.join(devRoot, name), source: 'scan' });
  }

  const byDevice = new Map<string, CandidatePort>();
  for (const c of found) {
    const key = await fs.realpath(c.path).catch(() => c.path);
    const first = byDevice.get(key);
    if (!first) byDevice.set(key, c);
    else if (isById(c.path, byIdDir) && !isById(first.path, byIdDir)) {
      // Same device, stable name: keep the first entry's place and details.
      byDevice.set(key, { ...first, path: c.path, info: first.info ?? c.info ?? path.basename(c.path) });
    }
  }
  return [...byDevice.values()];
}

const isById = (p: string, byIdDir: string): boolean => path.dirname(p) === byIdDir;

/** Same rule as the original host: USB names, a reported VID/PID, or "USB" in the description. */
function looksLikeUsb(p: ListedPort): boolean {
  const name = path.basename(p.path);
  if (/^tty(USB|ACM)\d+$/.test(name) || /^(cu|tty)\.usb/i.test(name)) return true;
  if (p.vendorId || p.productId) return true;
  return /usb/i.test(`${p.pnpId ?? ''} ${p.manufacturer ?? ''}`);
}

function describe(p: ListedPort): string | undefined {
  const parts: string[] = [];
  if (p.manufacturer) parts.push(p.manufacturer);
  if (p.vendorId || p.productId) parts.push(`${p.vendorId ?? '?'}:${p.productId ?? '?'}`);
  if (p.serialNumber) parts.push(`sn ${p.serialNumber}`);
  return parts.length > 0 ? parts.join(' ') : undefined;
}

async function readDirSorted(dir: string): Promise<string[]> {
  try {
    // Natural order so ttyUSB2 comes before ttyUSB10.
    return (await fs.readdir(dir)).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  } catch {
    return [];
  }
}
