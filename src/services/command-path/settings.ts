/**
 * The command path's settings (⚙ Settings → Command sources): per-class priorities, the
 * take-over priority, the live timeout, the rate limit, and each source's switch and
 * priority override. Kept in `command-path.json` in the data folder, fsynced before a
 * change takes effect; an unreadable file falls back to the defaults (logged).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { writeFileDurable } from '../../state/durable-write.ts';
import {
  DEFAULT_CLASS_PRIORITY,
  DEFAULT_LIVE_TIMEOUT_MS,
  DEFAULT_TAKE_OVER_PRIORITY,
  type SourceClass,
} from './types.ts';

const FILE = 'command-path.json';
/** Below Blackout's fixed 100, above nothing. */
const zPriority = z.number({ error: 'must be a number' }).int('must be a whole number').min(1).max(99);

const sourceSettings = z.strictObject({
  enabled: z.boolean({ error: 'must be true or false' }).optional(),
  priority: zPriority.nullable().optional(),
});

export const commandPathSettingsSchema = z.strictObject({
  priorities: z
    .strictObject({
      safety: zPriority.optional(),
      race: zPriority.optional(),
      live: zPriority.optional(),
      operator: zPriority.optional(),
      automation: zPriority.optional(),
      passive: zPriority.optional(),
    })
    .optional(),
  take_over_priority: zPriority.optional(),
  live_timeout_ms: z.number().int('must be a whole number').min(500).max(60_000).optional(),
  rate_limit: z
    .strictObject({
      per_second: z.number({ error: 'must be a number' }).min(0.1).max(1000),
      burst: z.number().int('must be a whole number').min(1).max(1000),
    })
    .optional(),
  sources: z
    .record(z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'must be a source id like "osc"'), sourceSettings)
    .optional(),
});
/** A PATCH body: any of the fields; `sources` entries merge per source. */
export type CommandPathPatch = z.infer<typeof commandPathSettingsSchema>;

export interface CommandPathSettings {
  priorities: Record<Exclude<SourceClass, 'blackout'>, number>;
  take_over_priority: number;
  live_timeout_ms: number;
  rate_limit: { per_second: number; burst: number };
  sources: Record<string, { enabled: boolean; priority: number | null }>;
}

export function defaultCommandPathSettings(): CommandPathSettings {
  const { blackout: _fixed, ...priorities } = DEFAULT_CLASS_PRIORITY;
  return {
    priorities,
    take_over_priority: DEFAULT_TAKE_OVER_PRIORITY,
    live_timeout_ms: DEFAULT_LIVE_TIMEOUT_MS,
    rate_limit: { per_second: 20, burst: 40 },
    sources: {},
  };
}

/** The settings after a patch (pure; the caller validates the sources it names). */
export function applyPatch(s: CommandPathSettings, p: CommandPathPatch): CommandPathSettings {
  const sources = { ...s.sources };
  for (const [id, v] of Object.entries(p.sources ?? {})) {
    const prev = sources[id] ?? { enabled: true, priority: null };
    sources[id] = {
      enabled: v.enabled ?? prev.enabled,
      priority: v.priority === undefined ? prev.priority : v.priority,
    };
  }
  return {
    priorities: { ...s.priorities, ...p.priorities },
    take_over_priority: p.take_over_priority ?? s.take_over_priority,
    live_timeout_ms: p.live_timeout_ms ?? s.live_timeout_ms,
    rate_limit: p.rate_limit ?? s.rate_limit,
    sources,
  };
}

export class CommandPathFile {
  constructor(private readonly dataDir: string) {}

  async load(): Promise<{ settings: CommandPathSettings; problem: string | null }> {
    let text: string;
    try {
      text = await readFile(join(this.dataDir, FILE), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT')
        return { settings: defaultCommandPathSettings(), problem: null };
      return { settings: defaultCommandPathSettings(), problem: (err as Error).message };
    }
    try {
      const parsed = commandPathSettingsSchema.safeParse(JSON.parse(text));
      if (!parsed.success)
        return {
          settings: defaultCommandPathSettings(),
          problem: `${FILE}: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`,
        };
      return { settings: applyPatch(defaultCommandPathSettings(), parsed.data), problem: null };
    } catch (err) {
      return { settings: defaultCommandPathSettings(), problem: `${FILE}: ${(err as Error).message}` };
    }
  }

  save(s: CommandPathSettings): Promise<void> {
    return writeFileDurable(join(this.dataDir, FILE), JSON.stringify(s, null, 2) + '\n');
  }
}
