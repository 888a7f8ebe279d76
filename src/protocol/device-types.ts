/** Device type codes (IDENTIFY_REPLY `caps` byte, §7.3) with neutral names (decisions §2). */

export type Capability = 'LED' | 'STARTBLOCK';

export interface DeviceTypeInfo {
  code: number;
  name: string;
  caps: Capability[];
}

export const DEVICE_TYPES: readonly DeviceTypeInfo[] = [
  { code: 1, name: 'Gateway_Rev1', caps: [] },
  { code: 10, name: 'LED_Rev1', caps: ['LED'] },
  { code: 11, name: 'LED_Rev3', caps: ['LED'] },
  { code: 12, name: 'LED_Rev4', caps: ['LED'] },
  { code: 13, name: 'LED_Rev5', caps: ['LED'] },
  { code: 14, name: 'LED_Eth_Gledopto', caps: ['LED'] },
  { code: 50, name: 'LED_Startblock_Rev3', caps: ['LED', 'STARTBLOCK'] },
  { code: 51, name: 'LED_Startblock_HWP', caps: ['LED', 'STARTBLOCK'] },
];

const BY_CODE = new Map(DEVICE_TYPES.map((d) => [d.code, d]));

export function deviceTypeInfo(code: number): DeviceTypeInfo {
  const d = BY_CODE.get(code);
  if (!d) return { code, name: `UNKNOWN_${code}`, caps: [] };
  return { code: d.code, name: d.name, caps: [...d.caps].sort() };
}
