/**
 * The simulator's memory of its fleet across restarts. A restart of a simulated host is a
 * power cycle of every simulated board, so exactly what real hardware keeps in flash comes
 * back (wire-protocol §3.3, §7.6, §8.1, §8.3): the gateway's NVS radio config (a persisted
 * channel move; a volatile retune is lost), and per node its NVS radio config, the
 * cfg.json flags (MAC filter, master persistence), the saved master slot, the CONFIG
 * overrides and the startblock slots. Group, live master (unless persisted), LED state and
 * armed effects are RAM and start from their boot values, as on a real node.
 *
 * The file sits in the simulator's own data folder, written durably whenever a flash image
 * changes (debounced) and at shutdown. A missing or unreadable file means a fresh fleet.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import type { Logger } from '../logger.ts';
import { validateRfConfig } from '../protocol/rf.ts';
import { writeFileDurable } from '../state/durable-write.ts';
import type { SimFleet } from './fleet.ts';

export const SIM_MEMORY_FILE = 'simulator-fleet.json';
const VERSION = 1;
/** Several flash writes in a burst (a channel move of the whole fleet) become one file write. */
const WRITE_DEBOUNCE_MS = 250;

const rfSchema = z
  .object({
    freqHz: z.number().int(),
    bwKhzX10: z.number().int(),
    sf: z.number().int(),
    crDen: z.number().int(),
    syncWord: z.number().int(),
    txPowerDbm: z.number().int(),
    preamble: z.number().int(),
  })
  .refine((rf) => validateRfConfig(rf) === null, 'invalid radio settings');

const range = z.object({ start: z.number().int().min(0), stop: z.number().int().min(0) });
const byte = z.number().int().min(0).max(255);
const u16 = z.number().int().min(0).max(0xffff);

const nodeSchema = z.object({
  macFilterEnabled: z.boolean(),
  macFilterPersist: z.boolean(),
  master: z
    .string()
    .regex(/^[0-9A-F]{6}$/)
    .nullable(),
  rf: rfSchema,
  overrides: z.object({
    fps: byte,
    ablMa: u16,
    seg0: range,
    seg1: range.nullable(),
    briS: byte,
    transitionMs: u16,
  }),
  startblock: z
    .object({ slots: z.number().int().min(1).max(8), firstSlot: z.number().int().min(1).max(8) })
    .nullable(),
});

const fileSchema = z.object({
  version: z.literal(VERSION),
  /** Gateway MAC (as SimGateway.mac) → its NVS radio config. */
  gateways: z.record(z.string(), z.object({ rf: rfSchema })),
  /** Node MAC (12 hex digits) → its flash image. */
  nodes: z.record(z.string(), nodeSchema),
});

export type SimMemoryFile = z.infer<typeof fileSchema>;

/** The flash images of these fleets, as the file holds them. */
export function captureFleets(fleets: readonly SimFleet[]): SimMemoryFile {
  const out: SimMemoryFile = { version: VERSION, gateways: {}, nodes: {} };
  for (const f of fleets) {
    out.gateways[f.gateway.mac] = { rf: f.gateway.storedRf };
    for (const n of f.nodes) out.nodes[n.mac] = n.flashImage();
  }
  return out;
}

/** Puts the saved images back on the boards they belong to (by MAC); returns how many matched. */
export function applyMemory(
  fleets: readonly SimFleet[],
  mem: SimMemoryFile,
): { gateways: number; nodes: number } {
  let gateways = 0;
  let nodes = 0;
  for (const f of fleets) {
    const gw = mem.gateways[f.gateway.mac];
    if (gw) {
      f.gateway.restoreFlash(gw.rf);
      gateways++;
    }
    for (const n of f.nodes) {
      const saved = mem.nodes[n.mac];
      if (!saved) continue;
      n.restoreFlash(saved);
      nodes++;
    }
  }
  return { gateways, nodes };
}

export interface SimMemory {
  readonly path: string;
  /** Writes the current images now (shutdown) and stops following changes. */
  close(): Promise<void>;
}

/**
 * Loads the memory in `dir` onto `fleets` (before they power on) and follows their flash
 * writes from then on. Never throws for a bad file: the fleet then starts fresh.
 */
export async function openSimMemory(
  dir: string,
  fleets: readonly SimFleet[],
  log: Logger,
): Promise<SimMemory> {
  const path = join(dir, SIM_MEMORY_FILE);
  const loaded = await readMemory(path);
  if (loaded.kind === 'ok') {
    const n = applyMemory(fleets, loaded.mem);
    log.info(
      { path, gateways: n.gateways, nodes: n.nodes },
      `simulator: the fleet comes back as it was saved (${n.gateways} gateway(s), ${n.nodes} node(s) from ${SIM_MEMORY_FILE})`,
    );
  } else if (loaded.kind === 'missing') {
    log.info({ path }, 'simulator: a fresh fleet (no saved fleet memory yet)');
  } else {
    log.warn({ path, err: loaded.error }, `simulator: ${SIM_MEMORY_FILE} is unreadable — a fresh fleet`);
  }

  // A missing file stays missing until a board's flash changes (the seeded fleet is what a
  // fresh start builds anyway); a bad one is replaced at the latest at shutdown.
  let last = loaded.kind === 'missing' ? JSON.stringify(captureFleets(fleets)) : '';
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> = Promise.resolve();
  let failedOnce = false;
  const write = (): Promise<void> => {
    writing = writing.then(async () => {
      const text = JSON.stringify(captureFleets(fleets));
      if (text === last) return;
      try {
        await writeFileDurable(path, `${text}\n`);
        last = text;
        failedOnce = false;
      } catch (err) {
        // Logged once per run of failures; the next change tries again.
        if (!failedOnce) log.warn({ path, err }, 'simulator: could not save the fleet memory');
        failedOnce = true;
      }
    });
    return writing;
  };
  const changed = (): void => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      void write();
    }, WRITE_DEBOUNCE_MS);
    timer.unref();
  };
  for (const f of fleets) {
    f.gateway.onFlash = changed;
    for (const n of f.nodes) n.onFlash = changed;
  }
  return {
    path,
    close: async () => {
      if (timer) clearTimeout(timer);
      timer = null;
      for (const f of fleets) {
        f.gateway.onFlash = null;
        for (const n of f.nodes) n.onFlash = null;
      }
      await write();
    },
  };
}

type ReadResult = { kind: 'ok'; mem: SimMemoryFile } | { kind: 'missing' } | { kind: 'bad'; error: string };

async function readMemory(path: string): Promise<ReadResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    return { kind: 'bad', error: (err as Error).message };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { kind: 'bad', error: (err as Error).message };
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) return { kind: 'bad', error: z.prettifyError(parsed.error) };
  return { kind: 'ok', mem: parsed.data };
}
