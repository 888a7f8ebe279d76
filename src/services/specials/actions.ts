/**
 * `POST /api/specials/action`: the device functions of §10 (LED preset, native preset,
 * reset overrides, startblock control), synchronous. Not gated by a running task: they
 * are interactive traffic and travel ahead of task traffic (decisions §6). A function
 * without brightness keeps the node's brightness (decisions §12). A radio failure is an
 * ActionFailedError (500 `action failed: …`), never a fake success.
 */
import {
  SPECIAL_FUNCTIONS,
  coerceParams,
  functionsFor,
  type ParamValue,
} from '../../domain/specials/functions.ts';
import type { Device } from '../../domain/model.ts';
import { ActionFailedError, ValidationError } from '../../errors.ts';
import type { GatewayDriver } from '../../gateway/types.ts';
import type { Logger } from '../../logger.ts';
import { buildControlFlags } from '../../protocol/flags.ts';
import { deviceTypeInfo } from '../../protocol/device-types.ts';
import { materializeSpecials } from '../../domain/specials/options.ts';
import type { Store } from '../../state/store.ts';
import type { MasterView } from '../devices/index.ts';
import type { SpecialsService, Target } from './service.ts';
import type { NativePresetSource } from './sources.ts';
import { startblockPayload, STARTBLOCK_SLOTS } from '../scenes/index.ts';

const INTERACTIVE_DEADLINE_MS = 10_000;
const SEND = { priority: 'interactive', deadlineMs: INTERACTIVE_DEADLINE_MS } as const;

export interface ActionResult {
  ok: true;
  result: unknown;
  function: string;
  params: Record<string, ParamValue>;
}

export class SpecialsActions {
  constructor(
    private readonly deps: {
      specials: SpecialsService;
      native: NativePresetSource;
      driver: GatewayDriver;
      store: Store;
      master: MasterView;
      log: Logger;
    },
  ) {}

  async run(mac: unknown, fnKey: string, params: Record<string, unknown>): Promise<ActionResult> {
    const t = this.deps.specials.target(mac);
    const fn = functionsFor(t.caps).find((f) => f.key === fnKey);
    if (!fn) {
      const info = deviceTypeInfo(t.device.dev_type);
      if (SPECIAL_FUNCTIONS.some((f) => f.key === fnKey))
        throw new ValidationError(
          `function: ${fnKey} not supported for device ${t.addr} (${info.name}, capabilities: ${info.caps.join(', ') || 'none'})`,
        );
      throw new ValidationError(
        `function: unknown function ${JSON.stringify(fnKey)} (known: ${SPECIAL_FUNCTIONS.map((f) => f.key).join(', ')})`,
      );
    }
    if (!fn.unicast) throw new ValidationError(`function: ${fnKey} does not support unicast`);
    const c = coerceParams(fn, params);
    if (!c.ok) throw new ValidationError(c.error);
    const p = c.params;
    let result: unknown;
    switch (fn.key) {
      case 'led_preset':
        result = await this.ledPreset(t, p);
        break;
      case 'native_preset':
        result = await this.nativePreset(t, p);
        break;
      case 'led_reset_overrides':
        result = await this.resetOverrides(t);
        break;
      case 'startblock_control':
        result = await this.startblockControl(t);
        break;
      default:
        throw new ValidationError(`function: ${fnKey} has no handler`);
    }
    this.deps.master.note('SPECIAL_SENT');
    this.deps.log.info({ addr: t.addr, function: fn.key, params: p }, 'special action done');
    return { ok: true, result, function: fnKey, params: p };
  }

  private failed(fn: string, t: Target, detail: string): ActionFailedError {
    return new ActionFailedError(`action failed: ${fn} on ${t.addr}: ${detail}`);
  }

  private remember(dev: Device, patch: Partial<Pick<Device, 'presetId' | 'brightness' | 'flags'>>): void {
    this.deps.store.mutate(['DEVICES'], () => Object.assign(dev, patch), 'soon', [dev]);
  }

  /** One unicast PRESET; the preset defaults to the device's last one, brightness to its current one. */
  private async ledPreset(t: Target, p: Record<string, ParamValue>): Promise<boolean> {
    const dev = t.device;
    const presetId = typeof p.presetId === 'number' ? p.presetId : dev.presetId;
    const brightness = typeof p.brightness === 'number' ? p.brightness : dev.brightness;
    const flags = buildControlFlags(0, brightness);
    const out = await this.deps.driver.send(
      t.addr,
      { op: 'PRESET', groupId: dev.groupId, flags, presetId, brightness },
      SEND,
    );
    if (!out.ok) throw this.failed('led_preset', t, out.detail);
    this.remember(dev, { presetId, brightness, flags });
    return true;
  }

  /** The native preset's fields in one unicast CONTROL (only the fields it sets). */
  private async nativePreset(t: Target, p: Record<string, ParamValue>): Promise<boolean> {
    if (typeof p.presetId !== 'number') throw new ValidationError('params.presetId: is required');
    const id = p.presetId;
    const preset = this.deps.native.list().find((x) => x.id === id);
    if (!preset) {
      const known = this.deps.native.list().map((x) => x.id);
      throw new ValidationError(
        `params.presetId: no native preset with id ${id} (${known.length ? `known: ${known.join(', ')}` : 'none stored'})`,
      );
    }
    const dev = t.device;
    const brightness =
      typeof p.brightness === 'number' ? p.brightness : (preset.fields.brightness ?? dev.brightness);
    const fields = { ...preset.fields, brightness };
    const flags = buildControlFlags(preset.userFlags, brightness);
    const out = await this.deps.driver.send(
      t.addr,
      { op: 'CONTROL', groupId: dev.groupId, flags, fields },
      SEND,
    );
    if (!out.ok) throw this.failed('native_preset', t, out.detail);
    this.remember(dev, { brightness, flags });
    return true;
  }

  /** CONFIG 0x0F, acknowledged within the 6 s budget; then the stored LED options reset. */
  private async resetOverrides(t: Target): Promise<boolean> {
    try {
      await this.deps.specials.writer.write({
        addr: t.addr,
        option: 0x0f,
        data: [0, 0, 0, 0],
        label: 'led_reset_overrides (option 0x0F)',
        priority: 'interactive',
      });
    } catch (err) {
      throw this.failed('led_reset_overrides', t, (err as Error).message);
    }
    this.deps.specials.resetLedSpecials(t.device);
    return true;
  }

  /**
   * One STREAM record per slot the node shows (startblock_first_slot .. + slots - 1). The
   * standalone host has no heat from a timing application, so every slot is sent empty:
   * channel `--`, no pilot name (the node clears the slot).
   */
  private async startblockControl(t: Target): Promise<Record<string, unknown>> {
    const s = materializeSpecials(t.caps, t.device.specials);
    const first = s.startblock_first_slot ?? 1;
    const last = Math.min(STARTBLOCK_SLOTS, first + (s.startblock_slots ?? 1) - 1);
    const sent: { slot: number; device: string; result: { expected: number; acked: number } }[] = [];
    const errors: string[] = [];
    for (let slot = first; slot <= last; slot++) {
      const r = await this.deps.driver.stream(t.addr, startblockPayload(slot, undefined), SEND);
      const acked = r.ok && r.value.ok ? 1 : 0;
      if (!r.ok) errors.push(`slot ${slot}: ${r.detail}`);
      sent.push({ slot, device: t.addr, result: { expected: 1, acked } });
    }
    if (sent.every((x) => x.result.acked === 0))
      throw this.failed('startblock_control', t, errors.join('; ') || 'no slot acknowledged');
    return { mode: 'unicast', devices: [{ device: t.addr, first, last }], sent };
  }
}
