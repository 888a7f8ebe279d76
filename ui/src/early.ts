/**
 * The first lists' requests start before the app's script has even arrived: a few lines
 * inlined into index.html (vite.config.ts writes them from EARLY_PATHS) send them while
 * the browser still downloads and compiles the bundle, and the app's first GET of each
 * path takes the answer already on its way. On a cold open the first row then waits for
 * the slower of the two (script or lists), not for one after the other.
 *
 * Nothing else changes: the answer goes through api.ts's request() like any other (a 401
 * still leads to the login page, an error still becomes an ApiError), each early answer is
 * used once, and the login page sends none. This module is also loaded by vite.config.ts
 * (Node): nothing here may touch the DOM at import time.
 */

/**
 * What the first load asks for on opening (live.ts startLive), the device list first and the
 * lists that shape the first screen next: the browser opens at most six connections to a
 * host, so the order is the order they leave.
 */
export const EARLY_PATHS = [
  'devices',
  'groups',
  'master',
  'networks',
  'health',
  'native-presets/schema',
  'console',
  'native-presets',
  'scenes',
] as const;

const GLOBAL = '__lightnetEarly';

/**
 * The inline script: plain old JavaScript (it runs before any module, in every browser
 * the UI supports), relative to the `<base href>` the host injects, as apiUrl() is.
 */
export function earlyScript(): string {
  return (
    `(function(){if(/\\/login\\/?$/.test(location.pathname))return;var e={};` +
    `${JSON.stringify(EARLY_PATHS)}.forEach(function(p){` +
    `var r=fetch(new URL('api/'+p,document.baseURI).href,{credentials:'same-origin'});` +
    // Handled here so a failure is not reported as unhandled; the app sees it when it takes it.
    `r.catch(function(){});e[p]=r});window.${GLOBAL}=e})();`
  );
}

/** The early answer for `path` (an API path such as 'devices'), once; undefined when there is none. */
export function takeEarly(path: string): Promise<Response> | undefined {
  const all = (globalThis as Record<string, unknown>)[GLOBAL] as
    Record<string, Promise<Response> | undefined> | undefined;
  const r = all?.[path];
  if (r) delete all[path];
  return r;
}
