import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LORA,
  DEFAULT_RF,
  loraAirtimeMs,
  loraParamsFromRf,
  packetAirtimeMs,
} from '../../../src/protocol/index.ts';

describe('LoRa airtime (§10.3)', () => {
  it.each([
    [1, 36.096],
    [2, 41.216],
    [3, 41.216],
    [4, 41.216],
    [5, 41.216],
    [8, 46.336],
    [9, 51.456],
    [12, 51.456],
    [21, 66.816],
  ])('body %i bytes → %f ms at SF7/125k', (body, ms) => {
    expect(packetAirtimeMs(body)).toBe(ms);
  });

  it('64-byte packet (watchdog reference) and 7-byte header-only packet', () => {
    expect(loraAirtimeMs(64)).toBe(118.016);
    expect(loraAirtimeMs(7)).toBe(36.096);
  });

  it('other settings at PL = 12', () => {
    expect(loraAirtimeMs(12, { sf: 9 })).toBe(144.384);
    expect(loraAirtimeMs(12, { sf: 11 })).toBe(577.536); // DE auto-on (T_sym 16.384 ms)
    expect(loraAirtimeMs(12, { sf: 11, lowDataRateOpt: true })).toBe(577.536);
    expect(loraAirtimeMs(12, { sf: 12 })).toBe(1155.072);
    expect(loraAirtimeMs(12, { sf: 12, lowDataRateOpt: false })).toBe(991.232);
    expect(loraAirtimeMs(12, { bwHz: 250_000 })).toBe(20.608);
  });

  it('low-data-rate optimisation switches on automatically at 16 ms symbols only', () => {
    // SF12 at 250 kHz: T_sym = 16.384 ms → DE on; SF11 at 250 kHz: 8.192 ms → off
    expect(loraAirtimeMs(12, { sf: 12, bwHz: 250_000 })).toBe(1155.072 / 2);
    expect(loraAirtimeMs(12, { sf: 11, bwHz: 250_000 })).toBe(
      loraAirtimeMs(12, { sf: 11, bwHz: 250_000, lowDataRateOpt: false }),
    );
    expect(loraAirtimeMs(12, { sf: 10 })).toBe(loraAirtimeMs(12, { sf: 10, lowDataRateOpt: false }));
  });

  it('implicit header / no CRC / higher coding rate change the payload symbols', () => {
    // PL 10: explicit+CRC ceil(96/28)=4 blocks; implicit ceil(76/28)=3; no CRC ceil(80/28)=3
    expect(loraAirtimeMs(10)).toBe(41.216);
    expect(loraAirtimeMs(10, { explicitHeader: false })).toBe(36.096);
    expect(loraAirtimeMs(10, { crc: false })).toBe(36.096);
    // CR 4/8: ceil((96-28+28+16)/28)=4 blocks * 8 = 32 → (12.25+40)*1.024
    expect(loraAirtimeMs(12, { crDen: 8 })).toBe(53.504);
  });

  it('params from an RfConfig', () => {
    expect(loraParamsFromRf(DEFAULT_RF)).toEqual({ ...DEFAULT_LORA });
    expect(packetAirtimeMs(2, loraParamsFromRf({ ...DEFAULT_RF, sf: 9 }))).toBe(loraAirtimeMs(9, { sf: 9 }));
  });
});
