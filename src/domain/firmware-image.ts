/**
 * Pure checks of an uploaded ESP32 application image (ota.md §1.3): the image header,
 * the ESP application descriptor at offset 32 and WLED's release metadata record, which
 * WLED's own release-name gate reads. No I/O; shared by the upload store and the test rig.
 */

export const ESP_IMAGE_MAGIC = 0xe9;
export const APP_DESC_MAGIC = 0xabcd5432;
export const WLED_META_MAGIC = 0x57535453;
/** WLED only searches roughly the first kilobyte of an upload for the metadata record. */
export const WLED_META_SEARCH_BYTES = 1024;
const HOST_META_SEARCH_BYTES = 4096;
const META_RECORD_BYTES = 111;

export const CHIP_IDS: Readonly<Record<number, string>> = {
  0x0000: 'ESP32',
  0x0002: 'ESP32-S2',
  0x0005: 'ESP32-C3',
  0x0009: 'ESP32-S3',
  0x000c: 'ESP32-C2',
  0x000d: 'ESP32-C6',
  0x0010: 'ESP32-H2',
  0x0012: 'ESP32-P4',
  0x0017: 'ESP32-C5',
};

export interface WledMetadata {
  descVersion: number;
  wledVersion: string;
  releaseName: string;
  /** Byte offset of the record in the image. */
  offset: number;
}

export interface FirmwareImageInfo {
  chip: string;
  chipId: number;
  appVersion: string;
  projectName: string;
  releaseName: string | null;
  wledVersion: string | null;
  hasMetadata: boolean;
  warnings: string[];
}

/** Thrown for an image that must never be flashed; the message is user-facing. */
export class FirmwareImageError extends Error {
  override readonly name = 'FirmwareImageError';
}

const hex2 = (n: number): string => '0x' + n.toString(16).padStart(2, '0').toUpperCase();
const hex4 = (n: number): string => '0x' + n.toString(16).padStart(4, '0').toUpperCase();

/** NUL-terminated ASCII string inside a fixed-size field. */
function cString(buf: Uint8Array, offset: number, len: number): string {
  const end = Math.min(buf.length, offset + len);
  let s = '';
  for (let i = offset; i < end; i++) {
    const c = buf[i] ?? 0;
    if (c === 0) break;
    s += String.fromCharCode(c);
  }
  return s;
}

const u32le = (b: Uint8Array, o: number): number =>
  ((b[o] ?? 0) | ((b[o + 1] ?? 0) << 8) | ((b[o + 2] ?? 0) << 16) | ((b[o + 3] ?? 0) << 24)) >>> 0;

/** djb2 over the bytes (start 5381, h = h*33 + c, 32-bit wrap) as WLED hashes release names. */
export function djb2(bytes: Uint8Array): number {
  let h = 5381;
  for (const c of bytes) h = (Math.imul(h, 33) + c) >>> 0;
  return h;
}

/** First metadata record whose hash matches its release name, within `limit` bytes. */
export function findWledMetadata(buf: Uint8Array, limit = HOST_META_SEARCH_BYTES): WledMetadata | null {
  const end = Math.min(buf.length, limit) - META_RECORD_BYTES;
  for (let o = 0; o <= end; o++) {
    if (buf[o] !== 0x53 || u32le(buf, o) !== WLED_META_MAGIC) continue;
    const nameField = buf.subarray(o + 56, o + 104);
    const nul = nameField.indexOf(0);
    const nameBytes = nul >= 0 ? nameField.subarray(0, nul) : nameField;
    // A byte-pattern hit with a bad hash is skipped, as WLED does.
    if (u32le(buf, o + 104) !== djb2(nameBytes)) continue;
    return {
      descVersion: u32le(buf, o + 4),
      wledVersion: cString(buf, o + 8, 48),
      releaseName: cString(buf, o + 56, 48),
      offset: o,
    };
  }
  return null;
}

/** Validates the header and descriptor; throws FirmwareImageError for an image that must not go to /update. */
export function inspectFirmware(buf: Uint8Array): FirmwareImageInfo {
  if (buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b) {
    throw new FirmwareImageError('compressed images are not supported');
  }
  if (buf.length < 256) throw new FirmwareImageError('file too small');
  const magic = buf[0] ?? 0;
  if (magic !== ESP_IMAGE_MAGIC) {
    throw new FirmwareImageError(`not an ESP32 application image (first byte ${hex2(magic)}, expected 0xE9)`);
  }
  const segments = buf[1] ?? 0;
  if (segments < 1 || segments > 16) throw new FirmwareImageError(`invalid segment count ${segments}`);
  if ((buf[2] ?? 0) > 5) throw new FirmwareImageError(`invalid SPI mode ${buf[2] ?? 0}`);
  const chipId = (buf[12] ?? 0) | ((buf[13] ?? 0) << 8);
  const chip = CHIP_IDS[chipId];
  if (!chip) throw new FirmwareImageError(`unsupported chip id ${hex4(chipId)}`);
  if (u32le(buf, 32) !== APP_DESC_MAGIC) {
    throw new FirmwareImageError('ESP application descriptor not found (factory or bootloader image?)');
  }
  const warnings: string[] = [];
  const meta = findWledMetadata(buf);
  if (!meta) {
    warnings.push('no WLED release metadata: the node will refuse this image unless skipValidation is set');
  } else if (meta.offset + META_RECORD_BYTES > WLED_META_SEARCH_BYTES) {
    warnings.push('WLED release metadata lies beyond the first 1 KiB: the node may not find it');
  }
  return {
    chip,
    chipId,
    appVersion: cString(buf, 48, 32),
    projectName: cString(buf, 80, 32),
    releaseName: meta?.releaseName ?? null,
    wledVersion: meta?.wledVersion ?? null,
    hasMetadata: meta !== null,
    warnings,
  };
}

/** WLED compares release names after stripping a trailing `_V4` from both. */
export function normalizeReleaseName(name: string): string {
  return name.endsWith('_V4') ? name.slice(0, -3) : name;
}

/** The message WLED answers with for a release mismatch (ota.md §6.3), reused for the pre-flight check. */
export function releaseMismatchText(current: string, uploaded: string): string {
  return (
    `Firmware release name mismatch: current='${current}', uploaded='${uploaded}'. ` +
    `Enable 'Ignore firmware validation' to proceed anyway.`
  );
}

/** Chip family as reported by `/json/info` `arch` (`esp32` for the classic chip, else e.g. `ESP32-S3`). */
export function chipMatchesArch(chip: string, arch: string): boolean {
  const a = arch.trim().toUpperCase().replace(/_/g, '-');
  return a === chip.toUpperCase();
}
