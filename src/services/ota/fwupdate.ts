/**
 * The `fwupdate` task (ota.md §3, decisions §16–17): for each device in order, open its
 * AP over the radio, join it, wait for its HTTP server, upload presets → firmware → cfg
 * (cfg last: it reboots the node; firmware + cfg runs as two passes), wait for the node to
 * re-announce on the radio, and close the AP where it stays open. Host WiFi is restored
 * and opened APs are closed on every path: success, failure, cancel, shutdown.
 */
import { chipMatchesArch, normalizeReleaseName, releaseMismatchText } from '../../domain/firmware-image.ts';
import type { Addr } from '../../protocol/types.ts';
import { TaskCancelledError, type TaskContext } from '../../tasks/task-manager.ts';
import type { UploadedFileInfo } from './firmware-store.ts';
import { LedHttp, LedHttpError } from './led-http.ts';
import { errText } from '../../util/err-text.ts';
import { OtaMeta } from './meta.ts';
import type { WifiOptions } from './request.ts';
import {
  AnnounceWatch,
  FinalError,
  flashOnce,
  isAbort,
  connectMessage,
  joinNodeAp,
  nodeStillAnswers,
  toggleAp,
  unconfirmedText,
  uploadNodeFile,
  waitForNode,
  type WifiSession,
} from './steps.ts';
import type { OtaDeps } from './types.ts';
import { predictApBssid } from '../wifi/index.ts';
import { finishWifi, startWifi } from './wifi-lease.ts';

export interface FwPlan {
  addrs: Addr[];
  /** 12 hex when the full MAC is known, else the 6-hex address. */
  expectedMac: Record<Addr, string>;
  groupIds: Record<Addr, number>;
  fw: { info: UploadedFileInfo; bytes: Buffer } | null;
  presets: { name: string; bytes: Buffer; sha256: string } | null;
  cfg: { info: UploadedFileInfo; bytes: Buffer } | null;
  retries: number;
  stopOnError: boolean;
  skipValidation: boolean;
  wifi: WifiOptions;
  baseUrl: string;
}

interface DeviceRow {
  addr: Addr;
  expectedMac: string;
  groupId: number;
  ok: boolean;
  error: string | null;
  ssid?: string;
  info_before?: { mac: string; ver: string; arch: string; name: string; release: string };
  autoRestoreOk?: boolean | 'timeout';
  unlocked?: boolean;
}

export async function runFwUpdate(ctx: TaskContext, plan: FwPlan, deps: OtaDeps): Promise<unknown> {
  const total = plan.addrs.length;
  const meta = new OtaMeta(
    ctx,
    deps.clock,
    { total, retries: plan.retries, baseUrl: plan.baseUrl, macs: [...plan.addrs] },
    deps.timings.progressIntervalMs,
  );
  for (const a of plan.addrs) meta.deviceState[a] = 'queued';
  const rows: DeviceRow[] = plan.addrs.map((addr) => ({
    addr,
    expectedMac: plan.expectedMac[addr] ?? addr,
    groupId: plan.groupIds[addr] ?? 0,
    ok: false,
    error: null,
  }));
  const errors: string[] = [];
  const ws: WifiSession = { opts: plan.wifi, lease: null, radioSwitched: false, lastBssid: null };
  let cancelled = false;
  let processed = 0;
  const http = new LedHttp(plan.baseUrl, deps.io);
  const fail = (row: DeviceRow, text: string): void => {
    row.error = text;
    meta.deviceState[row.addr] = 'error';
    meta.deviceMessages[row.addr] = text;
    errors.push(`${row.addr}: ${text}`);
  };
  try {
    await startWifi(deps, ws, meta, plan.baseUrl);
    for (const row of rows) {
      if (ctx.signal.aborted) {
        cancelled = true;
        break;
      }
      meta.index = processed + 1;
      meta.addr = row.addr;
      meta.deviceState[row.addr] = 'running';
      processed++;
      // DEVICE_ERROR is emitted the moment the device fails, before its AP is closed.
      const onError = (text: string): void => {
        fail(row, text);
        meta.emit('DEVICE_ERROR', `${row.addr}: ${text}`);
      };
      try {
        await runDevice(ctx, plan, deps, meta, ws, http, row, onError);
      } catch (err) {
        if (isAbort(err, ctx.signal)) {
          cancelled = true;
          break;
        }
        if (plan.stopOnError) break;
      }
    }
  } catch (err) {
    // Outside the device loop (no WiFi control, radio cannot be switched on, …).
    const text = errText(err);
    if (isAbort(err, ctx.signal)) cancelled = true;
    else {
      // Every device not yet finished gets the text (never ok:false with empty errors).
      const open = rows.filter(
        (r) => !['ok', 'error', 'reannounce_timeout'].includes(meta.deviceState[r.addr] ?? ''),
      );
      for (const row of open) fail(row, text);
      if (open.length === 0) errors.push(text);
    }
  }
  meta.index = total;
  meta.addr = null;
  const hostWifi = await finishWifi(deps, ws, meta, errors);
  const okCount = plan.addrs.filter((a) =>
    ['ok', 'reannounce_timeout'].includes(meta.deviceState[a] ?? ''),
  ).length;
  const failed = plan.addrs.filter((a) => meta.deviceState[a] === 'error').length;
  const summary = cancelled
    ? `cancelled after ${processed}/${total} device(s)${failed ? `, ${failed} error(s)` : ''}`
    : `${okCount}/${total} ok${failed ? `, ${failed} error(s)` : ''}`;
  meta.emit('DONE', summary);
  const result = {
    ok: okCount === total && !cancelled && hostWifi.restored && errors.length === 0,
    baseUrl: plan.baseUrl,
    errors,
    summary,
    cancelled,
    cancelled_after: cancelled ? processed : null,
    hostWifi,
    ...(plan.fw ? { fw: pick(plan.fw.info) } : {}),
    ...(plan.presets
      ? { presets: { name: plan.presets.name, size: plan.presets.bytes.length, sha256: plan.presets.sha256 } }
      : {}),
    ...(plan.cfg ? { cfg: pick(plan.cfg.info) } : {}),
    devices: rows,
  };
  deps.log.info({ summary, ok: result.ok }, 'fwupdate finished');
  if (cancelled) throw new TaskCancelledError();
  return result;
}

const pick = (i: UploadedFileInfo): { id: string; name: string; size: number; sha256: string } => ({
  id: i.id,
  name: i.name,
  size: i.size,
  sha256: i.sha256,
});

async function runDevice(
  ctx: TaskContext,
  plan: FwPlan,
  deps: OtaDeps,
  meta: OtaMeta,
  ws: WifiSession,
  http: LedHttp,
  row: DeviceRow,
  onError: (text: string) => void,
): Promise<void> {
  const { addr } = row;
  const signal = ctx.signal;
  const t = deps.timings;
  // Two passes when firmware and cfg are both asked for: cfg reboots the node at once.
  const passes: ('presets' | 'fw' | 'cfg')[][] =
    plan.fw && plan.cfg
      ? [[...(plan.presets ? (['presets'] as const) : []), 'fw'], ['cfg']]
      : [
          [
            ...(plan.presets ? (['presets'] as const) : []),
            ...(plan.fw ? (['fw'] as const) : []),
            ...(plan.cfg ? (['cfg'] as const) : []),
          ],
        ];
  const watch = new AnnounceWatch(deps.driver, addr);
  let apOpen = false;
  let rebooted = false;
  // deviceMessages notes of uploads only confirmed by the node's re-announcement.
  const unconfirmedNotes: string[] = [];
  let announced = false;
  const reannounceS = Math.round(t.reannounceMs / 1000);
  const progress = (sent: number, total: number): void => meta.progress(addr, sent, total);
  try {
    for (let p = 0; p < passes.length; p++) {
      const steps = passes[p] ?? [];
      // This pass's upload whose reply was lost while the node went silent (ota.md §3.8.1).
      let lost: { what: 'Firmware' | 'cfg.json'; error: string } | null = null;
      ctx.checkpoint();
      watch.reset();
      let acked = false;
      for (let attempt = 1; attempt <= 2 && !acked; attempt++) {
        meta.emit('NODE_AP_ON', `Enable node AP via radio (try ${attempt}/2)`, { attempt });
        acked = await toggleAp(deps, addr, true, signal);
      }
      signal.throwIfAborted();
      if (!acked) throw new Error(`Timeout waiting for CONFIG ACK from ${addr} (AP-enable)`);
      apOpen = true;
      meta.emit('CONNECT_WIFI', connectMessage(deps, ws, plan.baseUrl));
      const joined = await joinNodeAp(deps, ws, predictApBssid(row.expectedMac), signal, () =>
        meta.emit('HOST_WIFI_ON', `Host WiFi appears disabled; enabling on ${ws.opts.iface}...`),
      );
      row.ssid = joined.ssid;
      meta.emit('WAIT_HTTP', `Waiting for /json/info mac to match ${row.expectedMac}`);
      const info = await waitForNode(deps, http, plan.baseUrl, row.expectedMac, signal);
      row.info_before ??= {
        mac: info.mac,
        ver: info.ver,
        arch: info.arch,
        name: info.name,
        release: info.release,
      };
      if (steps.includes('fw') && plan.fw) preflight(plan, info);
      if (steps.includes('presets') && plan.presets) {
        meta.emit('UPLOAD_PRESETS', 'Uploading presets.json');
        await uploadNodeFile(deps, http, 'presets.json', plan.presets.bytes, signal, progress);
      }
      if (steps.includes('fw') && plan.fw) {
        const error = await flashWithRetries(plan, deps, meta, http, row, signal, progress);
        if (error !== null) lost = { what: 'Firmware', error };
      }
      if (steps.includes('cfg') && plan.cfg) {
        meta.emit('UPLOAD_CFG', 'Uploading cfg.json');
        try {
          await uploadNodeFile(deps, http, 'cfg.json', plan.cfg.bytes, signal, progress);
        } catch (err) {
          // cfg.json makes the node reboot right after its reply: a lost reply is likely.
          if (
            !(err instanceof LedHttpError && err.unansweredAfterBody) ||
            (await nodeStillAnswers(deps, http, row.expectedMac, signal))
          )
            throw err;
          lost = { what: 'cfg.json', error: errText(err) };
        }
      }
      rebooted = steps.includes('fw') || steps.includes('cfg');
      await deps.wifi.release(ws.opts.iface);
      // A rebooted node comes back with its AP closed; an unconfirmed one only once it re-announces.
      if (rebooted && !lost) apOpen = false;
      const waitText = !lost
        ? `Waiting for ${addr} to re-register on the radio after reboot`
        : `${lost.what} upload to ${addr} unconfirmed (node stopped answering); waiting for it to re-register on the radio after reboot`;
      const lostFailure = (): string =>
        `${lost?.what ?? ''} upload unconfirmed (${lost?.error ?? ''}) and the node did not re-register on the radio within ${reannounceS}s`;
      if (p < passes.length - 1) {
        meta.emit('REANNOUNCE_WAIT', waitText);
        if (!(await watch.waitIdentify(deps, t.reannounceMs, signal)))
          throw new Error(
            lost
              ? `${lostFailure()}; cfg.json not uploaded`
              : `did not re-register on the radio within ${reannounceS}s after the firmware update; cfg.json not uploaded`,
          );
        apOpen = false;
        if (lost) unconfirmedNotes.push(unconfirmedText(lost.what));
        await watch.waitRestored(deps, t.autorestoreMs, signal);
      } else if (lost) {
        // Only the node's re-announcement after its reboot can confirm this upload.
        meta.emit('REANNOUNCE_WAIT', waitText);
        if (!(await watch.waitIdentify(deps, t.reannounceMs, signal))) throw new Error(lostFailure());
        apOpen = false;
        announced = true;
        unconfirmedNotes.push(unconfirmedText(lost.what));
      }
    }
    row.ok = true;
    meta.deviceState[addr] = 'ok';
    const note = unconfirmedNotes.join('; ');
    if (note) meta.deviceMessages[addr] = note;
    meta.emit('DEVICE_DONE', `${addr}: ${note || 'update complete'}`);
    if (announced) {
      meta.emit('AUTORESTORE_WAIT', `Waiting for auto-restore SET_GROUP for ${addr}`);
      row.autoRestoreOk = (await watch.waitRestored(deps, t.autorestoreMs, signal)) ? true : 'timeout';
    } else if (rebooted) {
      meta.emit('REANNOUNCE_WAIT', `Waiting for ${addr} to re-register on the radio after reboot`);
      if (!(await watch.waitIdentify(deps, t.reannounceMs, signal))) {
        const s = Math.round(t.reannounceMs / 1000);
        meta.deviceState[addr] = 'reannounce_timeout';
        meta.deviceMessages[addr] = `did not re-register on the radio within ${s}s`;
        row.autoRestoreOk = 'timeout';
        meta.emit('REANNOUNCE_TIMEOUT', `${addr} did not re-register on the radio within ${s}s`);
      } else {
        meta.emit('AUTORESTORE_WAIT', `Waiting for auto-restore SET_GROUP for ${addr}`);
        row.autoRestoreOk = (await watch.waitRestored(deps, t.autorestoreMs, signal)) ? true : 'timeout';
      }
    } else {
      await closeAp(deps, meta, addr);
      apOpen = false;
    }
  } catch (err) {
    if (row.ok && isAbort(err, signal)) return; // cancelled while waiting after success
    onError(isAbort(err, signal) ? 'cancelled' : errText(err));
    await deps.wifi.release(ws.opts.iface).catch(() => undefined);
    if (apOpen) await closeAp(deps, meta, addr);
    throw err;
  } finally {
    watch.dispose();
  }
}

/** AP_CLOSE: up to two tries, never cancelled (cleanup), failures only logged. */
export async function closeAp(deps: OtaDeps, meta: OtaMeta, addr: Addr): Promise<boolean> {
  for (let attempt = 1; attempt <= 2; attempt++) {
    meta.emit('AP_CLOSE', `Disable node AP via radio (try ${attempt}/2)`, { attempt });
    if (await toggleAp(deps, addr, false).catch(() => false)) return true;
  }
  deps.log.warn({ addr }, 'node AP could not be closed over the radio');
  return false;
}

function preflight(plan: FwPlan, info: { arch: string; release: string }): void {
  const image = plan.fw?.info.image;
  if (!image) return;
  if (info.arch && !chipMatchesArch(image.chip, info.arch))
    throw new Error(`firmware is for ${image.chip} but node reports ${info.arch}`);
  if (
    !plan.skipValidation &&
    image.releaseName &&
    info.release &&
    normalizeReleaseName(image.releaseName) !== normalizeReleaseName(info.release)
  ) {
    throw new Error(releaseMismatchText(info.release, image.releaseName));
  }
}

async function flashWithRetries(
  plan: FwPlan,
  deps: OtaDeps,
  meta: OtaMeta,
  http: LedHttp,
  row: DeviceRow,
  signal: AbortSignal,
  progress: (sent: number, total: number) => void,
): Promise<string | null> {
  const fw = plan.fw;
  if (!fw) return null;
  let last = '';
  for (let attempt = 1; attempt <= plan.retries; attempt++) {
    meta.emit('UPLOAD_FW', `Uploading firmware (try ${attempt}/${plan.retries})`, { attempt });
    try {
      const r = await flashOnce(
        deps,
        http,
        { data: fw.bytes, name: fw.info.name },
        { skipValidation: plan.skipValidation, otaPassword: plan.wifi.otaPassword },
        signal,
        progress,
      );
      if (r.unlocked) {
        row.unlocked = true;
        deps.log.info({ addr: row.addr }, 'automatic OTA unlock used (POST /settings/sec)');
        // Decisions §17: the automatic unlock changes node settings, so it is reported.
        meta.deviceMessages[row.addr] =
          'automatic OTA unlock used (node same-subnet gate / OTA lock cleared via /settings/sec)';
      }
      return null;
    } catch (err) {
      if (signal.aborted) throw err;
      last = errText(err);
      // Lost confirmation (ota.md §3.8.1): a retry would hit a node that is busy flashing.
      if (
        err instanceof LedHttpError &&
        err.unansweredAfterBody &&
        !(await nodeStillAnswers(deps, http, row.expectedMac, signal))
      ) {
        deps.log.warn(
          { addr: row.addr, attempt, error: last },
          'firmware sent but not confirmed and the node stopped answering; waiting for its re-announce',
        );
        return last;
      }
      if (err instanceof FinalError || /HTTP 50[03]/.test(last)) break;
      if (attempt < plan.retries) await deps.io.sleep(deps.timings.retryDelayMs, signal);
    }
  }
  throw new Error(`Firmware upload failed: ${last}`);
}
