/**
 * Over-the-air updates, as the routes see them: validate a `fw/start` or
 * `presets/download` request against the stores and the device list, start the task,
 * and restore host WiFi left switched by a crashed run (the lease file) at start-up.
 */
import { ValidationError } from '../../errors.ts';
import { DeviceRegistry } from '../devices/index.ts';
import type { Addr } from '../../protocol/types.ts';
import type { TaskManager, TaskSnapshot } from '../../tasks/task-manager.ts';
import { sha256 } from './firmware-store.ts';
import { runPresetsDownload } from './download.ts';
import { runFwUpdate, type FwPlan } from './fwupdate.ts';
import {
  clampRetries,
  resolveBaseUrl,
  resolveWifi,
  type FwStartBody,
  type PresetsDownloadBody,
} from './request.ts';
import type { OtaDeps } from './types.ts';

export class OtaService {
  constructor(
    private readonly deps: OtaDeps,
    private readonly tasks: TaskManager,
  ) {}

  async startFirmware(b: FwStartBody): Promise<TaskSnapshot> {
    this.tasks.assertIdle();
    const addrs = this.addresses(b.macs, 'macs');
    const doFirmware = b.doFirmware ?? true;
    const doPresets = b.doPresets ?? false;
    const doCfg = b.doCfg ?? false;
    if (!doFirmware && !doPresets && !doCfg)
      throw new ValidationError('doFirmware: no operations selected (doFirmware, doPresets, doCfg)');
    const fw = doFirmware ? await this.deps.firmware.load(b.fwId, 'firmware', 'fwId') : null;
    let presets: FwPlan['presets'] = null;
    if (doPresets) {
      const name = b.presetsName;
      if (!name) throw new ValidationError('presetsName: presets file not found');
      const bytes = await this.deps.ledPresets.read(name).catch(() => {
        throw new ValidationError('presetsName: presets file not found');
      });
      presets = { name, bytes, sha256: sha256(bytes) };
    }
    const cfg = doCfg ? await this.deps.firmware.load(b.cfgId, 'cfg', 'cfgId') : null;
    const wifi = resolveWifi(b);
    const baseUrl = resolveBaseUrl(b.baseUrl);
    const plan: FwPlan = {
      addrs,
      expectedMac: Object.fromEntries(addrs.map((a) => [a, this.deps.registry.find(a)?.full_mac ?? a])),
      groupIds: Object.fromEntries(addrs.map((a) => [a, this.deps.registry.find(a)?.groupId ?? 0])),
      fw,
      presets,
      cfg,
      retries: clampRetries(b.retries),
      stopOnError: b.stopOnError ?? false,
      skipValidation: b.skipValidation ?? false,
      wifi,
      baseUrl,
    };
    const release = this.deps.firmware.pin([fw?.info.id, cfg?.info.id].filter((x): x is string => !!x));
    this.tasks.assertIdle();
    const deviceState = Object.fromEntries(addrs.map((a) => [a, 'queued']));
    try {
      return this.tasks.start(
        'fwupdate',
        {
          stage: 'INIT',
          index: 0,
          total: addrs.length,
          retries: plan.retries,
          addr: null,
          message: 'Firmware update started',
          baseUrl,
          macs: [...addrs],
          deviceState,
          deviceMessages: {},
          deviceProgress: {},
        },
        (ctx) => runFwUpdate(ctx, plan, this.deps).finally(release),
      );
    } catch (err) {
      release();
      throw err;
    }
  }

  startPresetsDownload(b: PresetsDownloadBody): TaskSnapshot {
    this.tasks.assertIdle();
    const [addr] = this.addresses([b.mac], 'mac');
    if (!addr) throw new ValidationError('mac: missing mac');
    const wifi = resolveWifi(b);
    const baseUrl = resolveBaseUrl(b.baseUrl);
    const expectedMac = this.deps.registry.find(addr)?.full_mac ?? addr;
    return this.tasks.start(
      'presets_download',
      { stage: 'INIT', addr, message: 'Preset download started', baseUrl },
      (ctx) => runPresetsDownload(ctx, { addr, expectedMac, wifi, baseUrl }, this.deps),
    );
  }

  /** A lease file left by a crashed or killed run: put the host's WiFi back first. */
  async recover(): Promise<void> {
    const lease = await this.deps.lease.read();
    if (!lease) return;
    this.deps.log.warn(
      { iface: lease.iface, since: new Date(lease.ts).toISOString() },
      'restoring host WiFi left switched by an interrupted OTA run',
    );
    try {
      const r = await this.deps.wifi.restore(lease);
      for (const w of r.warnings) this.deps.log.warn({}, w);
    } catch (err) {
      this.deps.log.error({ err: (err as Error).message }, 'host WiFi restore after restart failed');
    }
  }

  /** Normalised, de-duplicated, known unicast addresses. */
  private addresses(list: readonly string[], field: string): Addr[] {
    const out: Addr[] = [];
    list.forEach((m, i) => {
      const f = field === 'mac' ? 'mac' : `${field}[${i}]`;
      const addr = DeviceRegistry.parseAddr(m, f);
      if (!this.deps.registry.find(addr)) throw new ValidationError(`${f}: unknown device ${addr}`);
      if (!out.includes(addr)) out.push(addr);
    });
    return out;
  }
}
