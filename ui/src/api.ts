/**
 * The one way the UI talks to the host: JSON over fetch, relative to the document's
 * base (the host injects `<base href="<prefix>/">`), errors turned into ApiError with
 * the host's own message.
 */
import { takeEarly } from './early.ts';

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: Record<string, unknown> | null,
  ) {
    super(message);
  }
  get busy(): boolean {
    return this.status === 409 && this.body?.busy === true;
  }
}

/** Called on 401 (a password is set and the session is missing or expired). */
let onUnauthorized: () => void = () => {};
export function setUnauthorizedHandler(fn: () => void): void {
  onUnauthorized = fn;
}

export const apiUrl = (path: string): string => new URL(path.replace(/^\//, ''), document.baseURI).href;

/** The mount prefix as the browser sees it, e.g. "/lightnet" ('' at the root). */
export const basePath = (): string => new URL(document.baseURI).pathname.replace(/\/+$/, '');

export async function request<T = Record<string, unknown>>(
  method: string,
  path: string,
  body?: unknown,
  init: RequestInit = {},
): Promise<T> {
  let res: Response;
  const isForm = typeof FormData !== 'undefined' && body instanceof FormData;
  // The page's first read of a list may already be on its way (early.ts).
  const early = method === 'GET' && body === undefined && !init.signal ? takeEarly(path) : undefined;
  try {
    res = await (early ??
      fetch(apiUrl(`api/${path}`), {
        ...init,
        method,
        headers: body === undefined || isForm ? undefined : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : isForm ? body : JSON.stringify(body),
        credentials: 'same-origin',
      }));
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError('Connection to host lost', 0, null);
  }
  let parsed: Record<string, unknown> | null = null;
  try {
    parsed = (await res.json()) as Record<string, unknown>;
  } catch {
    parsed = null;
  }
  if (res.status === 401 && path !== 'login') onUnauthorized();
  if (!res.ok) {
    const text = typeof parsed?.error === 'string' ? parsed.error : `HTTP ${res.status}`;
    throw new ApiError(text, res.status, parsed);
  }
  return (parsed ?? {}) as T;
}

export const get = <T = Record<string, unknown>>(path: string, init?: RequestInit) =>
  request<T>('GET', path, undefined, init);
export const post = <T = Record<string, unknown>>(path: string, body: unknown = {}, init?: RequestInit) =>
  request<T>('POST', path, body, init);
export const put = <T = Record<string, unknown>>(path: string, body: unknown) =>
  request<T>('PUT', path, body);
export const del = <T = Record<string, unknown>>(path: string) => request<T>('DELETE', path);
