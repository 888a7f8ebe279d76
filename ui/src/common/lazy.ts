/**
 * Pages and dialogs that a first open does not show live in chunks of their own, so the
 * script a cold open downloads and compiles before the first device row is the device
 * page's only. They are all fetched in the background once the first lists are in
 * (preloadLazy, from App's boot), so opening one later renders at once, as before the
 * split; one opened before that shows a frame or two later. A chunk that cannot load
 * (the host was updated and the old build's files are gone) says so and is asked for
 * again on the next try.
 */
import { h, type ComponentType, type FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { toastError } from '../toasts.ts';

const starts: (() => Promise<unknown>)[] = [];

/** A component that loads `load`'s component on first use (preact/compat's lazy without Suspense). */
export function lazy<P extends object>(load: () => Promise<ComponentType<P>>): FunctionComponent<P> {
  let loaded: ComponentType<P> | null = null;
  let pending: Promise<ComponentType<P>> | null = null;
  const start = (): Promise<ComponentType<P>> =>
    (pending ??= load().then(
      (c) => (loaded = c),
      (err: unknown) => {
        pending = null;
        throw err;
      },
    ));
  starts.push(start);
  return function Lazy(props: P) {
    const [, setReady] = useState(loaded !== null);
    useEffect(() => {
      // No early return when `loaded` is set by now: the background preload can finish
      // between this render (which drew nothing) and this effect, and then only this
      // state update draws the part (a dialog clicked open as the page loads stayed empty).
      let mounted = true;
      start().then(
        () => mounted && setReady(true),
        (err: unknown) =>
          mounted &&
          toastError('Loading this part of the page failed (reload the page to get the current UI)', err),
      );
      return () => {
        mounted = false;
      };
    }, []);
    return loaded ? h(loaded, props) : null;
  };
}

/** Fetches every lazy part now (failures are left for their first use to report). */
export function preloadLazy(): void {
  for (const start of starts) void start().catch(() => undefined);
}
