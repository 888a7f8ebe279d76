/**
 * DNS-rebinding guard: the `Host` header must name this machine. A page on
 * `http://evil.example:5077` whose name an attacker re-points to the track laptop sends
 * `Host: evil.example:5077` (and a matching `Origin`), so the cross-origin check alone
 * lets it through; refusing unknown host names closes that hole.
 *
 * Accepted: any IP literal (no DNS is involved, so nothing can be re-bound: this covers
 * the bound address and every interface address, also after DHCP or an OTA WiFi switch),
 * `localhost` and `*.localhost` (browsers resolve those locally), the machine's host name
 * (`os.hostname()`, its short form, and `<name>.local` for mDNS), and the operator's
 * `--allowed-hosts` entries: exact names, `*.example.org` for subdomains, or `*` for any
 * (only behind a proxy that checks Host itself). The port is not compared: a proxy (the
 * timing application's plugin) forwards the browser's Host with its own port.
 */
import { isIP } from 'node:net';
import { hostname } from 'node:os';

export class HostAllowList {
  private readonly exact = new Set<string>(['localhost']);
  private readonly suffixes: string[] = ['.localhost'];
  private readonly any: boolean;

  constructor(allowed: readonly string[], machineName: string = hostname()) {
    const own = normalizeName(machineName);
    if (own) {
      const short = own.split('.')[0] ?? own;
      for (const n of [own, short, `${short}.local`]) this.exact.add(n);
    }
    let any = false;
    for (const raw of allowed) {
      const entry = normalizeName(raw);
      if (!entry) continue;
      if (entry === '*') any = true;
      else if (entry.startsWith('*.')) this.suffixes.push(entry.slice(1));
      else this.exact.add(entry);
    }
    this.any = any;
  }

  /** True when the Host header may be served. A request without one (HTTP/1.0) is no browser's. */
  allows(header: string | undefined): boolean {
    if (header === undefined) return true;
    if (this.any) return true;
    const name = hostPart(header);
    if (name === null) return false;
    if (isIP(name)) return true;
    if (this.exact.has(name)) return true;
    return this.suffixes.some((s) => name.endsWith(s) && name.length > s.length);
  }
}

/** Lower-case, without a trailing dot; '' for blanks. */
function normalizeName(s: string): string {
  return s.trim().toLowerCase().replace(/\.$/, '');
}

/** The name or address in a Host header (`[v6]:port`, `name:port`, `name`), or null if malformed. */
export function hostPart(header: string): string | null {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    if (end < 0) return null;
    const rest = h.slice(end + 1);
    if (rest && !/^:\d{1,5}$/.test(rest)) return null;
    // A zone id arrives percent-encoded (fe80::1%25eth0).
    return h.slice(1, end).replace(/%25/, '%');
  }
  const m = /^([a-z0-9._-]+)(:\d{1,5})?$/.exec(h);
  if (!m?.[1]) return null;
  return m[1].replace(/\.$/, '');
}
