/**
 * Serial port events without opening a port: inotify on `/dev` for the USB-serial nodes and
 * their `/dev/serial/by-id` links. `/dev/serial` itself comes and goes with the first and
 * last USB-serial device, so `/dev` is watched (filtered to those names), not the by-id
 * folder. Where watching is impossible (another OS, no /dev) the caller's poll still runs.
 */
import { watch, type FSWatcher } from 'node:fs';

const RELEVANT = /^(tty(USB|ACM)\d+|serial|cu\.usb.*|tty\.usb.*)$/;

/** Calls `onChange` when a USB-serial node appears or goes; returns the unsubscribe. */
export function watchSerialPorts(onChange: () => void, devRoot = '/dev'): () => void {
  let w: FSWatcher | null = null;
  try {
    w = watch(devRoot, { persistent: false }, (_event, name) => {
      if (name === null || RELEVANT.test(String(name))) onChange();
    });
    // A watch that breaks later (the folder went away) just stops: the poll remains.
    w.on('error', () => {
      w?.close();
      w = null;
    });
  } catch {
    w = null;
  }
  return () => {
    w?.close();
    w = null;
  };
}
