/**
 * What the gateway rooms share: a chosen gateway (how its driver reaches it, on which clock),
 * how detection is injected (tests, the simulator), and the one way a found serial port
 * becomes a gateway. A leaf: choose.ts (start-up), rescan.ts (while running) and hotplug.ts
 * all stand on it, so none of them needs another's file for a shape.
 */
import { realpath } from 'node:fs/promises';
import { ScaledClock, type Clock } from '../../clock.ts';
import type { Logger } from '../../logger.ts';
import type { SimOnMemory } from '../../sim/sim-host.ts';
import { SerialLink, type DetectOptions, type Link, type LinkFactory } from '../../transport/index.ts';

export interface GatewayChoice {
  linkFactory: LinkFactory;
  transport: 'serial' | 'tcp' | 'sim';
  port: string;
  sim: SimOnMemory | null;
  clock: Clock;
  /** The open link start-up detection handed to this gateway's driver (closed if the start fails). */
  probeLink?: Link;
}

/** Injected detection (tests, the simulator): candidates and how to open one. */
export type DetectOverride = Pick<DetectOptions, 'candidates' | 'open' | 'identify'> & {
  /** The link factory a found port's driver uses (default: a serial link). */
  linkFactory?: (path: string) => LinkFactory;
  /** Port events (the simulator's plug event; fs.watch of /dev/serial/by-id on a host). */
  watch?: (onChange: () => void) => () => void;
};

/** How start-up detection finds and opens ports (tests: simulated boards; default: serial). */
export type StartDetect = Pick<DetectOverride, 'candidates' | 'open' | 'identify' | 'linkFactory'>;

/** The device node a port name resolves to (the name itself when it is no file: sim, tests). */
export const canonicalPort = async (p: string): Promise<string> => {
  try {
    return await realpath(p);
  } catch {
    return p;
  }
};

export const transportLog =
  (log: Logger) =>
  (msg: string, fields?: object): void =>
    log.debug({ ...fields }, msg);

/** A serial gateway on the real clock (also used for one found by a rescan). */
export function serialChoice(path: string, log: Logger): GatewayChoice {
  const tlog = transportLog(log);
  return {
    linkFactory: () => new SerialLink(path, { log: tlog }),
    transport: 'serial',
    port: path,
    sim: null,
    clock: new ScaledClock(1),
  };
}
