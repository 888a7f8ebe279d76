/**
 * Preloaded into the host process by bench/http.ts (`node --import ./bench/probe.mjs …`):
 * measures event-loop delay with perf_hooks.monitorEventLoopDelay and answers memory and
 * lag figures over the IPC channel, so the benchmark needs no route in the product.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import process from 'node:process';
import v8 from 'node:v8';

const histogram = monitorEventLoopDelay({ resolution: 2 });
histogram.enable();
const ms = (ns) => Math.round((ns / 1e6) * 100) / 100;

if (process.send) {
  process.on('message', (msg) => {
    if (typeof msg === 'string' && msg.startsWith('snapshot:')) {
      // Investigations: `snapshot:<file>` writes a heap snapshot (after a full GC) and answers its path.
      process.send({ snapshot: v8.writeHeapSnapshot(msg.slice('snapshot:'.length)) });
    } else if (msg === 'reset') {
      histogram.reset();
      process.send({ reset: true });
    } else if (msg === 'stats') {
      const m = process.memoryUsage();
      const cpu = process.cpuUsage();
      process.send({
        cpuMs: (cpu.user + cpu.system) / 1000,
        rss: m.rss,
        heapUsed: m.heapUsed,
        heapTotal: m.heapTotal,
        external: m.external,
        arrayBuffers: m.arrayBuffers,
        lag: {
          p50: ms(histogram.percentile(50)),
          p99: ms(histogram.percentile(99)),
          max: ms(histogram.max),
          mean: ms(histogram.mean),
        },
      });
    }
  });
  // The channel must not keep the host alive after SIGTERM.
  process.channel?.unref();
}
