/** The host configuration the in-process fleet benchmarks start: simulator, silent logs, free port. */
import type { Config } from '../src/config/index.ts';

export function simHostConfig(dataDir: string, nodes: number, seed: number): Config {
  return {
    port: 0,
    host: '127.0.0.1',
    prefix: '/lightnet',
    dataDir,
    // The temp folder is the simulator's own (every test runs on it).
    simDataDir: dataDir,
    gateway: { kind: 'sim' },
    gatewayText: 'sim',
    simNodes: nodes,
    simSeed: seed,
    simTimeScale: 1,
    wifi: 'none',
    password: null,
    allowedHosts: [],
    logLevel: 'silent',
    configFile: null,
  };
}
