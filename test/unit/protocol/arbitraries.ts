/**
 * fast-check arbitraries for protocol messages. Generated values are in "decoded" normal
 * form (optional fields that the decoder always fills are always present), so that
 * decode(encode(x)) must equal x exactly.
 */
import fc from 'fast-check';
import {
  decodeReplyBody,
  toHex,
  type ControlFields,
  type GatewayInbound,
  type HostCommand,
  type M2NRequest,
  type N2MReply,
  type OffsetConfig,
  type RfConfig,
  type Rgb,
} from '../../../src/protocol/index.ts';

const byte = fc.integer({ min: 0, max: 255 });
const i16 = fc.integer({ min: -32768, max: 32767 });
const u16 = fc.integer({ min: 0, max: 0xffff });

export const addrArb = fc.uint8Array({ minLength: 3, maxLength: 3 }).map((b) => toHex(b));

export const rfArb: fc.Arbitrary<RfConfig> = fc.record({
  freqHz: fc.integer({ min: 0, max: 0xffffffff }),
  bwKhzX10: u16,
  sf: byte,
  crDen: byte,
  syncWord: byte,
  txPowerDbm: fc.integer({ min: -128, max: 127 }),
  preamble: u16,
});

const rgb: fc.Arbitrary<Rgb> = fc.tuple(byte, byte, byte);
const data4 = fc.tuple(byte, byte, byte, byte);

const controlFieldsArb: fc.Arbitrary<ControlFields> = fc
  .record(
    {
      brightness: byte,
      mode: byte,
      speed: byte,
      intensity: byte,
      custom1: byte,
      custom2: byte,
      palette: byte,
      color1: rgb,
      color2: rgb,
      color3: rgb,
    },
    { requiredKeys: [] },
  )
  .chain((f) =>
    fc
      .option(
        fc.record({
          custom3: fc.integer({ min: 0, max: 31 }),
          check1: fc.boolean(),
          check2: fc.boolean(),
          check3: fc.boolean(),
        }),
        {
          nil: undefined,
        },
      )
      .map((c3) => ({ ...f, ...(c3 ?? {}) })),
  );

const offsetArb: fc.Arbitrary<OffsetConfig> = fc.oneof(
  fc.constant({ mode: 'NONE' as const }),
  fc.record({ mode: fc.constant('EXPLICIT' as const), offsetMs: u16 }),
  fc.record({ mode: fc.constant('LINEAR' as const), baseMs: i16, stepMs: i16 }),
  fc.record({ mode: fc.constant('VSHAPE' as const), baseMs: i16, stepMs: i16, center: byte }),
  fc.record({ mode: fc.constant('MODULO' as const), baseMs: i16, stepMs: i16, cycle: byte }),
);

export const requestArb: fc.Arbitrary<M2NRequest> = fc.oneof(
  fc.record({ op: fc.constant('DEVICES' as const), groupId: byte, flags: byte }),
  fc.record({ op: fc.constant('SET_GROUP' as const), groupId: byte }),
  fc.record({ op: fc.constant('STATUS' as const), groupId: byte, flags: byte }),
  fc.record({
    op: fc.constant('PRESET' as const),
    groupId: byte,
    flags: byte,
    presetId: byte,
    brightness: byte,
  }),
  fc.record({ op: fc.constant('CONFIG' as const), option: byte, data: data4 }),
  fc.record({
    op: fc.constant('SYNC' as const),
    ts24: fc.integer({ min: 0, max: 0xffffff }),
    brightness: byte,
  }),
  fc.record({
    op: fc.constant('SYNC' as const),
    ts24: fc.integer({ min: 0, max: 0xffffff }),
    brightness: byte,
    flags: byte,
  }),
  fc.record({ op: fc.constant('STREAM' as const), payload: fc.uint8Array({ minLength: 1, maxLength: 128 }) }),
  fc.record({ op: fc.constant('CONTROL' as const), groupId: byte, flags: byte, fields: controlFieldsArb }),
  fc.record({ op: fc.constant('OFFSET' as const), groupId: byte, offset: offsetArb }),
  fc.record({ op: fc.constant('GET_CONFIG' as const), option: byte }),
  fc.record({ op: fc.constant('HEADLESS' as const), sceneId: byte, brightness: byte }),
  fc.record({ op: fc.constant('INDICATE' as const), type: byte, durationSec: byte }),
  fc.record({ op: fc.constant('RF_CONFIG' as const), rf: rfArb }),
  fc.record({ op: fc.constant('GET_RF_CONFIG' as const), reserved: byte }),
);

const KNOWN_REPLY_OPCODES = [0x01, 0x03, 0x0a, 0x0e, 0x7e];

export const replyArb: fc.Arbitrary<N2MReply> = fc.oneof(
  fc.record({
    kind: fc.constant('IDENTIFY_REPLY' as const),
    fw: byte,
    devType: byte,
    groupId: byte,
    mac: fc.uint8Array({ minLength: 6, maxLength: 6 }).map((b) => toHex(b)),
  }),
  fc.record({
    kind: fc.constant('STATUS_REPLY' as const),
    flags: byte,
    configByte: byte,
    effectId: byte,
    brightness: byte,
    vbatMv: u16,
    rssi: fc.integer({ min: -128, max: 127 }),
    snr: fc.integer({ min: -128, max: 127 }),
    legacy: fc.constant(false),
  }),
  fc.record({
    kind: fc.constant('STATUS_REPLY' as const),
    flags: byte,
    configByte: fc.constant(0),
    effectId: byte,
    brightness: byte,
    vbatMv: u16,
    rssi: fc.integer({ min: -128, max: 127 }),
    snr: fc.integer({ min: -128, max: 127 }),
    legacy: fc.constant(true),
  }),
  fc.record({
    kind: fc.constant('ACK' as const),
    ackOf: fc.integer({ min: 0, max: 127 }),
    status: byte,
    seq: byte,
  }),
  fc.record({ kind: fc.constant('CONFIG_REPLY' as const), option: byte, data: data4 }),
  fc.record({ kind: fc.constant('RF_CONFIG_REPLY' as const), rf: rfArb }),
  fc.record({
    kind: fc.constant('UNKNOWN' as const),
    // 0x70..0x7D would collide with the event TYPEs 0xF0..0xFD on the USB link (§2.6).
    opcode: fc.integer({ min: 0, max: 0x6f }).filter((o) => !KNOWN_REPLY_OPCODES.includes(o)),
    body: fc.uint8Array({ maxLength: 25 }),
  }),
);

const EVENT_TYPES = [0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xf6];

/** A raw forwarded packet of any type byte the gateway could forward (never an event TYPE). */
const rawPacketInbound: fc.Arbitrary<GatewayInbound> = fc
  .record({
    sender: addrArb,
    receiver: addrArb,
    typeFull: byte.filter((t) => !EVENT_TYPES.includes(t)),
    body: fc.uint8Array({ maxLength: 25 }),
    rssi: i16,
    snr: fc.integer({ min: -128, max: 127 }),
  })
  .map(({ sender, receiver, typeFull, body, rssi, snr }) => ({
    kind: 'packet' as const,
    packet: { sender, receiver, typeFull, body },
    rssi,
    snr,
    reply: typeFull & 0x80 ? decodeReplyBody(typeFull, body) : null,
  }));

export const inboundArb: fc.Arbitrary<GatewayInbound> = fc.oneof(
  fc.record({ report: fc.boolean(), state: byte, ms: u16 }).map(({ report, state, ms }) => ({
    kind: 'state' as const,
    report,
    state,
    metadataMs: state === 2 ? ms : 0,
  })),
  fc.constant({ kind: 'tx_done' as const }),
  fc.record({ kind: fc.constant('tx_rejected' as const), typeFull: byte, reason: byte }),
  fc.record({ kind: fc.constant('rf_changed' as const), reason: byte, rf: rfArb }),
  fc.record({ kind: fc.constant('error' as const), text: fc.stringMatching(/^[ -~]{0,40}$/) }),
  rawPacketInbound,
);

export const hostCommandArb: fc.Arbitrary<HostCommand> = fc.oneof(
  fc.constant({ kind: 'identify' as const }),
  fc.constant({ kind: 'state_request' as const }),
  fc.constant({ kind: 'get_rf' as const }),
  fc.record({ kind: fc.constant('set_rf' as const), persist: fc.boolean(), rf: rfArb }),
  fc.record({ kind: fc.constant('m2n' as const), receiver: addrArb, request: requestArb }),
);
