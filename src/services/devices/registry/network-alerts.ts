/**
 * Identity events with several networks (design §2.4), kept for Health and the Networks
 * dialog: a node (same full MAC) now heard on another network moved there; another node
 * (another full MAC) announcing an address already taken is an address clash — never
 * applied, so the row stays its owner's. Newest last, bounded (older ones are in the log).
 */
import type { Addr } from '../../../protocol/types.ts';

export interface NetworkAlert {
  kind: 'moved' | 'addr_clash';
  addr: Addr;
  /** moved: the node's MAC; addr_clash: the MAC of the node that owns the row. */
  mac: string;
  /** addr_clash: the other node's full MAC, heard announcing the same address. */
  other_mac: string | null;
  from_network: number;
  to_network: number;
  /** Epoch seconds. */
  ts: number;
}

const ALERTS_MAX = 50;

export class NetworkAlerts {
  private readonly list: NetworkAlert[] = [];
  /** Called after an alert was added (the networks service pushes its SSE event). */
  onAlert: (() => void) | null = null;

  all(): readonly NetworkAlert[] {
    return this.list;
  }

  add(a: NetworkAlert): void {
    // One entry per address and kind: a node that keeps announcing is one alert, refreshed.
    const i = this.list.findIndex((x) => x.addr === a.addr && x.kind === a.kind);
    if (i >= 0) this.list.splice(i, 1);
    this.list.push(a);
    if (this.list.length > ALERTS_MAX) this.list.shift();
    this.onAlert?.();
  }
}
