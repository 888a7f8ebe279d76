/** The benchmark state: `devices` devices spread over `groups` groups. */
import { emptyState, newDevice, type StateModel } from '../src/domain/model.ts';

export function fleetState(devices: number, groups: number): StateModel {
  const s: StateModel = emptyState();
  for (let g = 1; g <= groups; g++) s.groups.push({ id: g, name: `Group ${g}`, dev_type: 0 });
  for (let i = 0; i < devices; i++) {
    const addr = (0x100000 + i * 7919).toString(16).toUpperCase().slice(-6);
    const d = newDevice(addr, `246F28${addr}`, i % 7 === 0 ? 50 : 12);
    d.groupId = (i % groups) + 1;
    d.host_rssi = -60 - (i % 50);
    d.voltage_mV = i % 3 === 0 ? 3900 : 0;
    s.devices.push(d);
  }
  return s;
}
