/**
 * The firmware's region channel table and the host's separation rule for networks. Pure.
 *
 * The table must equal the node's own copy: a node names its channel only when all seven
 * fields match, so an entry here that differs by one field would be "custom" on the node.
 * Only the frequency differs between entries (SF7, 125 kHz, CR 4/5, sync 0x12, 14 dBm,
 * preamble 8).
 *
 * Separation is stricter than the original's (≥ 500 kHz or another sync word): two networks
 * on overlapping bands share the air whatever their sync word, so their packets collide. We
 * require |Δf| ≥ max(500 kHz, (bwA + bwB)/2 + 250 kHz).
 */
import type { RfConfig } from '../protocol/types.ts';
import { validateRfConfig } from '../protocol/rf.ts';

export const RF_REGIONS = ['EU868', 'US915'] as const;
export type RfRegion = (typeof RF_REGIONS)[number];

export interface RfChannel {
  region: RfRegion;
  /** 1..5, dense. */
  id: number;
  name: string;
  rf: RfConfig;
  /** Operator hint from the original's docs (duty-cycle band, local rules). */
  note: string;
}

export const MIN_SEPARATION_HZ = 500_000;
/** Guard between the edges of two occupied bands, on top of half of each bandwidth. */
export const BAND_GUARD_HZ = 250_000;

const base = { bwKhzX10: 1250, sf: 7, crDen: 5, syncWord: 0x12, txPowerDbm: 14, preamble: 8 } as const;

const channel = (region: RfRegion, id: number, name: string, freqHz: number, note: string): RfChannel => ({
  region,
  id,
  name,
  rf: { freqHz, ...base },
  note,
});

const EDGE = 'centred on a sub-band edge: check your local rules before using it';

export const RF_CHANNELS: readonly RfChannel[] = [
  channel('EU868', 1, 'Default', 867_700_000, 'devices ship on this channel'),
  channel('EU868', 2, 'Alt-1', 868_200_000, '1 % duty-cycle band'),
  channel('EU868', 3, 'Alt-2', 868_700_000, `0.1 % duty-cycle band; ${EDGE}`),
  channel('EU868', 4, 'Alt-3', 869_200_000, `0.1 % duty-cycle band; ${EDGE}`),
  channel('EU868', 5, 'High', 869_700_000, `1 % duty-cycle band; ${EDGE}`),
  channel('US915', 1, 'Default', 904_300_000, 'inside the 902.3–914.9 MHz uplink range'),
  channel('US915', 2, 'Alt-1', 905_300_000, ''),
  channel('US915', 3, 'Alt-2', 906_300_000, ''),
  channel('US915', 4, 'Alt-3', 907_300_000, ''),
  channel('US915', 5, 'High', 908_300_000, ''),
];

export const isRfRegion = (v: unknown): v is RfRegion =>
  typeof v === 'string' && (RF_REGIONS as readonly string[]).includes(v);

export function findChannel(region: RfRegion, id: number): RfChannel | null {
  return RF_CHANNELS.find((c) => c.region === region && c.id === id) ?? null;
}

export const sameRf = (a: RfConfig, b: RfConfig): boolean =>
  a.freqHz === b.freqHz &&
  a.bwKhzX10 === b.bwKhzX10 &&
  a.sf === b.sf &&
  a.crDen === b.crDen &&
  a.syncWord === b.syncWord &&
  a.txPowerDbm === b.txPowerDbm &&
  a.preamble === b.preamble;

/** The table entry whose seven fields all equal `rf` (as the node names it), else null (custom). */
export function channelOf(rf: RfConfig): RfChannel | null {
  return RF_CHANNELS.find((c) => sameRf(c.rf, rf)) ?? null;
}

/** Which fields differ, in the order the firmware lays them out (for conflict reports). */
export function rfDifferences(a: RfConfig, b: RfConfig): (keyof RfConfig)[] {
  const keys: (keyof RfConfig)[] = [
    'freqHz',
    'bwKhzX10',
    'sf',
    'crDen',
    'syncWord',
    'txPowerDbm',
    'preamble',
  ];
  return keys.filter((k) => a[k] !== b[k]);
}

/** Half of the occupied bandwidth in Hz. */
const halfBandHz = (rf: RfConfig): number => (rf.bwKhzX10 * 100) / 2;

/** The smallest centre-to-centre distance two networks may have. */
export const requiredSeparationHz = (a: RfConfig, b: RfConfig): number =>
  Math.max(MIN_SEPARATION_HZ, halfBandHz(a) + halfBandHz(b) + BAND_GUARD_HZ);

/** True when two networks on these settings would share air (their packets could collide). */
export const tooClose = (a: RfConfig, b: RfConfig): boolean =>
  Math.abs(a.freqHz - b.freqHz) < requiredSeparationHz(a, b);

export interface SeparationConflict {
  /** The other network, as the caller named it. */
  other: { id: number; name: string };
  distanceHz: number;
  requiredHz: number;
}

/**
 * Checks `rf` for network `selfId` against every other network with known settings. Returns
 * the first conflict (the caller turns it into a 400 naming both networks), or null.
 */
export function checkSeparation(
  selfId: number | null,
  rf: RfConfig,
  others: readonly { id: number; name: string; rf: RfConfig | null }[],
): SeparationConflict | null {
  for (const o of others) {
    if (o.id === selfId || o.rf === null) continue;
    if (tooClose(rf, o.rf))
      return {
        other: { id: o.id, name: o.name },
        distanceHz: Math.abs(rf.freqHz - o.rf.freqHz),
        requiredHz: requiredSeparationHz(rf, o.rf),
      };
  }
  return null;
}

/**
 * The first table channel of `region` that keeps its distance from every network in `taken`
 * (what a new network gets), or null when the region is full.
 */
export function firstFreeChannel(region: RfRegion, taken: readonly (RfConfig | null)[]): RfChannel | null {
  return (
    RF_CHANNELS.filter((c) => c.region === region).find((c) =>
      taken.every((t) => t === null || !tooClose(c.rf, t)),
    ) ?? null
  );
}

/** "EU868 ch 2 · 868.2 MHz", or "custom · 868.35 MHz SF9 250 kHz" (for logs and the UI). */
export function describeRf(rf: RfConfig): string {
  const mhz = `${+(rf.freqHz / 1e6).toFixed(3)} MHz`;
  const c = channelOf(rf);
  if (c) return `${c.region} ch ${c.id} · ${mhz}`;
  return `custom · ${mhz} SF${rf.sf} ${rf.bwKhzX10 / 10} kHz`;
}

/** Firmware limits (W§7.6): the field that fails, or null. Re-exported for one import site. */
export const invalidRfField = (rf: RfConfig): string | null => validateRfConfig(rf);
