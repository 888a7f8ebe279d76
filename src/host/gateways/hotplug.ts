/**
 * The hot-plug watcher (design networks §2.7): a gateway unplugged, or whose USB link was
 * lost, is re-attached by itself when it comes back — on its own socket or another one —
 * and its network is served again with nothing rebound (its nodes kept their master, the
 * gateway's MAC).
 *
 * Only while a network's gateway is missing or a driver's link is down, it lists the serial
 * ports — every 2 s for the first minute, then less and less often (doubling up to every
 * 30 s: a network kept for a gateway not used today must not poll forever) — and at once
 * on port events (which bring back the 2 s pace for a minute), WITHOUT opening them. A port
 * that appeared since then and that no driver owns is probed through the rescan (its MAC
 * takes over its network there, the old port's driver is retired); a port that appeared
 * again under a reconnecting driver makes that driver connect now instead of waiting out
 * its backoff.
 * Ports already present are never opened (opening resets the board on them, maybe another
 * program's device), and nothing is probed while a race start is armed.
 */
import type { Clock, TimerHandle } from '../../clock.ts';
import type { Radio } from '../../gateway/radio/radio.ts';
import { canonicalPort, type DetectOverride } from './choice.ts';
import type { RescanOptions } from './rescan.ts';
import type { Logger } from '../../logger.ts';
import type { NetworksService } from '../../services/networks/index.ts';
import { ScaledClock } from '../../clock.ts';
import { listCandidatePorts } from '../../transport/serial-ports.ts';
import { watchSerialPorts } from '../../transport/port-events.ts';
import { decidePorts, type SeenPort } from '../../transport/port-watch.ts';

export interface PortSource {
  /** The ports present now; listing never opens one. */
  list(): Promise<{ path: string }[]>;
  /** Port events, if the platform has them (the poll runs anyway). */
  watch?(onChange: () => void): () => void;
}

export interface HotplugWatcher {
  stop(): void;
  /** Resolves when no listing or probe is under way (tests, shutdown). */
  idle(): Promise<void>;
}

/** A free port that appeared but failed to open (udev not done yet) is tried this often. */
const OPEN_ATTEMPTS = 3;
/** Port events come in bursts (the node, then its by-id link): one listing after the burst. */
const EVENT_DEBOUNCE_MS = 250;
/** The fast pace lasts this long after the loss and after each port event. */
const FAST_PHASE_MS = 60_000;
/** The slowest listing pace of a long-missing gateway (port events still act at once). */
const SLOWEST_POLL_MS = 30_000;

/** What the watcher needs of the rescan (the services' `gatewayScan`). */
export interface ProbeScanner {
  rescan(opts: RescanOptions): Promise<{
    attached: { mac: string; port: string }[];
    tried: { path: string; result: string; detail?: string }[];
  }>;
}

/**
 * The watcher a host runs: on serial gateways (the real port list and /dev events, on the
 * real clock) or with injected detection (tests, benchmarks); none for simulated or TCP
 * gateways alone (nothing to plug, and a USB device plugged into such a host is not ours).
 */
export function hostHotplug(deps: {
  radio: Radio;
  networks: NetworksService;
  scanner: ProbeScanner;
  armed: () => boolean;
  clock: Clock;
  log: Logger;
  serial: boolean;
  detect?: DetectOverride;
}): HotplugWatcher | null {
  const { detect } = deps;
  if (!detect && !deps.serial) return null;
  const ports: PortSource = detect
    ? {
        list: detect.candidates ?? (() => listCandidatePorts({})),
        ...(detect.watch ? { watch: detect.watch } : {}),
      }
    : { list: () => listCandidatePorts({}), watch: (fn) => watchSerialPorts(fn) };
  return createHotplugWatcher({ ...deps, ports, clock: detect ? deps.clock : new ScaledClock(1) });
}

export function createHotplugWatcher(deps: {
  radio: Radio;
  networks: NetworksService;
  scanner: ProbeScanner;
  /** A race start is armed: probe nothing until it fired or was cancelled. */
  armed: () => boolean;
  ports: PortSource;
  clock: Clock;
  log: Logger;
  /** The listing pace for the first minute (default 2 s), then doubling up to `maxPollMs`. */
  pollMs?: number;
  maxPollMs?: number;
}): HotplugWatcher {
  const { radio, networks, log, clock } = deps;
  const pollMs = deps.pollMs ?? 2000;
  const maxPollMs = Math.max(pollMs, deps.maxPollMs ?? SLOWEST_POLL_MS);
  /** Until when the listing keeps the fast pace; then the wait doubles each time. */
  let fastUntil = 0;
  let slowMs = pollMs;
  const nextPollMs = (): number => {
    // A port that failed to open (udev not done) is retried at the fast pace.
    if (deferred.size > 0 || clock.now() < fastUntil) {
      slowMs = pollMs;
      return pollMs;
    }
    slowMs = Math.min(maxPollMs, slowMs * 2);
    return slowMs;
  };
  const goFast = (): void => {
    fastUntil = clock.now() + FAST_PHASE_MS;
    slowMs = pollMs;
  };
  let stopped = false;
  let before: Set<string> | null = null;
  /** Appeared, not probed yet: path → failed opens so far. */
  const deferred = new Map<string, number>();
  let timer: TimerHandle | null = null;
  let running: Promise<void> | null = null;
  let again = false;

  const needed = (): boolean =>
    radio.live().some((g) => !g.driver.readiness().ready) ||
    networks.list().networks.some((n) => n.state === 'missing');

  const schedule = (ms: number): void => {
    if (stopped || timer) return;
    timer = clock.setTimeout(() => {
      timer = null;
      kick();
    }, ms);
  };

  const kick = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = pass()
      .catch((err: unknown) => {
        log.warn({ err: String(err) }, 'hot-plug check failed');
        // A failed listing must not end the watch: try again at the current pace.
        if (needed()) schedule(nextPollMs());
      })
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          kick();
        }
      });
  };

  /** One listing and what follows from it. */
  const pass = async (): Promise<void> => {
    if (!needed()) {
      // Everything is attached: forget the baseline; the next loss takes a new one.
      before = null;
      deferred.clear();
      return;
    }
    // The first listing after a loss: the baseline, and a minute of the fast pace.
    if (before === null) goFast();
    const listed = await deps.ports.list();
    const after: SeenPort[] = await Promise.all(
      listed.map(async (p) => ({ path: p.path, real: await canonicalPort(p.path) })),
    );
    const owned = await Promise.all(
      radio.live().map(async (g) => ({
        path: g.label,
        real: await canonicalPort(g.label),
        down: !g.driver.readiness().ready,
      })),
    );
    const d = decidePorts({
      before,
      after,
      owned,
      deferred: [...deferred.keys()],
      active: true,
      armed: deps.armed(),
    });
    before = d.seen;
    for (const path of [...deferred.keys()])
      if (!d.defer.includes(path) && !d.probe.includes(path)) deferred.delete(path);
    for (const path of d.defer) deferred.set(path, deferred.get(path) ?? 0);
    if (stopped) return;
    await Promise.all([...d.retry.map(retryOwner), d.probe.length > 0 ? probe(d.probe) : Promise.resolve()]);
    schedule(nextPollMs());
  };

  const retryOwner = async (path: string): Promise<void> => {
    const g = radio.live().find((x) => x.label === path);
    // Already back by its own backoff: nothing to cut short, nothing to report.
    if (!g?.driver.connectNow || g.driver.readiness().ready) return;
    const ok = await g.driver.connectNow();
    if (!ok) {
      log.debug({ port: path }, 'gateway port appeared again, connecting failed (its backoff goes on)');
      return;
    }
    reattached(path, g.driver.readiness().gateway_mac, 'its own port');
  };

  const probe = async (paths: string[]): Promise<void> => {
    const res = await deps.scanner.rescan({ only: paths, quiet: true });
    for (const t of res.tried) {
      const failed = (deferred.get(t.path) ?? 0) + 1;
      // Not openable yet (permissions right after udev created it): a few more tries.
      if (t.result === 'error' && failed < OPEN_ATTEMPTS) deferred.set(t.path, failed);
      else deferred.delete(t.path);
      if (t.result !== 'identified')
        log.debug({ port: t.path, result: t.result, detail: t.detail }, 'hot-plug probe: no gateway');
    }
    for (const a of res.attached) reattached(a.port, a.mac, 'a new port');
  };

  const reattached = (port: string, mac: string | null, how: string): void => {
    const norm = mac?.replace(/:/g, '').toUpperCase() ?? null;
    const row = networks.gateways().find((g) => g.mac === norm && g.port === port);
    const net = networks.list().networks.find((n) => n.id === row?.network_id);
    log.info(
      {
        port,
        gateway_mac: norm,
        network: net?.id ?? null,
        network_name: net?.name ?? null,
        bind_state: row?.bind_state ?? null,
      },
      net
        ? `gateway re-attached on ${how}: ${net.name} served again`
        : `gateway plugged in on ${how}: attached`,
    );
  };

  // Readiness changes start the watch (a link lost) and end it (everything attached).
  const onNews = (): void => {
    if (stopped) return;
    if (before === null) kick();
  };
  const offs = [
    radio.on('readiness', onNews),
    networks.onChange(onNews),
    deps.ports.watch?.(() => {
      if (before !== null) {
        // Someone is plugging things: list now, and keep the fast pace for a minute.
        goFast();
        timer?.cancel();
        timer = null;
        schedule(EVENT_DEBOUNCE_MS);
      }
    }) ?? (() => undefined),
  ];
  kick();

  return {
    stop() {
      stopped = true;
      timer?.cancel();
      timer = null;
      for (const off of offs) off();
    },
    async idle() {
      while (running) await running;
    },
  };
}
