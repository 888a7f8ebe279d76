/**
 * `npm run sim -- --listen 127.0.0.1:<port> --sim-nodes <n> --sim-seed <s>`
 *
 * Serves a simulated gateway + fleet over raw TCP for other processes. Prints one JSON log
 * line once listening (with the real port, also when <port> is 0) and shuts down cleanly
 * on SIGINT/SIGTERM.
 */
import { Command, InvalidArgumentError } from 'commander';
import pino from 'pino';
import { ScaledClock } from '../clock.ts';
import { createFleet } from './fleet.ts';
import { startSimTcpServer } from './sim-host.ts';
import { watchLauncher } from './launcher-watch.ts';

function parseListen(v: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(v);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new InvalidArgumentError('expected <host>:<port>, e.g. 127.0.0.1:7001');
  return { host: m[1] ?? (m[2] || '127.0.0.1'), port };
}

function parseIntIn(min: number, max: number) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(`expected an integer ${min}..${max}`);
    return n;
  };
}

function parseNum(min: number, max: number, exclusiveMin = false) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isFinite(n) || n > max || (exclusiveMin ? n <= min : n < min)) {
      throw new InvalidArgumentError(`expected a number ${exclusiveMin ? '>' : '>='} ${min} and <= ${max}`);
    }
    return n;
  };
}

function parseMac(v: string): string {
  const hex = v.replace(/[^0-9a-fA-F]/g, '');
  if (hex.length !== 12) throw new InvalidArgumentError('expected 12 hex digits, e.g. 48:CA:43:10:20:30');
  return hex.toUpperCase();
}

const parseSeed = (v: string): number | string => (/^\d+$/.test(v) ? Number(v) : v);

interface CliOptions {
  listen: { host: string; port: number };
  simNodes: number;
  simSeed: number | string;
  simTimeScale: number;
  loss: number;
  resetOnOpen: boolean;
  gatewayMac: string;
  logLevel: string;
}

async function main(): Promise<void> {
  const program = new Command()
    .name('sim')
    .description('Simulated gateway and node fleet, served over raw TCP')
    .requiredOption('--listen <host:port>', 'address to listen on (port 0 = any free port)', parseListen)
    .option('--sim-nodes <n>', 'number of simulated nodes', parseIntIn(0, 5000), 12)
    .option('--sim-seed <s>', 'seed for the fleet (MACs, types, radio behaviour)', parseSeed, 1)
    .option('--sim-time-scale <x>', 'wall ms per virtual ms (0.1 = 10x faster)', parseNum(0, 100, true), 1)
    .option('--loss <rate>', 'radio packet loss rate 0..1', parseNum(0, 1), 0)
    .option(
      '--gateway-mac <mac>',
      'gateway MAC (identify answer, LoRa address)',
      parseMac,
      '48:CA:43:10:20:30',
    )
    .option('--reset-on-open', 'reset the gateway on every connection, like a CP2102 board', false)
    .option('--log-level <level>', 'pino log level', 'info')
    .parse(process.argv);
  const o = program.opts<CliOptions>();
  const log = pino({ level: o.logLevel, base: { name: 'lightnet-sim' } });

  const clock = new ScaledClock(o.simTimeScale);
  const fleet = createFleet({
    nodes: o.simNodes,
    seed: o.simSeed,
    clock,
    lossRate: o.loss,
    resetOnOpen: o.resetOnOpen,
    gatewayMac: o.gatewayMac,
  });
  fleet.start();
  // Announce only a gateway that answers: a tool may identify right after the log line.
  await fleet.gateway.whenBooted();
  const server = await startSimTcpServer({ host: o.listen.host, port: o.listen.port, fleet });
  fleet.gateway.usb.events.on('attached', ({ link }) => log.debug({ peer: link.path }, 'host connected'));
  fleet.gateway.usb.events.on('detached', () => log.debug('host disconnected'));
  log.info(
    {
      host: server.host,
      port: server.port,
      nodes: fleet.nodes.length,
      seed: o.simSeed,
      timeScale: o.simTimeScale,
      gatewayMac: fleet.gateway.mac,
    },
    'sim listening',
  );

  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'sim stopping');
    fleet.stop();
    void server.close().then(() => {
      log.flush();
      process.exit(0);
    });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGHUP', () => shutdown('SIGHUP'));
  watchLauncher(() => shutdown('launcher exited'));
}

main().catch((err: unknown) => {
  console.error(JSON.stringify({ level: 'fatal', msg: 'sim failed to start', err: String(err) }));
  process.exit(1);
});
