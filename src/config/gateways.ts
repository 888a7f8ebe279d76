/**
 * The `--gateway` list: one or more gateway specs, comma-separated and/or given by repeating
 * the option (`--gateway serial:/dev/a --gateway serial:/dev/b` = `--gateway
 * serial:/dev/a,serial:/dev/b`). Each named gateway becomes its own network on an empty
 * data folder. `auto` and `sim` stand alone: auto-detection and the simulator choose their
 * gateways themselves (the simulator's count is `--sim-gateways`).
 */
import { parseGatewaySpec, type GatewaySpec } from '../transport/index.ts';

export const MAX_GATEWAYS = 8;

const specKey = (s: GatewaySpec): string =>
  s.kind === 'serial'
    ? `serial:${s.path}`
    : s.kind === 'tcp'
      ? `tcp:${s.host.toLowerCase()}:${s.port}`
      : s.kind;

/** Parses every `--gateway` value given; throws an Error naming the bad entry. */
export function parseGatewayList(values: readonly string[]): GatewaySpec[] {
  const entries = values.flatMap((v) => v.split(',')).map((e) => e.trim());
  if (entries.length === 0 || entries.every((e) => e === '')) return [parseGatewaySpec('')];
  const empty = entries.findIndex((e) => e === '');
  if (empty >= 0) throw new Error(`--gateway: entry ${empty + 1} of the list is empty`);
  const specs = entries.map((e) => parseGatewaySpec(e));
  if (specs.length > 1) {
    const alone = specs.find((s) => s.kind === 'auto' || s.kind === 'sim');
    if (alone) {
      throw new Error(
        `--gateway ${alone.kind} cannot be combined with other gateways (use --sim-gateways N for several simulated ones)`,
      );
    }
  }
  const seen = new Set<string>();
  for (const s of specs) {
    const k = specKey(s);
    if (seen.has(k)) throw new Error(`--gateway: ${k} is named twice`);
    seen.add(k);
  }
  if (specs.length > MAX_GATEWAYS) throw new Error(`--gateway: at most ${MAX_GATEWAYS} gateways`);
  return specs;
}

/** `--sim-gateways N` applies only where the simulator may run. */
export function checkSimGateways(specs: readonly GatewaySpec[], simGateways: number): void {
  if (simGateways === 1) return;
  const kind = specs[0]?.kind;
  if (specs.length !== 1 || (kind !== 'sim' && kind !== 'auto')) {
    throw new Error('--sim-gateways needs --gateway sim (or auto, when no gateway answers)');
  }
}
