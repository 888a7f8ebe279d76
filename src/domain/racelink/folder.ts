/**
 * Finding the RaceLink files among what the user gave us: a folder read from disk, the
 * files of a browser folder pick (paths start with the folder's own name), or a zip (which
 * may hold the folder one or two levels down). Both versions' names are known (networks.md
 * §4): v0.1.5's `standalone_config.json`, `scenes.json`, `presets/` and the later
 * `rl_`-prefixed ones. Anything else is listed as ignored, never read.
 */
import { RaceLinkImportError, type RaceLinkFile } from './types.ts';

export const CONFIG_NAMES = ['rl_standalone_config.json', 'standalone_config.json'] as const;
export const SCENE_NAMES = ['rl_scenes.json', 'scenes.json'] as const;
export const PRESETS_NAME = 'rl_presets.json';
export const LED_DIRS = ['rl_wled_presets', 'presets'] as const;
export const BACKUP_DIR = 'rl_state_backups';
const TOP_FILES: readonly string[] = [...CONFIG_NAMES, ...SCENE_NAMES, PRESETS_NAME];

export interface LocatedFile {
  /** Path relative to the RaceLink folder (what messages name). */
  name: string;
  bytes: Uint8Array;
}

export interface RaceLinkFolder {
  config: LocatedFile | null;
  /** The older config file when the newer one is present too (the original renames once). */
  configShadowed: LocatedFile | null;
  presets: LocatedFile | null;
  scenes: LocatedFile | null;
  scenesShadowed: LocatedFile | null;
  ledFiles: LocatedFile[];
  backups: LocatedFile[];
  ignored: string[];
}

/** `a/b/c.json` with `/` separators; refuses absolute paths and `..` (a zip or upload may carry them). */
export function cleanRelativePath(raw: string): string {
  const p = raw.replace(/\\/g, '/');
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p))
    throw new RaceLinkImportError(raw, 'absolute paths are not allowed in an import');
  const parts = p.split('/').filter((s) => s !== '' && s !== '.');
  if (parts.some((s) => s === '..'))
    throw new RaceLinkImportError(raw, "paths with '..' are not allowed in an import");
  if (parts.length === 0) throw new RaceLinkImportError(raw || '(empty)', 'empty file path');
  return parts.join('/');
}

/**
 * Sorts the files into the RaceLink roles. The folder root is the shallowest directory that
 * holds one of the top-level files; a folder with none of them is not a RaceLink folder.
 */
export function locateFiles(files: readonly RaceLinkFile[], label = 'the folder'): RaceLinkFolder {
  const clean = files.map((f) => ({ path: cleanRelativePath(f.path), bytes: f.bytes }));
  let root: string | null = null;
  for (const f of clean) {
    const slash = f.path.lastIndexOf('/');
    const base = f.path.slice(slash + 1);
    if (!TOP_FILES.includes(base)) continue;
    const dir = slash < 0 ? '' : f.path.slice(0, slash + 1);
    if (root === null || dir.split('/').length < root.split('/').length) root = dir;
  }
  if (root === null) {
    throw new RaceLinkImportError(
      label,
      `not a RaceLink data folder: none of ${TOP_FILES.join(', ')} found ` +
        '(choose the .racelink folder in your home directory)',
    );
  }
  const out: RaceLinkFolder = {
    config: null,
    configShadowed: null,
    presets: null,
    scenes: null,
    scenesShadowed: null,
    ledFiles: [],
    backups: [],
    ignored: [],
  };
  const byName = new Map<string, LocatedFile>();
  for (const f of clean) {
    if (!f.path.startsWith(root)) {
      out.ignored.push(f.path);
      continue;
    }
    const name = f.path.slice(root.length);
    if (byName.has(name)) throw new RaceLinkImportError(name, 'given twice');
    byName.set(name, { name, bytes: f.bytes });
  }
  const take = (names: readonly string[]): [LocatedFile | null, LocatedFile | null] => {
    const found = names.map((n) => byName.get(n)).filter((f): f is LocatedFile => f !== undefined);
    return [found[0] ?? null, found[1] ?? null];
  };
  [out.config, out.configShadowed] = take(CONFIG_NAMES);
  [out.scenes, out.scenesShadowed] = take(SCENE_NAMES);
  out.presets = byName.get(PRESETS_NAME) ?? null;
  const claimed = new Set(
    [out.config, out.configShadowed, out.scenes, out.scenesShadowed, out.presets].map((f) => f?.name),
  );
  // The newer LED folder wins when both exist (the original renamed the old one once).
  const ledDir = LED_DIRS.find((d) => [...byName.keys()].some((n) => n.startsWith(`${d}/`)));
  for (const [name, f] of [...byName].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (claimed.has(name)) continue;
    const parts = name.split('/');
    const isJson = parts.length === 2 && name.endsWith('.json') && !(parts[1] ?? '').startsWith('.');
    if (isJson && parts[0] === ledDir) out.ledFiles.push(f);
    else if (isJson && parts[0] === BACKUP_DIR) out.backups.push(f);
    else out.ignored.push(name);
  }
  return out;
}

/** Strict UTF-8 (a BOM is dropped) and JSON; the error names the file and says what is wrong. */
export function readJson(f: LocatedFile): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(f.bytes);
  } catch {
    throw new RaceLinkImportError(f.name, 'is not UTF-8 text');
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (!text.trim()) throw new RaceLinkImportError(f.name, 'is empty');
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const msg = (err as Error).message;
    // A file cut short (a copy interrupted, a full disk) fails at its very end.
    const at = /position (\d+)/.exec(msg)?.[1];
    const truncated =
      /end of (JSON )?input|Unterminated/i.test(msg) ||
      (at !== undefined && Number(at) >= text.trimEnd().length);
    throw new RaceLinkImportError(
      f.name,
      truncated ? `is truncated (the JSON ends early: ${msg})` : `is not valid JSON (${msg})`,
    );
  }
}
