/** A node's configByte as the words an operator reads (the original showed these as pills). */
import type { Device } from '../types.ts';

/** configByte bits as the node reports them. */
export const CONFIG_BITS = { macFilter: 0x01, macFilterPersist: 0x02, apOpen: 0x04 } as const;

export function configPills(d: Device): string[] {
  const out: string[] = [];
  if (d.configByte & CONFIG_BITS.macFilter) out.push('MAC filter');
  if (d.configByte & CONFIG_BITS.macFilterPersist) out.push('MAC filter persist');
  if (d.configByte & CONFIG_BITS.apOpen) out.push('AP open');
  return out;
}
