/** The pure protocol layer of Lightnet (no I/O). */
export * from './types.ts';
export * from './addr.ts';
export * from './framing.ts';
export * from './packets.ts';
export * from './replies.ts';
export * from './commands.ts';
export * from './events.ts';
export * from './flags.ts';
export * from './device-types.ts';
export * from './config-options.ts';
export * from './airtime.ts';
export { toHex, concatBytes } from './bytes.ts';
