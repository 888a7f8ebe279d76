/** The DMX view as GET /api/dmx gives it (the host's shapes, read by type only). */
import type { DmxView } from '../../../src/services/dmx/service.ts';
import type { PatchEntry } from '../../../src/services/dmx/patch.ts';

export type DmxState = ({ enabled: false } | ({ enabled: true } & DmxView)) & { ok: true };
export type { PatchEntry };

/** How often the card reads the host while it is shown: the live values move at this pace. */
export const POLL_MS = 400;

export const FOOTPRINT: Record<PatchEntry['fixture'], number> = { full: 8, rgb: 4 };
