/** Pure formatting and classification helpers (no DOM), unit-tested. */

export type Level = 'good' | 'warn' | 'bad' | 'none';

/** "246F28F1728B" / "F1728B" → "24:6F:28:F1:72:8B" style, upper-case. */
export function formatMac(fullMac: string | null | undefined, addr: string): string {
  const hex = (fullMac && /^[0-9a-f]{12}$/i.test(fullMac) ? fullMac : addr).toUpperCase();
  return hex.match(/.{2}/g)?.join(':') ?? hex;
}

/** Millivolts → "7.9 V" (cut, not rounded: a pack never reads fuller than it is); 0 = not reported. */
export function formatVolts(mV: number): string {
  return mV > 0 ? `${(Math.floor(mV / 100) / 10).toFixed(1)} V` : '—';
}

/** LoRa RSSI at the default settings: better than -90 good, to -105 fair, else poor. */
export function rssiLevel(dbm: number): Level {
  if (!dbm) return 'none';
  if (dbm > -90) return 'good';
  if (dbm >= -105) return 'warn';
  return 'bad';
}

export function snrLevel(db: number, reported: boolean): Level {
  if (!reported) return 'none';
  if (db < -7) return 'bad';
  if (db < 0) return 'warn';
  return 'good';
}

/** Seconds → "12 s ago", "5 min ago", "3 h ago", "2 d ago"; null → "never". */
export function relativeTime(ts: number | null | undefined, now: number): string {
  if (!ts) return 'never';
  const s = Math.max(0, Math.round(now - ts));
  if (s < 5) return 'just now';
  if (s < 90) return `${s} s ago`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min ago`;
  if (s < 36 * 3600) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

/** Durations: "1,500 ms" below 10 s, "M:SS" above. */
export function formatDuration(ms: number): string {
  if (ms < 10_000) return `${Math.round(ms).toLocaleString('en-US')} ms`;
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** Elapsed seconds of a task: "0:07". */
export function formatElapsed(s: number): string {
  const t = Math.max(0, Math.floor(s));
  return `${Math.floor(t / 60)}:${String(t % 60).padStart(2, '0')}`;
}

const FLAG_NAMES: [number, string][] = [
  [0x02, 'ARM'],
  [0x04, 'BRI'],
  [0x08, 'TT0'],
  [0x10, 'REAPPLY'],
  [0x20, 'OFFSET'],
];

export function flagNames(flags: number): string[] {
  return FLAG_NAMES.filter(([bit]) => (flags & bit) !== 0).map(([, n]) => n);
}

export const hex2 = (n: number): string => n.toString(16).toUpperCase().padStart(2, '0');

/**
 * What kind of device a node is, for counting a group's members: its most specific
 * capability. A start block has LEDs too (caps LED + STARTBLOCK) but is one start block,
 * not one LED node and one start block — summing capabilities counted it twice.
 */
export function deviceKind(caps: readonly string[]): string | null {
  return caps.find((c) => c !== 'LED') ?? caps[0] ?? null;
}

/** Device-kind (or capability) counts → "3 LED · 1 STARTBLOCK". */
export function capsSummary(caps: Record<string, number>): string {
  return Object.entries(caps)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`)
    .join(' · ');
}

/** Case-insensitive match of a device against the search box (name, MAC, type, group). */
export function matchesSearch(
  d: { name: string; addr: string; full_mac: string | null; dev_type_name: string },
  groupName: string,
  q: string,
): boolean {
  if (!q) return true;
  const needle = q.trim().toLowerCase().replace(/[:-]/g, '');
  if (!needle) return true;
  return (
    d.name.toLowerCase().includes(needle) ||
    d.addr.toLowerCase().includes(needle) ||
    (d.full_mac ?? '').toLowerCase().includes(needle) ||
    d.dev_type_name.toLowerCase().includes(needle) ||
    groupName.toLowerCase().includes(needle)
  );
}

export type SortDir = 1 | -1;

// One collator for every comparison: localeCompare with options builds one per call,
// which made sorting 1 000 rows take seconds.
const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** Compares two values for sorting: numbers numerically, strings naturally, nullish last. */
export function compareValues(a: unknown, b: unknown): number {
  const an = a === null || a === undefined || a === '';
  const bn = b === null || b === undefined || b === '';
  if (an || bn) return an === bn ? 0 : an ? 1 : -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(b) - Number(a);
  return collator.compare(String(a), String(b));
}

/** Shallow equality of two plain records (used to keep row identity across reloads). */
export function sameRecord(a: object, b: object): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    const va = (a as Record<string, unknown>)[k];
    const vb = (b as Record<string, unknown>)[k];
    if (va === vb) continue;
    if (typeof va === 'object' && typeof vb === 'object' && va && vb) {
      if (JSON.stringify(va) !== JSON.stringify(vb)) return false;
    } else return false;
  }
  return true;
}
