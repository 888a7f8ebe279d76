/** CLI entry: `npm start -- [options]`. Parses the configuration, starts the host, stops it on SIGINT/SIGTERM. */
import { ConfigError, loadConfig } from './config/index.ts';
import { startHost } from './host/index.ts';
import { DataDirLockedError } from './state/data-lock.ts';

import { createLogger } from './logger.ts';

/** Exit code of a host that found its data folder owned by another host. */
export const EXIT_DATA_DIR_LOCKED = 3;
/** Exit code of a host whose HTTP port another program (often another Lightnet) holds. */
export const EXIT_PORT_IN_USE = 4;

/**
 * What to do when the port is taken. A Lightnet on the same data folder is caught earlier,
 * by the folder's lock (exit 3); this one holds another folder, or it is another program.
 */
export function portInUseMessage(host: string, port: number): string {
  const shown = host.includes(':') ? `[${host}]` : host;
  const url = `http://${shown === '0.0.0.0' ? '127.0.0.1' : shown}:${port}/`;
  return (
    `port ${port} on ${host} is already in use — another Lightnet (on another data folder, e.g. the ` +
    `simulator's) or another program already listens there. Open ${url} to see which; stop it, or ` +
    `start this host on another port: npm start -- --port ${port + 1} (or LIGHTNET_PORT=${port + 1} npm start; ` +
    `the installed service: LIGHTNET_PORT=${port + 1} in /etc/lightnet/lightnet.env)`
  );
}

async function main(): Promise<void> {
  let cfg;
  try {
    cfg = loadConfig(process.argv.slice(2));
  } catch (err) {
    const e = err as Error & { code?: string; exitCode?: number };
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') process.exit(0);
    console.error(`lightnet: ${err instanceof ConfigError ? e.message : e.message}`);
    process.exit(2);
  }
  const log = createLogger(cfg.logLevel);
  let host;
  try {
    host = await startHost(cfg, log);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      const message = portInUseMessage(cfg.host, cfg.port);
      if (cfg.integration && cfg.integration !== 'none') {
        process.stdout.write(`${JSON.stringify({ lightnet: 'failed', reason: 'port_in_use', message })}\n`);
      }
      console.error(`lightnet: ${message}`);
      process.exit(EXIT_PORT_IN_USE);
    }
    if (!(err instanceof DataDirLockedError)) throw err;
    // Exit at once, saying who owns the folder (a managing plugin reads the stdout line).
    log.error({ dataDir: err.dir, owner: err.owner }, err.message);
    if (cfg.integration && cfg.integration !== 'none') {
      process.stdout.write(
        `${JSON.stringify({ lightnet: 'failed', reason: 'data_dir_locked', message: err.message })}\n`,
      );
    }
    console.error(`lightnet: ${err.message}`);
    process.exit(EXIT_DATA_DIR_LOCKED);
  }
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    host.close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err: (err as Error).message }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  if (cfg.integration && cfg.integration !== 'none') {
    // Serving a timing-application plugin: tell it where we listen (port 0 = any free one).
    process.stdout.write(`${JSON.stringify({ lightnet: 'listening', port: host.port, url: host.url })}\n`);
  }
  if (cfg.exitOnStdinClose) {
    // Started by the plugin (it passes the flag): end with it — its stdin pipe closes when
    // it exits or dies, even on SIGKILL, so no orphan keeps the gateway's serial port. Only
    // then: a host run as a service in attach mode has stdin = /dev/null (systemd's
    // default), which ends at once, and an exit 0 is not restarted.
    process.stdin.on('end', () => stop('stdin closed'));
    process.stdin.on('error', () => stop('stdin closed'));
    process.stdin.resume();
  }
}

main().catch((err: unknown) => {
  console.error(`lightnet: failed to start: ${(err as Error).message}`);
  process.exit(1);
});
