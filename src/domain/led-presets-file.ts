/**
 * WLED `presets.json` (ota.md §2): the host only needs `(id, name)` pairs for dropdowns.
 * Pure parsing and the generated file-name rules; no I/O.
 */

export interface LedPresetEntry {
  id: number;
  name: string;
}

export class PresetsFileError extends Error {
  override readonly name = 'PresetsFileError';
}

/** Decodes UTF-8 strictly (a BOM is tolerated and stripped). */
export function decodeUtf8(bytes: Uint8Array, label: string): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new PresetsFileError(`${label} is not valid UTF-8`);
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Parses JSON whose root must be an object; messages name the file kind. */
export function parseJsonObject(text: string, label: string): Record<string, unknown> {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (err) {
    throw new PresetsFileError(`${label} is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof root !== 'object' || root === null || Array.isArray(root)) {
    throw new PresetsFileError(`${label} must be a JSON object`);
  }
  return root as Record<string, unknown>;
}

/**
 * Preset entries sorted by id: integer keys 1..255 (the radio preset field is one byte)
 * whose value is an object; the name is `n` trimmed, else `Preset ID <id>`.
 */
export function presetEntries(root: Record<string, unknown>): LedPresetEntry[] {
  const out: LedPresetEntry[] = [];
  for (const [key, value] of Object.entries(root)) {
    if (!/^\d+$/.test(key.trim())) continue;
    const id = Number(key.trim());
    if (id < 1 || id > 255) continue;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
    const n = (value as Record<string, unknown>).n;
    const name = typeof n === 'string' && n.trim() ? n.trim() : `Preset ID ${id}`;
    out.push({ id, name });
  }
  return out.sort((a, b) => a.id - b.id);
}

export function parsePresetsFile(bytes: Uint8Array): LedPresetEntry[] {
  return presetEntries(parseJsonObject(decodeUtf8(bytes, 'presets.json'), 'presets.json'));
}

/** Names accepted back from a request: generated-style, no path parts, no leading dot. */
export const PRESET_FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,122}\.json$/;

export function isValidPresetFileName(name: unknown): name is string {
  return typeof name === 'string' && PRESET_FILE_NAME.test(name) && !name.includes('..');
}

/** `presets_YYYYMMDD_HHMMSS.json` (local time), `_1`, `_2`, … on collision. */
export function presetFileName(date: Date, attempt: number): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  const stamp =
    `${date.getFullYear()}${p(date.getMonth() + 1)}${p(date.getDate())}_` +
    `${p(date.getHours())}${p(date.getMinutes())}${p(date.getSeconds())}`;
  return attempt === 0 ? `presets_${stamp}.json` : `presets_${stamp}_${attempt}.json`;
}
