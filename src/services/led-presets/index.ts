/**
 * LED preset files: the WLED `presets.json` files uploaded or downloaded from a node,
 * and the active file's (id, name) list. A capability of its own because scenes,
 * device options and control read the list, and OTA writes downloaded files into it.
 */
import type { Clock } from '../../clock.ts';
import type { EventBus } from '../../events.ts';
import type { Logger } from '../../logger.ts';
import type { Store } from '../../state/store.ts';
import { LedPresetsService } from './files.ts';

export { LedPresetsService, PRESETS_MAX_BYTES, type PresetFileInfo } from './files.ts';

export function createLedPresets(d: {
  dataDir: string;
  store: Store;
  bus: EventBus;
  clock: Clock;
  log: Logger;
}): LedPresetsService {
  return new LedPresetsService(d.dataDir, d.store, d.bus, d.clock, d.log.child({ mod: 'led-presets' }));
}
