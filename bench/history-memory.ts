/**
 * Memory of the signal history and the activity log: 300 and 1000 devices polled every
 * 15 s (one sample per bucket: the worst case) or every 30 s (a 300-node broadcast poll
 * run back to back) for 3 h and 4 h (the default capacity) of simulated time, every poll
 * heard both ways; the log ring filled to capacity twice over. Prints the typed-array bytes the service
 * accounts for and the heap + ArrayBuffer growth measured after a forced GC.
 * Run: node --expose-gc --import tsx bench/history-memory.ts
 */
import { SteppedClock } from '../src/clock.ts';
import { HistoryService } from '../src/services/history/index.ts';
import { LogBuffer, teeLogger } from '../src/services/logs/index.ts';
import { silentLogger } from '../src/logger.ts';
import type { InboundPacket } from '../src/gateway/types.ts';
import type { Addr } from '../src/protocol/types.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('run with node --expose-gc');
  process.exit(2);
}

function used(): number {
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

const mib = (b: number): string => (b / 1024 / 1024).toFixed(2);

function historyRun(
  devices: number,
  everyS: number,
  hours: number,
): { accounted: number; measured: number; samples: number } {
  const clock = new SteppedClock(1, 1_700_000_000_000);
  const listeners: ((p: InboundPacket) => void)[] = [];
  const addrs: Addr[] = Array.from({ length: devices }, (_, i) => (0x100000 + i).toString(16).toUpperCase());
  const known = new Set(addrs);
  const before = used();
  const svc = new HistoryService({
    driver: {
      on: (_e, fn) => {
        listeners.push(fn as (p: InboundPacket) => void);
        return () => {};
      },
    },
    registry: { find: (a) => (known.has(a) ? a : undefined), onSilent: () => () => {} },
    clock,
    log: silentLogger(),
  });
  svc.attach();
  const polls = Math.round((hours * 3600) / everyS);
  for (let p = 0; p < polls; p++) {
    clock.advance(everyS * 1000);
    for (const [i, addr] of addrs.entries()) {
      const packet: InboundPacket = {
        packet: { sender: addr, receiver: 'FFFFFF', typeFull: 0x82, body: new Uint8Array(0) },
        reply: {
          kind: 'STATUS_REPLY',
          flags: 1,
          configByte: 0,
          effectId: 0,
          brightness: 70,
          vbatMv: 3900 - (p % 100),
          rssi: -60 - (i % 40),
          snr: 7,
          legacy: false,
        },
        rssi: -62 - (i % 40),
        snr: 6.5,
        ts: clock.now(),
      };
      for (const fn of listeners) fn(packet);
    }
  }
  const measured = used() - before;
  const samples = svc.history(addrs[0] as Addr).samples.ts.length;
  return { accounted: svc.memoryBytes(), measured, samples };
}

function logRun(): { entries: number; measured: number } {
  const before = used();
  const ring = new LogBuffer(new SteppedClock(1, 0));
  const log = teeLogger(silentLogger(), ring, 'debug').child({ mod: 'gateway' });
  for (let i = 0; i < ring.capacity * 2; i++)
    log.debug(
      { device: (0x100000 + (i % 300)).toString(16), rssi: -80, why: 'no reply to the status poll' },
      'device offline',
    );
  return { entries: ring.length, measured: used() - before };
}

console.log(
  '| devices | poll every | hours | samples/device | accounted MiB | measured MiB | bytes/device |',
);
console.log('|---|---|---|---|---|---|---|');
for (const [devices, everyS, hours] of [
  [300, 15, 3],
  [300, 15, 4],
  [300, 30, 3],
  [1000, 15, 3],
] as const) {
  const r = historyRun(devices, everyS, hours);
  console.log(
    `| ${devices} | ${everyS} s | ${hours} | ${r.samples} | ${mib(r.accounted)} | ${mib(r.measured)} | ${Math.round(r.measured / devices)} |`,
  );
}
const l = logRun();
console.log(`\nactivity log ring: ${l.entries} entries, measured ${mib(l.measured)} MiB`);
