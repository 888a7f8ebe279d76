/**
 * Per-device steps shared by the fwupdate and presets_download tasks: opening and closing
 * the node AP over the radio, joining it (switching the radio on once if nmcli says it is
 * off), waiting for the node's HTTP server, uploading files, and watching for the node's
 * re-announcement and auto-restore on the radio after a reboot.
 */
import { OPC, type Addr } from '../../protocol/types.ts';
import type { GatewayDriver } from '../../gateway/types.ts';
import { LedHttp, LedHttpError, snippet, type LedInfo } from './led-http.ts';
import type { OtaDeps } from './types.ts';
import type { WifiOptions } from './request.ts';
import { WifiDisabledError, type Joined, type WifiLease } from '../wifi/index.ts';
import { errText } from '../../util/err-text.ts';

export const AP_OPTION = 0x04;

/** A failure that retrying cannot fix (the firmware loop stops at once). */
export class FinalError extends Error {}

export const isAbort = (err: unknown, signal: AbortSignal): boolean =>
  signal.aborted && (err === signal.reason || (err instanceof Error && err.name === 'TaskCancelledError'));

/** 12 hex of the info MAC equal to the expected 12 hex, or ending with the expected 6 hex. */
export function macMatches(infoMac: string, expected: string): boolean {
  const a = infoMac.replace(/[^0-9a-fA-F]/g, '').toLowerCase();
  const e = expected.replace(/[^0-9a-fA-F]/g, '').toLowerCase();
  if (!a || !e) return false;
  return e.length === 12 ? a === e : a.endsWith(e);
}

/** Identify replies and auto-restore ACKs of one device on the radio, from creation on. */
export class AnnounceWatch {
  private identified = false;
  private restored = false;
  private wake: (() => void) | null = null;
  private readonly off: () => void;

  constructor(driver: GatewayDriver, addr: Addr) {
    this.off = driver.on('packet', (p) => {
      const r = p.reply;
      if (!r || p.packet.sender !== addr) return;
      if (r.kind === 'IDENTIFY_REPLY') this.identified = true;
      else if (r.kind === 'ACK' && r.ackOf === OPC.SET_GROUP && this.identified) this.restored = true;
      else return;
      this.wake?.();
    });
  }

  /** Forget what was seen (before a reboot that must be observed anew). */
  reset(): void {
    this.identified = false;
    this.restored = false;
  }

  waitIdentify(deps: OtaDeps, ms: number, signal: AbortSignal): Promise<boolean> {
    return this.waitFor(() => this.identified, deps, ms, signal);
  }

  waitRestored(deps: OtaDeps, ms: number, signal: AbortSignal): Promise<boolean> {
    return this.waitFor(() => this.restored, deps, ms, signal);
  }

  dispose(): void {
    this.off();
    this.wake?.();
  }

  private async waitFor(
    cond: () => boolean,
    deps: OtaDeps,
    ms: number,
    signal: AbortSignal,
  ): Promise<boolean> {
    const end = deps.clock.now() + ms;
    while (!cond()) {
      const left = end - deps.clock.now();
      if (left <= 0) return false;
      signal.throwIfAborted();
      await new Promise<void>((resolve, reject) => {
        const t = deps.clock.setTimeout(done, left);
        const onAbort = (): void => {
          t.cancel();
          this.wake = null;
          reject(signal.reason as Error);
        };
        function done(): void {
          t.cancel();
          signal.removeEventListener('abort', onAbort);
          resolve();
        }
        this.wake = () => {
          this.wake = null;
          done();
        };
        signal.addEventListener('abort', onAbort, { once: true });
      });
    }
    return true;
  }
}

/** CONFIG 0x04 over the radio, ACK awaited (the driver's standard retries inside). */
export async function toggleAp(
  deps: OtaDeps,
  addr: Addr,
  on: boolean,
  signal?: AbortSignal,
): Promise<boolean> {
  deps.registry.noteConfigSent(addr, AP_OPTION, on ? 1 : 0);
  const r = await deps.driver.config(addr, AP_OPTION, [on ? 1 : 0, 0, 0, 0], { signal });
  return r.ok && r.value !== null && r.value.ok;
}

/** Connection state of the host WiFi during one task. */
export interface WifiSession {
  opts: WifiOptions;
  lease: WifiLease | null;
  /** We switched the radio on (at start or after a "disabled" failure). */
  radioSwitched: boolean;
  /** BSSID joined for the previous device. */
  lastBssid: string | null;
}

/** CONNECT_WIFI message; with `--wifi none` it says that nothing is switched. */
export function connectMessage(deps: OtaDeps, ws: WifiSession, baseUrl: string): string {
  return deps.wifi.kind === 'none'
    ? `Host WiFi not switched (--wifi none): the node must be reachable at ${baseUrl}`
    : `Connecting host WiFi (iface ${ws.opts.iface}) to SSID "${ws.opts.ssids.join(', ')}"`;
}

/** Joins the node AP; a "WiFi disabled" failure switches the radio on once (stage 3a). */
export async function joinNodeAp(
  deps: OtaDeps,
  ws: WifiSession,
  predicted: string | null,
  signal: AbortSignal,
  onRadioOn: () => void,
): Promise<Joined> {
  const req = {
    ssids: ws.opts.ssids,
    password: ws.opts.password,
    iface: ws.opts.iface,
    bssid: ws.opts.bssid,
    predicted,
    avoid: ws.lastBssid,
    timeoutMs: ws.opts.timeoutS * 1000 * deps.timings.connectScale,
    signal,
  };
  let joined: Joined;
  try {
    joined = await deps.wifi.connect(req);
  } catch (err) {
    if (!(err instanceof WifiDisabledError) || !ws.opts.hostWifiEnable || ws.radioSwitched) throw err;
    onRadioOn();
    await deps.wifi.radioOn(ws.opts.iface, signal);
    ws.radioSwitched = true;
    joined = await deps.wifi.connect(req);
  }
  ws.lastBssid = joined.bssid;
  return joined;
}

/** WAIT_HTTP: polls `/json/info` until it reports the expected MAC. */
export async function waitForNode(
  deps: OtaDeps,
  http: LedHttp,
  baseUrl: string,
  expectedMac: string,
  signal: AbortSignal,
): Promise<LedInfo> {
  const t = deps.timings;
  const end = deps.io.now() + t.httpWaitMs;
  // What the last poll saw, so a timeout says why (nothing there, or another node).
  let last = 'no answer yet';
  for (;;) {
    try {
      const info = await http.info(t.infoTimeoutMs, signal);
      if (macMatches(info.mac, expectedMac)) return info;
      last = `node reported mac ${info.mac || '(none)'}`;
    } catch (err) {
      if (signal.aborted) throw err;
      last = errText(err);
    }
    if (deps.io.now() >= end)
      throw new Error(
        `Timeout waiting for node (baseUrl=${baseUrl}) to report expected mac ${expectedMac} (last: ${last})`,
      );
    await deps.io.sleep(t.httpPollMs, signal);
  }
}

/**
 * Lost confirmation (ota.md §3.8.1): after a firmware POST whose whole body went out but
 * which got no reply, one `/json/info` within the info timeout tells whether the node is
 * still there (then a retry is safe) or gone (it is probably flashing and rebooting).
 */
export async function nodeStillAnswers(
  deps: OtaDeps,
  http: LedHttp,
  expectedMac: string,
  signal: AbortSignal,
): Promise<boolean> {
  try {
    const info = await http.info(deps.timings.infoTimeoutMs, signal);
    return macMatches(info.mac, expectedMac);
  } catch (err) {
    if (signal.aborted) throw err;
    return false;
  }
}

/** deviceMessages text of an upload only confirmed by the node's re-announce after its reboot. */
export const unconfirmedText = (what: 'Firmware' | 'cfg.json'): string =>
  what === 'Firmware'
    ? 'upload unconfirmed; node re-announced after reboot — verify version'
    : 'cfg.json upload unconfirmed; node re-announced after reboot — verify its settings';

/** presets.json / cfg.json through WLED's file upload (the part's file name picks the target). */
export async function uploadNodeFile(
  deps: OtaDeps,
  http: LedHttp,
  filename: 'presets.json' | 'cfg.json',
  data: Buffer,
  signal: AbortSignal,
  onProgress: (sent: number, total: number) => void,
): Promise<void> {
  const r = await http.postMultipart(
    '/upload',
    [{ name: 'data', filename, data, contentType: 'application/json' }],
    deps.timings.uploadTimeoutMs,
    signal,
    onProgress,
  );
  if (r.status < 200 || r.status >= 300) {
    const s = snippet(r.body);
    throw new Error(`HTTP ${r.status} from /upload${s ? `: ${s}` : ''}`);
  }
}

/**
 * One firmware attempt: POST /update (skipValidation first when asked), the automatic
 * unlock after a 401 and one re-POST. Returns true when the unlock was used.
 */
export async function flashOnce(
  deps: OtaDeps,
  http: LedHttp,
  image: { data: Buffer; name: string },
  o: { skipValidation: boolean; otaPassword: string },
  signal: AbortSignal,
  onProgress: (sent: number, total: number) => void,
): Promise<{ unlocked: boolean }> {
  const parts = [
    ...(o.skipValidation ? [{ name: 'skipValidation', value: '1' }] : []),
    { name: 'file', filename: image.name, data: image.data, contentType: 'application/octet-stream' },
  ];
  const post = (): Promise<import('./led-http.ts').LedReply> =>
    http.postMultipart('/update', parts, deps.timings.firmwareTimeoutMs, signal, onProgress);
  let r = await post();
  let unlocked = false;
  if (r.status === 401) {
    let unlockOk = false;
    try {
      const u = await http.postForm(
        '/settings/sec',
        { OP: o.otaPassword },
        deps.timings.unlockTimeoutMs,
        signal,
      );
      unlockOk = u.status < 400;
    } catch (err) {
      if (signal.aborted) throw err;
    }
    if (!unlockOk) {
      throw new FinalError(
        'HTTP 401 from /update (Unauthorized). The OTA lock or the same-network gate is enabled — disable both ' +
          'for the OTA window. Auto-unlock POST to /settings/sec also failed; check whether settingsPIN is set on ' +
          "the device or otaPass differs from the supplied value (default 'wledota').",
      );
    }
    unlocked = true;
    r = await post();
    if (r.status === 401) {
      throw new FinalError(
        `HTTP 401 from /update still 401 after auto-unlock — device likely has settingsPIN set, otaPass differs ` +
          `from the supplied value, or the auto-unlock POST didn't actually clear the gate. Check the device's ` +
          `security settings.`,
      );
    }
  }
  const body = snippet(r.body);
  const low = r.body.toString('utf8').toLowerCase();
  if (r.status >= 400) throw new LedHttpError(`HTTP ${r.status} from /update${body ? `: ${body}` : ''}`);
  if (r.status === 200 && low.includes('update successful')) return { unlocked };
  if (low.includes('update failed'))
    throw new FinalError(
      `WLED reported flash failure on /update (HTTP ${r.status} body: ${body}). Common causes: wrong firmware ` +
        `binary for this ESP variant, OTA lock / PIN, or insufficient free flash.`,
    );
  throw new FinalError(`unrecognised response from /update (HTTP ${r.status} body: ${body})`);
}
