// Vite config of the web UI: built into dist/ui and served by the host under its
// mount prefix. `base: './'` plus the `<base href>` the host injects lets one build
// work under any prefix.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { defineConfig } from 'vite';
import { earlyScript } from './src/early.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const target = process.env.LIGHTNET_URL ?? 'http://127.0.0.1:5077';
const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

/**
 * Every module the entry (src/main.tsx) reaches by static imports, filled by the plugin
 * below once the graph is known: they make one chunk, the entry's own, so a first open
 * downloads one script (the pages and dialogs loaded on demand share chunks of their own).
 */
const firstScreen = new Set<string>();

export default defineConfig({
  root: here,
  base: './',
  plugins: [
    {
      // The first lists leave while the bundle downloads (see src/early.ts). First in the
      // head: after the stylesheet's link it would wait for the styles to arrive (a script
      // does), and the browser's preload scanner asks for the bundle and styles anyway
      // before this runs.
      name: 'lightnet-early-lists',
      transformIndexHtml: {
        order: 'post',
        handler: () => [{ tag: 'script', children: earlyScript(), injectTo: 'head-prepend' }],
      },
    },
    {
      name: 'lightnet-first-screen',
      apply: 'build',
      buildStart() {
        firstScreen.clear(); // a second build in the same process (bench/ui.ts, the e2e setup)
      },
      buildEnd() {
        const entry = [...this.getModuleIds()].find((id) => this.getModuleInfo(id)?.isEntry);
        const todo = entry ? [entry] : [];
        for (let id = todo.pop(); id !== undefined; id = todo.pop()) {
          if (firstScreen.has(id)) continue;
          firstScreen.add(id);
          todo.push(...(this.getModuleInfo(id)?.importedIds ?? []));
        }
      },
    },
    {
      // Each hashed script and stylesheet also as .br and .gz at the highest levels (once
      // per build, not per host start or first request): src/http/ui-static.ts serves them.
      name: 'lightnet-precompress',
      apply: 'build',
      async writeBundle(out, bundle) {
        const files = Object.keys(bundle).filter((f) => /^assets\/.*\.(js|css|svg)$/.test(f));
        for (const f of files) {
          const path = join(out.dir!, f);
          const body = await readFile(path);
          if (body.length < 1024) continue; // the host sends these uncompressed
          await writeFile(
            `${path}.br`,
            await brotli(body, {
              params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length },
            }),
          );
          await writeFile(`${path}.gz`, await gz(body, { level: 9 }));
        }
      },
    },
  ],
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: true,
    // One stylesheet, as before the split: some pages' rules serve other pages' dialogs too.
    cssCodeSplit: false,
    // The lazy chunks load when the page is idle (common/lazy.ts), so vite's preload helper
    // (link tags for each chunk's imports) would only add work to the first screen's script.
    modulePreload: false,
    rolldownOptions: {
      output: { codeSplitting: { groups: [{ name: 'index', test: (id: string) => firstScreen.has(id) }] } },
    },
  },
  // `npm run dev:ui` against a running host (default port 5077, prefix /lightnet).
  server: { proxy: { '/lightnet/api': target, '/lightnet/sse': target } },
});
