/**
 * Driver benchmark (prints tables, asserts nothing):
 *
 * 1. Host overhead per frame: the driver against a zero-delay fake gateway on a memory
 *    link that answers every M2N frame at once with F1 01 / F3 01 / F1 00 (and every
 *    SET_GROUP with an ACK), on the real clock. What is left is the cost of encoding,
 *    queueing, outcome attribution, reply matching and the link itself.
 * 2. Discovery and status poll of 50 and 200 simulated nodes on a scaled clock, compared
 *    with the radio lower bound: the airtime of every request and of one reply per node,
 *    plus the windows the protocol requires (first reply delay, final idle window).
 *
 *   npm run bench:driver            (add `-- --quick` for smaller runs)
 */
import { ScaledClock, realClock, type Clock } from '../src/clock.ts';
import { createGatewayDriver, type LightnetGatewayDriver } from '../src/gateway/driver.ts';
import { DEFAULT_DRIVER_OPTIONS, type DriverOptions } from '../src/gateway/options.ts';
import { packetAirtimeMs } from '../src/protocol/airtime.ts';
import { decodeGatewayCommand } from '../src/protocol/commands.ts';
import { encodeGatewayInbound } from '../src/protocol/events.ts';
import { encodeIdentifyAnswer, GatewayFrameDecoder } from '../src/protocol/framing.ts';
import { DEFAULT_RF, OPC } from '../src/protocol/types.ts';
import { startSimOnMemory } from '../src/sim/sim-host.ts';
import { MemoryEndpoint } from '../src/transport/memory-link.ts';
import type { Link } from '../src/transport/link.ts';

const quick = process.argv.includes('--quick');

// ── 1. Host overhead per frame ─────────────────────────────────────────────────

const TX_CYCLE = Uint8Array.from([0x00, 0x02, 0xf1, 0x01, 0x00, 0x02, 0xf3, 0x01, 0x00, 0x02, 0xf1, 0x00]);

/** Answers identify, state and RF requests and every M2N frame immediately. */
function zeroDelayGateway(device: Link, clock: Clock): void {
  const decoder = new GatewayFrameDecoder();
  device.onData((chunk) => {
    for (const frame of decoder.push(chunk, clock.now())) {
      const cmd = decodeGatewayCommand(frame);
      if (!cmd) continue;
      if (cmd.kind === 'identify') void device.write(encodeIdentifyAnswer('48:CA:43:10:20:30'));
      else if (cmd.kind === 'state_request') {
        void device.write(encodeGatewayInbound({ kind: 'state', report: true, state: 0, metadataMs: 0 }));
      } else if (cmd.kind === 'get_rf') {
        void device.write(encodeGatewayInbound({ kind: 'rf_changed', reason: 0, rf: DEFAULT_RF }));
      } else if (cmd.kind === 'm2n') {
        void device.write(TX_CYCLE);
        if (cmd.typeFull === OPC.SET_GROUP) {
          const ack = { kind: 'ACK', ackOf: OPC.SET_GROUP, status: 0, seq: 0 } as const;
          const body = Uint8Array.from([OPC.SET_GROUP, 0, 0]);
          const packet = { sender: cmd.receiver, receiver: '102030', typeFull: 0xfe, body };
          void device.write(encodeGatewayInbound({ kind: 'packet', packet, rssi: -70, snr: 8, reply: ack }));
        }
      }
    }
  });
}

async function overheadRow(
  name: string,
  driver: LightnetGatewayDriver,
  n: number,
  op: (i: number) => Promise<boolean>,
): Promise<string[]> {
  for (let i = 0; i < Math.min(200, n); i++) await op(i); // warm-up
  const t0 = performance.now();
  let ok = 0;
  for (let i = 0; i < n; i++) if (await op(i)) ok++;
  const ms = performance.now() - t0;
  void driver;
  return [name, String(n), String(ok), ((ms * 1000) / n).toFixed(1), Math.round((n / ms) * 1000).toString()];
}

async function benchOverhead(): Promise<void> {
  const clock = realClock();
  const endpoint = new MemoryEndpoint((device) => zeroDelayGateway(device, clock));
  const driver = createGatewayDriver({
    linkFactory: endpoint.factory,
    clock,
    transport: 'sim',
    port: 'memory',
    options: { identifySettleMs: 0 },
  });
  await driver.start();
  if (!driver.readiness().ready) throw new Error('zero-delay gateway did not come up');
  const n = quick ? 2000 : 20_000;
  const addr = (i: number): string => (0x100000 + (i % 4096)).toString(16).toUpperCase();
  const rows = [
    await overheadRow(
      'send CONTROL (broadcast)',
      driver,
      n,
      async () =>
        (
          await driver.send('FFFFFF', {
            op: 'CONTROL',
            groupId: 3,
            flags: 0x05,
            fields: { brightness: 200, mode: 2, color1: [255, 128, 0] },
          })
        ).ok,
    ),
    await overheadRow(
      'send INDICATE (unicast)',
      driver,
      n,
      async (i) => (await driver.send(addr(i), { op: 'INDICATE', type: 4, durationSec: 5 })).ok,
    ),
    await overheadRow('setGroup (frame + ACK match)', driver, n, async (i) => {
      const r = await driver.setGroup(addr(i), 3);
      return r.ok && r.value.ok;
    }),
  ];
  await driver.stop();
  printTable('Host overhead per frame (zero-delay gateway, memory link, real clock)', [
    ['operation', 'count', 'ok', 'µs/op', 'ops/s'],
    ...rows,
  ]);
}

// ── 2. Discovery and status poll against the radio lower bound ────────────────

const SCALE = 0.02;

interface RadioRun {
  scenario: string;
  nodes: number;
  result: number;
  frames: number;
  virtualMs: number;
  lowerBoundMs: number;
  wallMs: number;
}

/** Airtime of all requests and one reply per node, the first reply delay and one idle window. */
function lowerBound(
  requests: number,
  requestBody: number,
  replies: number,
  replyBody: number,
  idleMs: number,
): number {
  return requests * packetAirtimeMs(requestBody) + 50 + replies * packetAirtimeMs(replyBody) + idleMs;
}

async function radioRuns(nodes: number, seed: number): Promise<RadioRun[]> {
  const out: RadioRun[] = [];
  for (const withAnnouncements of [false, true]) {
    const clock = new ScaledClock(SCALE);
    const sim = startSimOnMemory({ nodes, seed, clock, bootSpreadMs: 3000 });
    const options: Partial<DriverOptions> = withAnnouncements ? {} : { discoveryAnnouncementMaxAgeMs: 0 };
    const driver = createGatewayDriver({
      linkFactory: sim.linkFactory,
      clock,
      transport: 'sim',
      port: 'sim',
      options,
    });
    try {
      await driver.start();
      await clock.sleep(8000); // boot announcements have passed
      const o = DEFAULT_DRIVER_OPTIONS;
      const f0 = driver.stats().framesSent;
      let v0 = clock.now();
      let w0 = performance.now();
      const found = await driver.discover({ groupId: 0 });
      out.push({
        scenario: withAnnouncements ? 'discover (rounds + boot announcements)' : 'discover (rounds only)',
        nodes,
        result: found.length,
        frames: driver.stats().framesSent - f0,
        virtualMs: clock.now() - v0,
        lowerBoundMs: lowerBound(1, 2, nodes, 9, o.discoveryIdleMs),
        wallMs: performance.now() - w0,
      });
      if (withAnnouncements) continue;
      // Bind the discovered nodes so that they answer STATUS (unbound nodes ignore it).
      const bound: string[] = [];
      for (const f of found) {
        const r = await driver.setGroup(f.addr, 1);
        if (r.ok && r.value.ok) bound.push(f.addr);
      }
      const f1 = driver.stats().framesSent;
      v0 = clock.now();
      w0 = performance.now();
      const st = await driver.statusBroadcast({
        groupId: 1,
        expected: bound.length,
        targets: bound.map((addr) => ({ addr, groupId: 1 })),
      });
      out.push({
        scenario: 'status poll (rounds + unicast follow-up)',
        nodes: bound.length,
        result: st.length,
        frames: driver.stats().framesSent - f1,
        virtualMs: clock.now() - v0,
        lowerBoundMs: lowerBound(1, 2, bound.length, 8, 0),
        wallMs: performance.now() - w0,
      });
    } finally {
      await driver.stop();
      sim.stop();
    }
  }
  return out;
}

async function benchRadio(): Promise<void> {
  const rows: RadioRun[] = [];
  for (const n of quick ? [50] : [50, 200]) rows.push(...(await radioRuns(n, 7)));
  printTable(
    `Discovery and status poll vs. radio lower bound (simulated fleet, seed 7, clock scale ${SCALE})`,
    [
      ['scenario', 'nodes', 'result', 'frames', 'radio time s', 'lower bound s', 'ratio', 'wall s'],
      ...rows.map((r) => [
        r.scenario,
        String(r.nodes),
        String(r.result),
        String(r.frames),
        (r.virtualMs / 1000).toFixed(1),
        (r.lowerBoundMs / 1000).toFixed(1),
        (r.virtualMs / r.lowerBoundMs).toFixed(1) + 'x',
        (r.wallMs / 1000).toFixed(2),
      ]),
    ],
  );
  console.log(
    'radio time = virtual (simulated) time, i.e. what the operation takes on real hardware;\n' +
      'lower bound = request airtime + 50 ms first reply delay + one reply airtime per node (+ final idle window).\n' +
      'result = nodes found / answered. Replies collide and the strongest nodes capture the channel,\n' +
      'so large fleets need several rounds; see src/gateway/broadcasts.ts.',
  );
}

function printTable(title: string, rows: string[][]): void {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length))) ?? [];
  console.log(`\n${title}`);
  rows.forEach((r, i) => {
    console.log(
      r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0))).join('  '),
    );
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  });
}

await benchOverhead();
await benchRadio();
