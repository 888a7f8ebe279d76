/**
 * Shared wire vocabulary: constants and message shapes of the USB link and the LoRa
 * packets (reference: shared/reference/wire-protocol.md). Pure data, no I/O.
 *
 * Addresses are 6 upper-case hex characters (the last three MAC bytes), e.g. "AABBCC";
 * "FFFFFF" is broadcast.
 */
export type Addr = string;
export const BROADCAST: Addr = 'FFFFFF';

export const OPC = {
  DEVICES: 0x01,
  SET_GROUP: 0x02,
  STATUS: 0x03,
  PRESET: 0x04,
  CONFIG: 0x05,
  SYNC: 0x06,
  STREAM: 0x07,
  CONTROL: 0x08,
  OFFSET: 0x09,
  GET_CONFIG: 0x0a,
  HEADLESS: 0x0b,
  INDICATE: 0x0c,
  RF_CONFIG: 0x0d,
  GET_RF_CONFIG: 0x0e,
  ACK: 0x7e,
} as const;
export type OpcodeName = keyof typeof OPC;

export const DIR_N2M = 0x80;

export const GW_CMD = {
  IDENTIFY: 0x01,
  SET_RF_CONFIG: 0x02,
  GET_RF_CONFIG: 0x03,
  STATE_REQUEST: 0x7f,
} as const;

export const EV = {
  ERROR: 0xf0,
  STATE_CHANGED: 0xf1,
  TX_DONE: 0xf3,
  TX_REJECTED: 0xf4,
  STATE_REPORT: 0xf5,
  RF_CHANGED: 0xf6,
} as const;

export const GW_STATE = {
  IDLE: 0x00,
  TX: 0x01,
  RX_WINDOW: 0x02,
  RX: 0x03,
  ERROR: 0xfe,
  UNKNOWN: 0xff,
} as const;

export const TX_REJECT = {
  TXPENDING: 0x01,
  OVERSIZE: 0x02,
  ZEROLEN: 0x03,
  UNKNOWN: 0xff,
} as const;

export const RF_REASON = { OK: 0x00, REJECTED_RANGE: 0x01, REJECTED_CRC: 0x02, NVS_FAIL: 0x03 } as const;

export const ACK_STATUS = {
  OK: 0,
  BAD_TYPE: 1,
  BAD_LEN: 2,
  UNAUTHORIZED: 3,
  BUSY: 4,
  ERROR: 5,
} as const;

/** Identify answer prefix: a hardware literal, kept as the firmware has it. */
export const IDENTIFY_PREFIX = 'RaceLink_Gateway_v4';
export const PROTO_VER_MAJOR = 2;

/** P_RfConfig (12 bytes). */
export interface RfConfig {
  freqHz: number;
  bwKhzX10: number;
  sf: number;
  crDen: number;
  syncWord: number;
  txPowerDbm: number;
  preamble: number;
}

export const DEFAULT_RF: RfConfig = {
  freqHz: 867_700_000,
  bwKhzX10: 1250,
  sf: 7,
  crDen: 5,
  syncWord: 0x12,
  txPowerDbm: 14,
  preamble: 8,
};

export type Rgb = readonly [number, number, number];

/** OPC_CONTROL effect fields; each present field sets its fieldMask/extMask bit. */
export interface ControlFields {
  brightness?: number;
  mode?: number;
  speed?: number;
  intensity?: number;
  custom1?: number;
  custom2?: number;
  /** 0..31; custom3 and the three checks share one byte (emitted if any is given). */
  custom3?: number;
  check1?: boolean;
  check2?: boolean;
  check3?: boolean;
  palette?: number;
  color1?: Rgb;
  color2?: Rgb;
  color3?: Rgb;
}

export type OffsetConfig =
  | { mode: 'NONE' }
  | { mode: 'EXPLICIT'; offsetMs: number }
  | { mode: 'LINEAR'; baseMs: number; stepMs: number }
  | { mode: 'VSHAPE'; baseMs: number; stepMs: number; center: number }
  | { mode: 'MODULO'; baseMs: number; stepMs: number; cycle: number };

/** A master→node request body, by opcode (what the host asks the gateway to transmit). */
export type M2NRequest =
  | { op: 'DEVICES'; groupId: number; flags?: number }
  | { op: 'SET_GROUP'; groupId: number }
  | { op: 'STATUS'; groupId: number; flags?: number }
  | { op: 'PRESET'; groupId: number; flags: number; presetId: number; brightness: number }
  | { op: 'CONFIG'; option: number; data: readonly [number, number, number, number] }
  /** flags undefined → 4-byte form; defined → 5-byte form. */
  | { op: 'SYNC'; ts24: number; brightness: number; flags?: number }
  | { op: 'STREAM'; payload: Uint8Array }
  | { op: 'CONTROL'; groupId: number; flags: number; fields: ControlFields }
  | { op: 'OFFSET'; groupId: number; offset: OffsetConfig }
  | { op: 'GET_CONFIG'; option: number }
  | { op: 'HEADLESS'; sceneId: number; brightness: number }
  | { op: 'INDICATE'; type: number; durationSec: number }
  | { op: 'RF_CONFIG'; rf: RfConfig }
  | { op: 'GET_RF_CONFIG'; reserved?: number };

/** A node→master reply body. */
export type N2MReply =
  | { kind: 'IDENTIFY_REPLY'; fw: number; devType: number; groupId: number; mac: string /* 12 hex upper */ }
  | {
      kind: 'STATUS_REPLY';
      flags: number;
      configByte: number;
      effectId: number;
      brightness: number;
      vbatMv: number;
      rssi: number;
      snr: number;
      /** true when parsed from the 7-byte legacy form (configByte then 0). */
      legacy: boolean;
    }
  | { kind: 'ACK'; ackOf: number; status: number; seq: number }
  | { kind: 'CONFIG_REPLY'; option: number; data: readonly [number, number, number, number] }
  | { kind: 'RF_CONFIG_REPLY'; rf: RfConfig }
  | { kind: 'UNKNOWN'; opcode: number; body: Uint8Array };

/** A LoRa packet: Header7 + body. */
export interface LoraPacket {
  sender: Addr;
  receiver: Addr;
  typeFull: number;
  body: Uint8Array;
}

/** One decoded USB frame (either direction): TYPE byte + DATA. */
export interface RawFrame {
  type: number;
  data: Uint8Array;
}

/** What the host decoder yields: framed data, or the unframed identify answer. */
export type DecodedItem =
  { kind: 'frame'; frame: RawFrame } | { kind: 'identify'; mac: string /* "48:CA:43:10:20:30" */ };

/** Host → gateway commands (USB). */
export type HostCommand =
  | { kind: 'identify' }
  | { kind: 'state_request' }
  | { kind: 'get_rf' }
  | { kind: 'set_rf'; persist: boolean; rf: RfConfig }
  | { kind: 'm2n'; receiver: Addr; request: M2NRequest };

/** Gateway → host frames, decoded. */
export type GatewayInbound =
  | { kind: 'state'; report: boolean; state: number; metadataMs: number }
  | { kind: 'tx_done' }
  | { kind: 'tx_rejected'; typeFull: number; reason: number }
  | { kind: 'rf_changed'; reason: number; rf: RfConfig }
  | { kind: 'error'; text: string }
  /** A forwarded LoRa packet; `reply` is set for N2M packets whose body parses. */
  | { kind: 'packet'; packet: LoraPacket; rssi: number; snr: number; reply: N2MReply | null };

/**
 * Host → gateway frames as the gateway itself sees them (used by the simulated gateway):
 * M2N requests stay raw, because the gateway copies bodies verbatim after a length check.
 */
export type GatewayCommand =
  | { kind: 'identify' }
  | { kind: 'state_request' }
  | { kind: 'get_rf' }
  | { kind: 'set_rf'; persistFlag: number; rf: RfConfig; rfBytes: Uint8Array }
  | { kind: 'm2n'; typeFull: number; receiver: Addr; body: Uint8Array };
