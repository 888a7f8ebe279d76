/**
 * Runtime configuration: CLI flags > environment (LIGHTNET_<NAME>) > config file
 * (--config <file>, JSON with the same option names) > defaults. Every value is
 * validated here so the rest of the program can trust it.
 */
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import * as z from 'zod';
import type { GatewaySpec } from '../transport/index.ts';
import { checkSimGateways, MAX_GATEWAYS, parseGatewayList } from './gateways.ts';
import { parseUniverse, type UniverseSpec } from '../domain/dmx-universes.ts';

export interface Config {
  port: number;
  host: string;
  prefix: string;
  dataDir: string;
  /**
   * Where the state lives while the simulator is the gateway (`--gateway sim`, or `auto`
   * falling back to it): simulated devices never land in the real data folder.
   */
  simDataDir: string;
  /** The first (with one gateway, the only) entry of `gateways`. */
  gateway: GatewaySpec;
  gatewayText: string;
  /** Every `--gateway` entry; absent = `[gateway]`. Several = one network per gateway. */
  gateways?: GatewaySpec[];
  /** Simulated gateways (each with its own fleet of `simNodes`, on its own channel); default 1. */
  simGateways?: number;
  /** Benchmarks only (no flag): every simulated gateway on one channel, to show why networks need separate ones. */
  simSameChannel?: boolean;
  /**
   * Benchmarks only (no flag): the simulated gateways' fleets are one seeded fleet of
   * `simGateways × simNodes` split in order (the nodes a single gateway of that size would
   * have), not a fleet per gateway; see createFleets `split`.
   */
  simSplitFleet?: boolean;
  simNodes: number;
  simSeed: number;
  simTimeScale: number;
  wifi: 'nmcli' | 'none';
  /**
   * Why the host cannot switch its WiFi by itself although nobody asked for `--wifi none`
   * (it was chosen because nmcli is missing), or null. The firmware dialog says it up
   * front, and a run that could only reach nodes through their access point fails at once.
   */
  wifiMissing?: string | null;
  password: string | null;
  /** Extra names the Host header may carry (DNS-rebinding guard): exact, `*.domain`, or `*`. */
  allowedHosts: string[];
  logLevel: string;
  configFile: string | null;
  /** Seconds the host keeps restoring a rebooted known node before calling it offline. */
  restoreBudgetS?: number;
  /** `rotorhazard` when a timing-application plugin manages this host, else `none`. */
  integration?: 'none' | 'rotorhazard';
  /** Shared secret of the loopback-only integration endpoints (required with --integration). */
  integrationSecret?: string | null;
  /**
   * Stop when stdin reaches its end: only for a host whose parent holds its stdin pipe (the
   * timing plugin's child dies with the plugin). A service's stdin is /dev/null: never set.
   */
  exitOnStdinClose?: boolean;
  /** OSC over UDP on this port (bound to `host`); null: off. 0: any free port (tests). */
  oscPort?: number | null;
  /** OSC messages per second per sender. */
  oscRate?: number;
  /** Where OSC feedback always goes, besides the senders. */
  oscFeedback?: { host: string; port: number }[];
  /** The MQTT bridge (`--mqtt URL`), or null: off. */
  mqtt?: MqttConfig | null;
  /** DMX inputs (`--dmx sacn:1,artnet:0.0.1`); empty: DMX in is off and nothing is loaded. */
  dmx?: UniverseSpec[];
  /** sACN / Art-Net UDP ports (bound to `host`); 0: any free port (tests). */
  dmxSacnPort?: number;
  dmxArtnetPort?: number;
}

export interface MqttConfig {
  /** mqtt://, mqtts://, ws:// or wss:// with host and port. */
  url: string;
  username?: string;
  password?: string;
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  baseTopic: string;
  discoveryPrefix: string;
  /** Home Assistant discovery configs published (default true). */
  discovery: boolean;
  /** Tests only (no flag): the first reconnect delay (default 1 s, doubling up to 30 s). */
  backoffMs?: number;
}

const DEFAULTS = {
  port: '5077',
  host: '127.0.0.1',
  prefix: '/lightnet',
  'data-dir': './data',
  'sim-data-dir': '',
  gateway: 'auto',
  'sim-nodes': '12',
  'sim-gateways': '1',
  'sim-seed': '1',
  'sim-time-scale': '1',
  wifi: '',
  password: '',
  'allowed-hosts': '',
  'log-level': 'info',
  'restore-budget': '300',
  integration: 'none',
  'integration-secret': '',
  'exit-on-stdin-close': '',
  'osc-port': '',
  'osc-rate': '50',
  'osc-feedback': '',
  mqtt: '',
  'mqtt-user': '',
  'mqtt-password': '',
  'mqtt-ca': '',
  'mqtt-cert': '',
  'mqtt-key': '',
  'mqtt-base-topic': 'lightnet',
  'mqtt-discovery-prefix': 'homeassistant',
  'mqtt-discovery': 'true',
  dmx: '',
  'dmx-sacn-port': '5568',
  'dmx-artnet-port': '6454',
} as const;
type OptionName = keyof typeof DEFAULTS;

const numberIn = (name: string, min: number, max: number, integer = true) =>
  z.coerce
    .number({ error: `--${name} must be a number` })
    .refine((n) => (integer ? Number.isInteger(n) : Number.isFinite(n)) && n >= min && n <= max, {
      message: `--${name} must be ${integer ? 'an integer ' : ''}between ${min} and ${max}`,
    });

export class ConfigError extends Error {}

function nmcliOnPath(): boolean {
  return (process.env.PATH ?? '').split(':').some((dir) => dir && existsSync(`${dir}/nmcli`));
}

export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): Config {
  const program = new Command()
    .name('lightnet')
    .description('Lightnet host: drives a LoRa fleet of LED and timing nodes through a radio gateway')
    .exitOverride()
    .option('--port <n>', 'HTTP port (default 5077)')
    .option('--host <addr>', 'bind address (default 127.0.0.1; 0.0.0.0 exposes the host on the LAN)')
    .option('--prefix <path>', 'URL mount prefix (default /lightnet)')
    .option('--data-dir <dir>', 'where state.json, firmware/ and led-presets/ live (default ./data)')
    .option(
      '--sim-data-dir <dir>',
      "the simulator's data folder, kept apart from the real one (default <data-dir>/simulator)",
    )
    .option(
      '--gateway <spec>',
      'auto | sim | serial:<path> | tcp:<host>:<port> (default auto: a real gateway if one answers, else the simulator); ' +
        'several gateways as a comma-separated list or by repeating the option, one network each',
      (v: string, prev: string[] | undefined) => [...(prev ?? []), v],
    )
    .option('--sim-nodes <n>', 'simulated fleet size (default 12; per gateway with --sim-gateways)')
    .option(
      '--sim-gateways <n>',
      `simulated gateways, each with its own fleet on its own channel (default 1, at most ${MAX_GATEWAYS})`,
    )
    .option('--sim-seed <s>', 'simulated fleet seed (default 1)')
    .option('--sim-time-scale <x>', 'wall ms per simulated ms; <1 runs faster (default 1)')
    .option('--wifi <backend>', 'host WiFi backend: nmcli | none (default nmcli when nmcli exists)')
    .option('--password <pw>', 'require this password for every route but /api/health')
    .option(
      '--allowed-hosts <names>',
      'comma-separated extra host names the server answers to (e.g. timer.example.org,*.track.lan; * = any); ' +
        "IP addresses, localhost and this machine's name are always accepted",
    )
    .option('--log-level <level>', 'fatal | error | warn | info | debug | trace | silent (default info)')
    .option(
      '--restore-budget <s>',
      'seconds to keep putting a rebooted known node back into its group before calling it offline (default 300)',
    )
    .option('--config <file>', 'JSON file with any of these options')
    .option(
      '--integration <app>',
      'none | rotorhazard: serve a timing-application plugin (prints a listening line with the port)',
    )
    .option(
      '--integration-secret <s>',
      'shared secret for the loopback integration API (prefer the env variable)',
    )
    .option(
      '--osc-port <n>',
      'receive OSC commands over UDP on this port (bound to --host; default off): Stream Deck/Companion, TouchOSC',
    )
    .option(
      '--osc-rate <n>',
      'OSC messages per second per sender (default 50; Blackout and red flag are exempt)',
    )
    .option(
      '--osc-feedback <targets>',
      'host:port list that always gets OSC feedback (the senders get it too), e.g. 192.168.1.20:9000',
    )
    .option('--mqtt <url>', 'connect to this MQTT broker (mqtt://host:1883, mqtts://… for TLS; default off)')
    .option('--mqtt-user <name>', 'MQTT user name')
    .option('--mqtt-password <pw>', 'MQTT password (prefer the LIGHTNET_MQTT_PASSWORD env variable)')
    .option('--mqtt-ca <file>', 'PEM file of the CA that signed the broker certificate (mqtts://)')
    .option('--mqtt-cert <file>', 'PEM client certificate, for brokers that require one')
    .option('--mqtt-key <file>', 'PEM private key of --mqtt-cert')
    .option(
      '--mqtt-base-topic <topic>',
      'first topic level of everything Lightnet publishes (default lightnet)',
    )
    .option('--mqtt-discovery-prefix <topic>', 'Home Assistant discovery prefix (default homeassistant)')
    .option(
      '--mqtt-discovery <bool>',
      'publish Home Assistant discovery configs: true | false (default true)',
    )
    .option(
      '--dmx <inputs>',
      'DMX in from a lighting console: sacn:<universe> and/or artnet:<net>.<subnet>.<universe>, ' +
        'comma-separated or repeated (default off; bound to --host: use 0.0.0.0 for consoles on the LAN)',
      (v: string, prev: string[] | undefined) => [...(prev ?? []), v],
    )
    .option('--dmx-sacn-port <n>', 'sACN (E1.31) UDP port (default 5568)')
    .option('--dmx-artnet-port <n>', 'Art-Net UDP port (default 6454)')
    .option(
      '--exit-on-stdin-close',
      'stop when stdin closes (for a parent that holds the pipe, as the RotorHazard plugin does; never under systemd)',
    );
  program.parse(argv, { from: 'user' });
  const {
    gateway: gatewayFlags,
    dmx: dmxFlags,
    ...flags
  } = program.opts<Record<string, string | undefined> & { gateway?: string[]; dmx?: string[] }>();

  let file: Record<string, unknown> = {};
  const configFile = flags.config ?? env.LIGHTNET_CONFIG ?? null;
  if (configFile) {
    try {
      file = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
    } catch (err) {
      throw new ConfigError(`--config ${configFile}: ${(err as Error).message}`);
    }
  }
  const camel = (n: string): string => n.replace(/-(\w)/g, (_m, c: string) => c.toUpperCase());
  const pick = (name: OptionName): string => {
    const flag = flags[camel(name)];
    if (flag !== undefined) return flag;
    const e = env[`LIGHTNET_${name.toUpperCase().replace(/-/g, '_')}`];
    if (e !== undefined && e !== '') return e;
    const f = file[name] ?? file[camel(name)];
    if (f !== undefined && f !== null) return String(f);
    return DEFAULTS[name];
  };

  const parse = <T>(schema: z.ZodType<T>, value: string): T => {
    const r = schema.safeParse(value);
    if (!r.success) throw new ConfigError(r.error.issues[0]?.message ?? 'invalid option');
    return r.data;
  };

  // Repeated flags, else one comma-separated list from the env or the config file (where a
  // JSON array also works: String(array) joins it with commas).
  const gatewayValues = gatewayFlags && gatewayFlags.length > 0 ? gatewayFlags : [pick('gateway')];
  let gateways: GatewaySpec[];
  const simGateways = parse(numberIn('sim-gateways', 1, MAX_GATEWAYS), pick('sim-gateways'));
  try {
    gateways = parseGatewayList(gatewayValues);
    checkSimGateways(gateways, simGateways);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const gateway = gateways[0] as GatewaySpec;
  const prefixRaw = pick('prefix').trim();
  if (!/^(\/[A-Za-z0-9._~-]+)*\/?$/.test(prefixRaw)) {
    throw new ConfigError('--prefix must be a URL path like /lightnet (letters, digits, . _ ~ -)');
  }
  const wifiRaw = pick('wifi');
  const wifi = wifiRaw === '' ? (process.platform === 'linux' && nmcliOnPath() ? 'nmcli' : 'none') : wifiRaw;
  const wifiMissing =
    wifiRaw !== '' || wifi !== 'none'
      ? null
      : process.platform === 'linux'
        ? 'NetworkManager (nmcli) is not installed on this host'
        : 'switching the host WiFi needs Linux with NetworkManager (nmcli)';
  if (wifi !== 'nmcli' && wifi !== 'none') throw new ConfigError('--wifi must be nmcli or none');
  const logLevel = pick('log-level');
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError('--log-level must be one of fatal, error, warn, info, debug, trace, silent');
  }
  const integration = pick('integration');
  if (integration !== 'none' && integration !== 'rotorhazard') {
    throw new ConfigError('--integration must be none or rotorhazard');
  }
  const integrationSecret = pick('integration-secret') || null;
  if (integration !== 'none' && (!integrationSecret || integrationSecret.length < 16)) {
    throw new ConfigError(
      '--integration-secret (or LIGHTNET_INTEGRATION_SECRET) of at least 16 characters is required with --integration',
    );
  }
  const stdinRaw = String(pick('exit-on-stdin-close')).trim().toLowerCase();
  if (!['', 'true', '1', 'false', '0'].includes(stdinRaw)) {
    throw new ConfigError('--exit-on-stdin-close (LIGHTNET_EXIT_ON_STDIN_CLOSE) must be true or false');
  }
  const dataDir = pick('data-dir');
  const oscRaw = pick('osc-port').trim();
  const dmx = parseDmx(dmxFlags && dmxFlags.length > 0 ? dmxFlags.join(',') : pick('dmx'));
  return {
    port: parse(numberIn('port', 0, 65535), pick('port')),
    host: pick('host'),
    prefix: prefixRaw === '/' ? '' : prefixRaw.replace(/\/$/, ''),
    dataDir,
    simDataDir: pick('sim-data-dir') || join(dataDir, 'simulator'),
    gateway,
    gatewayText: gatewayValues.join(','),
    gateways,
    simGateways,
    simNodes: parse(numberIn('sim-nodes', 0, 1000), pick('sim-nodes')),
    simSeed: parse(numberIn('sim-seed', 0, 2 ** 32 - 1), pick('sim-seed')),
    simTimeScale: parse(numberIn('sim-time-scale', 0.001, 100, false), pick('sim-time-scale')),
    wifi,
    wifiMissing,
    password: pick('password') || null,
    allowedHosts: parseHostList(pick('allowed-hosts')),
    logLevel,
    configFile,
    restoreBudgetS: parse(numberIn('restore-budget', 10, 3600), pick('restore-budget')),
    integration,
    integrationSecret,
    exitOnStdinClose: stdinRaw === 'true' || stdinRaw === '1',
    oscPort: oscRaw === '' ? null : parse(numberIn('osc-port', 0, 65535), oscRaw),
    oscRate: parse(numberIn('osc-rate', 1, 10_000), pick('osc-rate')),
    oscFeedback: parseTargets(pick('osc-feedback')),
    mqtt: parseMqtt(pick),
    dmx,
    dmxSacnPort: parse(numberIn('dmx-sacn-port', 0, 65535), pick('dmx-sacn-port')),
    dmxArtnetPort: parse(numberIn('dmx-artnet-port', 0, 65535), pick('dmx-artnet-port')),
  };
}

/** The `--mqtt*` options, checked; null when `--mqtt` is not given. */
function parseMqtt(pick: (name: OptionName) => string): MqttConfig | null {
  const url = pick('mqtt').trim();
  if (url === '') return null;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ConfigError('--mqtt must be a URL like mqtt://192.168.1.10:1883');
  }
  if (!['mqtt:', 'mqtts:', 'ws:', 'wss:', 'tcp:', 'ssl:'].includes(u.protocol) || !u.hostname)
    throw new ConfigError('--mqtt must be a URL like mqtt://192.168.1.10:1883 (mqtt, mqtts, ws or wss)');
  const topic = (name: OptionName): string => {
    const v = pick(name).trim();
    // One or more levels, no wildcards, no empty level, no spaces.
    if (v.length === 0 || v.length > 100 || !v.split('/').every((l) => l.length > 0 && !/[+#\s]/.test(l)))
      throw new ConfigError(`--${name} must be topic levels without wildcards or spaces (e.g. lightnet)`);
    return v;
  };
  const file = (name: OptionName): string | undefined => {
    const v = pick(name).trim();
    if (v === '') return undefined;
    if (!existsSync(v)) throw new ConfigError(`--${name}: no file ${v}`);
    return v;
  };
  const discovery = pick('mqtt-discovery').trim().toLowerCase();
  if (!['true', 'false', '1', '0'].includes(discovery))
    throw new ConfigError('--mqtt-discovery must be true or false');
  const cert = file('mqtt-cert');
  const key = file('mqtt-key');
  if ((cert === undefined) !== (key === undefined))
    throw new ConfigError('--mqtt-cert and --mqtt-key go together (a client certificate needs its key)');
  const user = pick('mqtt-user');
  const password = pick('mqtt-password');
  return {
    url,
    ...(user ? { username: user } : {}),
    ...(password ? { password } : {}),
    ...(file('mqtt-ca') ? { caFile: file('mqtt-ca') } : {}),
    ...(cert ? { certFile: cert, keyFile: key } : {}),
    baseTopic: topic('mqtt-base-topic'),
    discoveryPrefix: topic('mqtt-discovery-prefix'),
    discovery: discovery === 'true' || discovery === '1',
  };
}

/** `sacn:1, artnet:0.0.1` → the inputs, each once; a bad entry is a ConfigError naming it. */
function parseDmx(text: string): UniverseSpec[] {
  const out: UniverseSpec[] = [];
  for (const t of text.split(/[,\s]+/).filter(Boolean)) {
    const u = parseUniverse(t);
    if (typeof u === 'string') throw new ConfigError(`--dmx: ${u}`);
    if (!out.some((o) => o.key === u.key)) out.push(u);
  }
  return out;
}

/** `10.0.0.5:9000, [::1]:9001` → targets; each must be host:port. */
function parseTargets(text: string): { host: string; port: number }[] {
  return text
    .split(/[,\s]+/)
    .filter(Boolean)
    .map((t) => {
      const m = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9._-]+)):(\d{1,5})$/.exec(t);
      const port = m ? Number(m[3]) : NaN;
      if (!m || port < 1 || port > 65535)
        throw new ConfigError(`--osc-feedback: "${t}" is not host:port (e.g. 192.168.1.20:9000)`);
      return { host: (m[1] ?? m[2]) as string, port };
    });
}

/** `a.example, *.lan` → ['a.example', '*.lan']; every entry must look like a host name. */
function parseHostList(text: string): string[] {
  const names = text
    .split(/[,\s]+/)
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean);
  for (const n of names) {
    if (n !== '*' && !/^(\*\.)?[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?$/.test(n)) {
      throw new ConfigError(`--allowed-hosts: "${n}" is not a host name (use name, *.domain or *)`);
    }
  }
  return names;
}
