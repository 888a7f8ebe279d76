/**
 * Race flags: what each flag shows on the whole field (its look), and the file that keeps
 * the looks and the flag that is up. Looks are configurable (colour, brightness, effect);
 * `clear` has a look too — by default the field goes dark, as after a Blackout.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { ledEffect } from '../../domain/led-effects.ts';
import { writeFileDurable } from '../../state/durable-write.ts';

export const FLAGS = ['green', 'yellow', 'red'] as const;
export type Flag = (typeof FLAGS)[number];
/** What an operator can do: raise a flag, or clear the one that is up. */
export const FLAG_ACTIONS = [...FLAGS, 'clear'] as const;
export type FlagAction = (typeof FLAG_ACTIONS)[number];

const hexColor = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour like #ff0000')
  .transform((s) => s.toLowerCase());

export const flagLookSchema = z.strictObject({
  color: hexColor,
  brightness: z.number().int().min(0).max(255),
  /** The LED effect (0 = solid); the node's effect catalogue. */
  effect: z
    .number()
    .int()
    .min(0)
    .max(255)
    .refine((id) => ledEffect(id) !== undefined, { message: 'unknown LED effect' })
    .default(0),
});
export type FlagLook = z.infer<typeof flagLookSchema>;

export const DEFAULT_LOOKS: Record<FlagAction, FlagLook> = {
  green: { color: '#00ff00', brightness: 255, effect: 0 },
  yellow: { color: '#ffb000', brightness: 255, effect: 0 },
  red: { color: '#ff0000', brightness: 255, effect: 0 },
  clear: { color: '#000000', brightness: 0, effect: 0 },
};

export const flagLooksSchema = z.strictObject({
  green: flagLookSchema.default(DEFAULT_LOOKS.green),
  yellow: flagLookSchema.default(DEFAULT_LOOKS.yellow),
  red: flagLookSchema.default(DEFAULT_LOOKS.red),
  clear: flagLookSchema.default(DEFAULT_LOOKS.clear),
});
export type FlagLooks = z.infer<typeof flagLooksSchema>;

/** The flag that is up (null: none), since when and who raised it. */
export const flagStateSchema = z.strictObject({
  flag: z.enum(FLAGS).nullable(),
  since_epoch_ms: z.number().nullable(),
  source: z.string().max(64).nullable(),
});
export type FlagState = z.infer<typeof flagStateSchema>;

const fileSchema = z.object({
  looks: flagLooksSchema.default(() => flagLooksSchema.parse({})),
  state: flagStateSchema.default({ flag: null, since_epoch_ms: null, source: null }),
});
export type FlagsFile = z.infer<typeof fileSchema>;

export const defaultFlagsFile = (): FlagsFile => fileSchema.parse({});

const FILE = 'flags.json';

/** `flags.json` in the data folder: absent or unreadable means the default looks and no flag. */
export class FlagsStore {
  constructor(private readonly dataDir: string) {}

  async load(): Promise<{ file: FlagsFile; problem: string | null }> {
    let text: string;
    try {
      text = await readFile(join(this.dataDir, FILE), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT')
        return { file: defaultFlagsFile(), problem: null };
      return { file: defaultFlagsFile(), problem: (err as Error).message };
    }
    try {
      const parsed = fileSchema.safeParse(JSON.parse(text));
      if (parsed.success) return { file: parsed.data, problem: null };
      return { file: defaultFlagsFile(), problem: `${FILE}: ${parsed.error.issues[0]?.message}` };
    } catch (err) {
      return { file: defaultFlagsFile(), problem: `${FILE}: ${(err as Error).message}` };
    }
  }

  save(f: FlagsFile): Promise<void> {
    return writeFileDurable(join(this.dataDir, FILE), JSON.stringify(f, null, 2) + '\n');
  }
}
