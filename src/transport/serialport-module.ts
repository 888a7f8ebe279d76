/**
 * serialport, loaded as the CommonJS package it is. An ESM `import` of it makes Node run its
 * CommonJS export scanner over serialport's re-export chain at every start (~10 ms of a
 * ~200 ms start); `require` does not.
 */
import { createRequire } from 'node:module';
import type * as SerialPortModule from 'serialport';

export const { SerialPort } = createRequire(import.meta.url)('serialport') as typeof SerialPortModule;
export type SerialPort = SerialPortModule.SerialPort;
