/**
 * The host's WiFi interfaces, read from NetworkManager (`nmcli`). Without nmcli
 * (or with `--wifi none`) there are no interfaces to manage and the list is empty.
 */
import type { Logger } from '../../logger.ts';
import type { CommandRunner } from './command-runner.ts';

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
  ) {}

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
