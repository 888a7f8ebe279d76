// Vite config of the web UI: built into dist/ui and served by the host under its
// mount prefix. `base: './'` plus the `<base href>` the host injects lets one build
// work under any prefix.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));
const target = process.env.LIGHTNET_URL ?? 'http://127.0.0.1:5077';

export default defineConfig({
  root: here,
  base: './',
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
