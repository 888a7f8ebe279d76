/** Builds the specials services (schema, write/read/import, actions) from the host's parts. */
import type { Clock } from '../../clock.ts';
import type { StartblockSlot } from '../../domain/scenes/types.ts';
import type { GatewayDriver } from '../../gateway/types.ts';
import type { Logger } from '../../logger.ts';
import type { Store } from '../../state/store.ts';
import type { TaskManager } from '../../tasks/task-manager.ts';
import type { DeviceRegistry, MasterView } from '../devices/index.ts';
import { SpecialsActions } from './actions.ts';
import { SpecialsSchema } from './schema.ts';
import { SpecialsService } from './service.ts';
import {
  nativePresetsFrom,
  noLedPresetOptions,
  storeNativePresets,
  type LedPresetOptionsSource,
  type NativePresetSource,
} from './sources.ts';

export function createSpecials(deps: {
  store: Store;
  driver: GatewayDriver;
  registry: DeviceRegistry;
  tasks: TaskManager;
  clock: Clock;
  log: Logger;
  master: MasterView;
  /** The LED preset-file service (its active file's presets); without it the picker is empty. */
  ledPresets?: { ledPresetOptions(): { id: number; name: string }[] };
  /** The native-preset service; without it the store's `native_presets` are read directly. */
  nativePresets?: { list(): readonly unknown[] };
  /** The current heat's start-block slots (timing-application integration). */
  heatSlots?: () => readonly StartblockSlot[];
  /** The option write's ACK budget (tests). */
  ackBudgetMs?: number;
}): { specials: SpecialsService; specialsSchema: SpecialsSchema; specialsActions: SpecialsActions } {
  const presets = deps.nativePresets;
  const native: NativePresetSource = presets
    ? nativePresetsFrom(() => presets.list())
    : storeNativePresets(deps.store);
  const specials = new SpecialsService(deps);
  const files = deps.ledPresets;
  const led: LedPresetOptionsSource = files
    ? {
        options: () =>
          files
            .ledPresetOptions()
            .sort((a, b) => a.id - b.id)
            .map((e) => ({ value: String(e.id), label: e.name })),
      }
    : noLedPresetOptions;
  const specialsSchema = new SpecialsSchema(led, native);
  const specialsActions = new SpecialsActions({
    specials,
    native,
    driver: deps.driver,
    store: deps.store,
    master: deps.master,
    log: deps.log,
    heatSlots: deps.heatSlots,
  });
  return { specials, specialsSchema, specialsActions };
}
