/**
 * docs/integrators/api.md lists every route the host serves and every event its stream
 * sends: the routes are read from the running host's route tree, the events from the
 * stream's source. A route or event added without documenting it fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withHost } from '../harness.ts';
import { servedRoutes } from './served-routes.ts';

const doc = readFileSync('docs/integrators/api.md', 'utf8');
/** A table row whose first cell is `text` (prettier pads the cells). */
const row = (text: string): RegExp =>
  new RegExp(`^\\| \`${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\` +\\|`, 'm');

describe('API reference', () => {
  it('lists-every-route-the-host-serves', async () => {
    await withHost({}, async (h) => {
      const routes = servedRoutes(h.host.app);
      expect(routes.length).toBeGreaterThan(50);
      const missing = routes.filter((r) => !row(r).test(doc));
      expect(missing).toEqual([]);
      // And nothing listed that the host does not serve.
      const listed = [...doc.matchAll(/^\| `([A-Z]+ \/[^`]*)` +\|/gm)].map((m) => m[1]);
      expect(listed.length).toBe(routes.length);
      expect(listed.filter((r) => !routes.includes(r ?? ''))).toEqual([]);
    });
  });

  it('lists-every-event-the-stream-sends', () => {
    const src = readFileSync('src/http/sse.ts', 'utf8');
    const events = new Set([...src.matchAll(/broadcast\('([a-z_]+)'/g)].map((m) => m[1] ?? ''));
    expect(events.size).toBeGreaterThan(5);
    for (const e of events) expect(row(e).test(doc), e).toBe(true);
  });
});
