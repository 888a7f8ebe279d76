/**
 * Device options ("specials"): the per-capability form schema, acknowledged CONFIG
 * writes and live reads, import of node-side values, and the one-shot device functions.
 */
export { SpecialsActions } from './actions.ts';
export { SpecialsSchema } from './schema.ts';
export { SpecialsService } from './service.ts';
export { createSpecials } from './wiring.ts';
