/**
 * DMX in (sACN / Art-Net, issue 38): the virtual fixture's channel map (channel-map.ts), the
 * patch (patch.ts), the merge of several sources (merge.ts), the service that turns frames
 * into paced group commands (service.ts) and the receivers (sacn.ts, artnet.ts). The host
 * wires it (src/host/dmx.ts) only when `--dmx` is given, importing this lazily.
 */
export * from './channel-map.ts';
export * from './merge.ts';
export * from './patch.ts';
export * from './receiver.ts';
export * from './service.ts';
export * from '../../domain/dmx-universes.ts';
export { ArtNetReceiver, ARTNET_PORT, decodeArtNet, encodePollReply } from './artnet.ts';
export { SacnReceiver, SACN_PORT, multicastGroup } from './sacn.ts';

/** What the HTTP routes need of DMX in (type-only: the module itself is loaded lazily). */
export type DmxFace = Pick<import('./service.ts').DmxService, 'view' | 'patchEntries' | 'setPatch'>;
