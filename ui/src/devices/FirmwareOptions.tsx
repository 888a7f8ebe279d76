/** Firmware update options: what to push (firmware, LED presets, cfg.json), the WiFi used, retry behaviour. */
import { taskRunning } from '../store.ts';
import { DEFAULT_WIFI, WifiFields, wifiBody, type WifiForm } from './WifiFields.tsx';

/** A file stored on the host by `fw/upload`. */
export interface Upload {
  id: string;
  kind: 'firmware' | 'cfg';
  name: string;
  size: number;
  sha256: string;
}

export interface FirmwareOptions {
  doFw: boolean;
  doPresets: boolean;
  doCfg: boolean;
  fwId: string;
  cfgId: string;
  presetsName: string;
  retries: number;
  stopOnError: boolean;
  skipValidation: boolean;
  wifi: WifiForm;
}

export const DEFAULT_FIRMWARE_OPTIONS: FirmwareOptions = {
  doFw: true,
  doPresets: false,
  doCfg: false,
  fwId: '',
  cfgId: '',
  presetsName: '',
  retries: 3,
  stopOnError: false,
  skipValidation: false,
  wifi: DEFAULT_WIFI,
};

/** True while a ticked operation has no file chosen, or nothing is ticked. */
export function optionsIncomplete(o: FirmwareOptions): boolean {
  return (
    (o.doFw && !o.fwId) ||
    (o.doCfg && !o.cfgId) ||
    (o.doPresets && !o.presetsName) ||
    !(o.doFw || o.doCfg || o.doPresets)
  );
}

/** The `fw/start` body: file ids only for the operations that run. */
export function firmwareStartBody(macs: string[], o: FirmwareOptions) {
  return {
    macs,
    doFirmware: o.doFw,
    doPresets: o.doPresets,
    doCfg: o.doCfg,
    ...(o.doFw ? { fwId: o.fwId } : {}),
    ...(o.doPresets ? { presetsName: o.presetsName } : {}),
    ...(o.doCfg ? { cfgId: o.cfgId } : {}),
    retries: o.retries,
    stopOnError: o.stopOnError,
    skipValidation: o.skipValidation,
    ...wifiBody(o.wifi),
  };
}

export function FirmwareOptionsForm({
  value: o,
  onChange,
  uploads,
  presetFiles,
  onUpload,
}: {
  value: FirmwareOptions;
  onChange: (patch: Partial<FirmwareOptions>) => void;
  uploads: Upload[];
  presetFiles: string[];
  onUpload: (kind: Upload['kind'], file: File | undefined) => void;
}) {
  const firmwareUploads = uploads.filter((u) => u.kind === 'firmware');
  const cfgUploads = uploads.filter((u) => u.kind === 'cfg');
  return (
    <>
      <h3>Operations</h3>
      <div class="op-row">
        <label class="check">
          <input
            type="checkbox"
            checked={o.doFw}
            onChange={(e) => onChange({ doFw: e.currentTarget.checked })}
          />{' '}
          Firmware (.bin)
        </label>
        <select
          aria-label="Firmware upload"
          value={o.fwId}
          onChange={(e) => onChange({ fwId: e.currentTarget.value })}
          disabled={!o.doFw}
        >
          <option value="">— upload a firmware image —</option>
          {firmwareUploads.map((u) => (
            <option key={u.id} value={u.id}>
              {u.name} · {Math.round(u.size / 1024)} KiB · {u.sha256.slice(0, 8)}
            </option>
          ))}
        </select>
        <input
          type="file"
          accept=".bin"
          aria-label="Firmware file"
          onChange={(e) => onUpload('firmware', e.currentTarget.files?.[0])}
          disabled={taskRunning.value}
        />
      </div>
      <div class="op-row">
        <label class="check">
          <input
            type="checkbox"
            checked={o.doPresets}
            onChange={(e) => onChange({ doPresets: e.currentTarget.checked })}
          />{' '}
          LED preset file
        </label>
        <select
          aria-label="Preset file to upload"
          value={o.presetsName}
          onChange={(e) => onChange({ presetsName: e.currentTarget.value })}
          disabled={!o.doPresets}
        >
          {presetFiles.length === 0 && <option value="">— add files in the LED presets dialog —</option>}
          {presetFiles.map((n) => (
            <option key={n}>{n}</option>
          ))}
        </select>
      </div>
      <div class="op-row">
        <label class="check">
          <input
            type="checkbox"
            checked={o.doCfg}
            onChange={(e) => onChange({ doCfg: e.currentTarget.checked })}
          />{' '}
          Config file (cfg.json)
        </label>
        <select
          aria-label="Config upload"
          value={o.cfgId}
          onChange={(e) => onChange({ cfgId: e.currentTarget.value })}
          disabled={!o.doCfg}
        >
          <option value="">— upload a cfg.json —</option>
          {cfgUploads.map((u) => (
            <option key={u.id} value={u.id}>
              {u.name} · {u.sha256.slice(0, 8)}
            </option>
          ))}
        </select>
        <input
          type="file"
          accept=".json"
          aria-label="Config file"
          onChange={(e) => onUpload('cfg', e.currentTarget.files?.[0])}
          disabled={taskRunning.value}
        />
      </div>
      <WifiFields value={o.wifi} onChange={(wifi) => onChange({ wifi })} during="the update" />
      <h3>Behaviour</h3>
      <div class="row">
        <label class="small-field">
          Retries per device
          <input
            type="number"
            min={1}
            max={10}
            value={o.retries}
            onInput={(e) => onChange({ retries: Math.max(1, Math.min(10, Number(e.currentTarget.value))) })}
          />
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={o.stopOnError}
            onChange={(e) => onChange({ stopOnError: e.currentTarget.checked })}
          />{' '}
          Stop on first error
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={o.skipValidation}
            onChange={(e) => onChange({ skipValidation: e.currentTarget.checked })}
          />{' '}
          Skip firmware-name validation (cross-fork)
        </label>
      </div>
      {o.skipValidation && (
        <p class="error-text">Only when moving between firmware forks: the wrong binary can brick a node.</p>
      )}
    </>
  );
}
