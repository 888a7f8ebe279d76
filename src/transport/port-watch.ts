/**
 * The hot-plug decision (design networks §2.7), pure: given two listings of the serial
 * ports (never opened to list them), which ports may be probed for a missing gateway and
 * which reconnecting drivers should try again at once.
 *
 * Opening a USB-serial port resets whatever board is on it (a CP2102 toggles DTR/RTS), and
 * that board may be another program's device. So a port is probed only if it APPEARED
 * while a gateway was missing: present in this listing, absent in the previous one. A port
 * that was already there when the gateway went missing is never touched, nor one a driver
 * owns (by its name or by the device node it resolves to). While a race start is armed
 * nothing is probed: an appeared port waits (`defer`) until the start fired or was cancelled.
 */

/** One listed port: its name and the device node it resolves to (the same for a plain node). */
export interface SeenPort {
  path: string;
  real: string;
}

/** A port a gateway driver owns; `down` while its link is lost (it is reconnecting). */
export interface OwnedPort extends SeenPort {
  down: boolean;
}

export interface PortWatchInput {
  /** Device nodes of the previous listing; null when this is the first (the baseline). */
  before: ReadonlySet<string> | null;
  after: readonly SeenPort[];
  owned: readonly OwnedPort[];
  /** Ports that appeared earlier but were not probed yet (armed start, failed open). */
  deferred: readonly string[];
  /** A network's gateway is missing or a driver lost its link. */
  active: boolean;
  /** A race start is armed: probe nothing. */
  armed: boolean;
}

export interface PortWatchDecision {
  /** Free ports that appeared: probe them now. */
  probe: string[];
  /** Owned ports that appeared again whose driver is down: connect now. */
  retry: string[];
  /** Free ports that appeared but must wait (armed). */
  defer: string[];
  /** The device nodes of `after`: the next call's `before`. */
  seen: Set<string>;
}

export function decidePorts(input: PortWatchInput): PortWatchDecision {
  const seen = new Set(input.after.map((p) => p.real));
  const none = { probe: [], retry: [], defer: [], seen };
  if (!input.active) return none;
  const ownerOf = (p: SeenPort): OwnedPort | undefined =>
    input.owned.find((o) => o.path === p.path || o.real === p.real);
  const appeared = input.before ? input.after.filter((p) => !input.before?.has(p.real)) : ([] as SeenPort[]);
  const retry: string[] = [];
  const free: string[] = [];
  for (const p of appeared) {
    const owner = ownerOf(p);
    if (!owner) free.push(p.path);
    else if (owner.down && !retry.includes(owner.path)) retry.push(owner.path);
  }
  // Deferred ports still listed and still free (a driver may have taken one meanwhile).
  for (const path of input.deferred) {
    const p = input.after.find((x) => x.path === path);
    if (p && !ownerOf(p) && !free.includes(p.path)) free.push(p.path);
  }
  return input.armed ? { probe: [], retry, defer: free, seen } : { probe: free, retry, defer: [], seen };
}
