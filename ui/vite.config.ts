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
  },
  // `npm run dev:ui` against a running host (default port 5077, prefix /lightnet).
  server: { proxy: { '/lightnet/api': target, '/lightnet/sse': target } },
});
