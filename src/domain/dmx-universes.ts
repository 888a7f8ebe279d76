/**
 * The inputs a host listens to: `sacn:<universe>` (E1.31, 1–63999) and
 * `artnet:<net>.<subnet>.<universe>` (Art-Net port-address: net 0–127, subnet and universe
 * 0–15). A universe's key is its spec, normalised (`sacn:1`, `artnet:0.0.1`): the patch
 * names universes by it.
 */
export type DmxProtocol = 'sacn' | 'artnet';

export interface UniverseSpec {
  key: string;
  protocol: DmxProtocol;
  /** sACN: the universe; Art-Net: the 15-bit port-address (net << 8 | subnet << 4 | universe). */
  number: number;
}

/** The spec of one `--dmx` entry, or a sentence saying what is wrong with it. */
export function parseUniverse(text: string): UniverseSpec | string {
  const t = text.trim().toLowerCase();
  const s = /^sacn:(\d{1,5})$/.exec(t);
  if (s) {
    const n = Number(s[1]);
    if (n < 1 || n > 63999) return `"${text}": an sACN universe is 1–63999`;
    return { key: `sacn:${n}`, protocol: 'sacn', number: n };
  }
  const a = /^artnet:(\d{1,3})\.(\d{1,2})\.(\d{1,2})$/.exec(t);
  if (a) {
    const [net, sub, uni] = [Number(a[1]), Number(a[2]), Number(a[3])];
    if (net > 127 || sub > 15 || uni > 15)
      return `"${text}": Art-Net is net 0–127, subnet 0–15, universe 0–15`;
    return { key: `artnet:${net}.${sub}.${uni}`, protocol: 'artnet', number: (net << 8) | (sub << 4) | uni };
  }
  return `"${text}" is not sacn:<universe> or artnet:<net>.<subnet>.<universe> (e.g. sacn:1, artnet:0.0.1)`;
}

/** The Art-Net key of a 15-bit port-address. */
export const artnetKey = (portAddress: number): string =>
  `artnet:${(portAddress >> 8) & 0x7f}.${(portAddress >> 4) & 0xf}.${portAddress & 0xf}`;
