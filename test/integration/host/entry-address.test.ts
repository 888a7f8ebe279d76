/**
 * The address people type: the bare prefix (`/lightnet`, no trailing slash) leads to the
 * UI by a redirect that keeps the query string, as does `/`.
 */
import { describe, expect, it } from 'vitest';
import { withHost } from '../harness.ts';

describe('entry address', () => {
  it('bare-prefix-redirects-to-the-ui-keeping-the-query', async () => {
    await withHost({ nodes: 1 }, async (h) => {
      const origin = new URL(h.url).origin;
      const bare = await fetch(`${origin}/lightnet`, { redirect: 'manual' });
      expect(bare.status).toBe(302);
      expect(bare.headers.get('location')).toBe('/lightnet/');
      const withQuery = await fetch(`${origin}/lightnet?page=health&x=1`, { redirect: 'manual' });
      expect(withQuery.status).toBe(302);
      expect(withQuery.headers.get('location')).toBe('/lightnet/?page=health&x=1');
      // Followed, it ends at the UI (index.html, or the placeholder when not built).
      const followed = await fetch(`${origin}/lightnet`);
      expect(followed.status).toBe(200);
      expect(followed.url).toBe(`${origin}/lightnet/`);
      expect(followed.headers.get('content-type')).toMatch(/text\/html/);
      // Paths below the prefix are unchanged.
      expect((await fetch(`${origin}/lightnet/api/health`)).status).toBe(200);
    });
  });

  it('a-custom-prefix-redirects-the-same-way', async () => {
    await withHost({ nodes: 1, prefix: '/lights' }, async (h) => {
      const origin = new URL(h.url).origin;
      const bare = await fetch(`${origin}/lights?a=b`, { redirect: 'manual' });
      expect(bare.status).toBe(302);
      expect(bare.headers.get('location')).toBe('/lights/?a=b');
    });
  });
});
