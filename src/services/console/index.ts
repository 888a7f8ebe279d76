/**
 * Console settings: what every operator's browser shares at a race (race mode, the
 * race panel's pinned scenes, the battery warning level, acknowledged alerts).
 */
import type { Logger } from '../../logger.ts';
import type { Store } from '../../state/store.ts';
import { ConsoleSettingsService } from './settings.ts';

export { ConsoleSettingsService, type ConsoleUpdate } from './settings.ts';

export function createConsoleSettings(d: { store: Store; log: Logger }): ConsoleSettingsService {
  return new ConsoleSettingsService({ store: d.store, log: d.log.child({ mod: 'console' }) });
}
