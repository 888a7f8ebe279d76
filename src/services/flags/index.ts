/** Race flags (green, yellow, red, clear over the whole field): looks, state and the service. */
export {
  FLAGS,
  FLAG_ACTIONS,
  DEFAULT_LOOKS,
  FlagsStore,
  flagLooksSchema,
  flagLookSchema,
  type Flag,
  type FlagAction,
  type FlagLook,
  type FlagLooks,
  type FlagState,
} from './looks.ts';
export { FLAG_SOURCE, FlagService, type FlagDeps, type FlagReport } from './service.ts';
export { fieldSender, lookFrames, type FieldReport, type FieldSender } from './field.ts';
