/**
 * The host's WiFi interfaces, read from NetworkManager (`nmcli`). Without nmcli
 * (or with `--wifi none`) there are no interfaces to manage and the list is empty.
 */
import type { Logger } from '../../logger.ts';
import type { WifiBackend } from './backend.ts';
import type { CommandRunner } from './command-runner.ts';

/** What the firmware dialog needs to know before it offers host WiFi switching. */
export interface WifiStatus {
  backend: 'nmcli' | 'none';
  /** The host can join a node's access point by itself. */
  canSwitch: boolean;
  /** What is missing (or, under `--wifi none`, what that means), or null. */
  problem: string | null;
}

export interface WifiInterface {
  name: string;
  state: string;
  type: string;
  connection: string | null;
}

/** Splits one `nmcli -t` line: fields are ':'-separated, with '\:' and '\\' escaped. */
export function splitTerse(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '\\' && i + 1 < line.length) {
      cur += line[++i];
    } else if (c === ':') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

export class HostWifiService {
  constructor(
    private readonly backend: 'nmcli' | 'none',
    private readonly runner: CommandRunner,
    private readonly log: Logger,
    private readonly control?: WifiBackend & { missing?: string | null },
  ) {}

  /** Said up front, so the dialog never offers what cannot work (interfaces: the list). */
  async status(ifaces: readonly WifiInterface[]): Promise<WifiStatus> {
    if (this.backend === 'none') {
      const missing = this.control?.missing ?? null;
      return {
        backend: 'none',
        canSwitch: false,
        problem: missing
          ? `${missing}: the host cannot join a node's WiFi access point. Install NetworkManager, or join this ` +
            `computer to the node's WiFi yourself and start the host with --wifi none, or set a node base URL ` +
            `that answers from this network.`
          : 'Host WiFi switching is off (--wifi none): the host stays on its network, so nodes must answer at ' +
            'the node base URL from here.',
      };
    }
    const reason =
      (await this.control?.unsupportedReason().catch((e: unknown) => (e as Error).message)) ?? null;
    if (reason) return { backend: 'nmcli', canSwitch: false, problem: reason };
    if (ifaces.length === 0)
      return {
        backend: 'nmcli',
        canSwitch: false,
        problem:
          "This host has no WiFi interface (NetworkManager lists none): it cannot join a node's access point.",
      };
    return { backend: 'nmcli', canSwitch: true, problem: null };
  }

  async interfaces(): Promise<WifiInterface[]> {
    if (this.backend === 'none') return [];
    let res;
    try {
      res = await this.runner.run('nmcli', ['-t', '-f', 'DEVICE,TYPE,STATE,CONNECTION', 'device', 'status']);
    } catch {
      return [];
    }
    if (res.code !== 0) {
      this.log.warn({ code: res.code, stderr: res.stderr.slice(0, 200) }, 'nmcli device status failed');
      return [];
    }
    return res.stdout
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => splitTerse(l))
      .filter((f) => f[1] === 'wifi')
      .map(([name = '', type = '', state = '', connection = '']) => ({
        name,
        state,
        type,
        connection: connection && connection !== '--' ? connection : null,
      }));
  }
}
