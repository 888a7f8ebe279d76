/**
 * Reloads the live stream drives stay quiet when the host cannot be reached (the connection
 * banner says so, and the reconnect reloads every list); every other failure still shows.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../ui/src/api.ts';
import { toastReloadError, toasts } from '../../ui/src/toasts.ts';

describe('reload errors', () => {
  beforeEach(() => {
    toasts.value = [];
  });

  it('a-lost-connection-shows-no-toast-any-other-failure-does', () => {
    toastReloadError('Loading devices failed', new ApiError('Connection to host lost', 0, null));
    expect(toasts.value).toEqual([]);
    toastReloadError('Loading devices failed', new ApiError('state not loaded', 503, null));
    toastReloadError('Loading groups failed', new Error('bad JSON'));
    expect(toasts.value.map((t) => [t.kind, t.text])).toEqual([
      ['error', 'Loading devices failed: state not loaded'],
      ['error', 'Loading groups failed: bad JSON'],
    ]);
  });
});
