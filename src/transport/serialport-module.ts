/**
 * serialport, loaded as the CommonJS package it is, and only when a serial port is first
 * listed or opened. An ESM `import` of it makes Node run its CommonJS export scanner over
 * serialport's re-export chain at every start (~10 ms of a ~200 ms start); `require` does
 * not. Loading it at all (its bindings, the platform modules, `debug`) costs ~20 ms of CPU,
 * outside the bundle's code cache: a host on the simulator or a TCP gateway never needs it,
 * and one on a serial gateway pays it while its gateway connects, not before.
 */
import { createRequire } from 'node:module';
import type * as SerialPortModule from 'serialport';

let loaded: typeof SerialPortModule | null = null;

/** The serialport package (required on the first call). */
export function serialport(): typeof SerialPortModule {
  loaded ??= createRequire(import.meta.url)('serialport') as typeof SerialPortModule;
  return loaded;
}

export type SerialPort = SerialPortModule.SerialPort;
/** The SerialPort class's type (for its constructor's options). */
export type SerialPortClass = typeof SerialPortModule.SerialPort;
