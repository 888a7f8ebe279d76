/**
 * The `presets_download` task (ota.md §4): open the node AP, join it, wait for the node,
 * GET /presets.json, validate and store it under a generated name (LED_PRESETS refresh
 * from inside the task, once the file is on disk), then close the AP and restore WiFi on
 * every path.
 */
import type { Addr } from '../../protocol/types.ts';
import { TaskCancelledError, type TaskContext } from '../../tasks/task-manager.ts';
import { LedHttp } from './led-http.ts';
import { PRESETS_MAX_BYTES, type PresetFileInfo } from '../led-presets/index.ts';
import { closeAp } from './fwupdate.ts';
import { errText } from '../../util/err-text.ts';
import { OtaMeta } from './meta.ts';
import type { WifiOptions } from './request.ts';
import { connectMessage, isAbort, joinNodeAp, toggleAp, waitForNode, type WifiSession } from './steps.ts';
import type { OtaDeps } from './types.ts';
import { predictApBssid } from '../wifi/index.ts';
import { finishWifi, startWifi } from './wifi-lease.ts';

export interface DownloadPlan {
  addr: Addr;
  expectedMac: string;
  wifi: WifiOptions;
  baseUrl: string;
}

export async function runPresetsDownload(
  ctx: TaskContext,
  plan: DownloadPlan,
  deps: OtaDeps,
): Promise<unknown> {
  const { addr } = plan;
  const meta = new OtaMeta(
    ctx,
    deps.clock,
    { baseUrl: plan.baseUrl, total: 1 },
    deps.timings.progressIntervalMs,
  );
  meta.addr = addr;
  meta.index = 1;
  const ws: WifiSession = { opts: plan.wifi, lease: null, radioSwitched: false, lastBssid: null };
  const errors: string[] = [];
  let file: PresetFileInfo | null = null;
  let apOpen = false;
  let cancelled = false;
  const signal = ctx.signal;
  try {
    await startWifi(deps, ws, meta, plan.baseUrl);
    let acked = false;
    for (let attempt = 1; attempt <= 2 && !acked; attempt++) {
      meta.emit('NODE_AP_ON', `Enable node AP via radio (try ${attempt}/2)`, { attempt });
      acked = await toggleAp(deps, addr, true, signal);
    }
    signal.throwIfAborted();
    if (!acked) throw new Error(`Timeout waiting for CONFIG ACK from ${addr}`);
    apOpen = true;
    meta.emit('CONNECT_WIFI', connectMessage(deps, ws, plan.baseUrl));
    await joinNodeAp(deps, ws, predictApBssid(plan.expectedMac), signal, () =>
      meta.emit('HOST_WIFI_ON', `Host WiFi appears disabled; enabling on ${ws.opts.iface}...`),
    );
    const http = new LedHttp(plan.baseUrl, deps.io);
    meta.emit('WAIT_HTTP', `Waiting for /json/info mac to match ${plan.expectedMac}`);
    await waitForNode(deps, http, plan.baseUrl, plan.expectedMac, signal);
    meta.emit('DOWNLOAD_PRESETS', 'Downloading presets.json');
    const r = await http.get('/presets.json', deps.timings.downloadTimeoutMs, PRESETS_MAX_BYTES + 1, signal);
    if (r.status !== 200) throw new Error(`HTTP ${r.status} from /presets.json`);
    if (r.body.length === 0 || !r.body.toString('utf8').trim())
      throw new Error('Empty presets.json response');
    if (r.truncated) throw new Error(`presets.json too large (max ${PRESETS_MAX_BYTES} bytes)`);
    try {
      file = await deps.ledPresets.saveDownloaded(r.body);
    } catch (err) {
      throw new Error(`Invalid presets.json payload: ${errText(err).replace(/^presets\.json: /, '')}`);
    }
    meta.deviceState[addr] = 'ok';
  } catch (err) {
    if (isAbort(err, signal)) cancelled = true;
    else errors.push(errText(err));
    meta.deviceState[addr] = 'error';
    meta.deviceMessages[addr] = cancelled ? 'cancelled' : errText(err);
  }
  await deps.wifi.release(ws.opts.iface).catch(() => undefined);
  if (apOpen) await closeAp(deps, meta, addr);
  meta.addr = addr;
  const hostWifi = await finishWifi(deps, ws, meta, errors);
  const ok = file !== null && errors.length === 0;
  meta.emit(
    'DONE',
    ok ? `presets.json saved as ${file?.name ?? ''}` : cancelled ? 'cancelled' : (errors[0] ?? 'failed'),
  );
  if (cancelled) throw new TaskCancelledError();
  return { ok, baseUrl: plan.baseUrl, addr, file, errors, cancelled, hostWifi };
}
