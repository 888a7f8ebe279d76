import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'vite';
import { withHost } from '../test/integration/harness.ts';
import { openBrowser } from '../test/e2e/browser.ts';
import { fleetState } from '../bench/fleet-state.ts';
import { serializeState } from '../src/state/migrations.ts';
await build({ configFile: join(process.cwd(), 'ui', 'vite.config.ts'), logLevel: 'warn' });
const d = await mkdtemp(join(tmpdir(), 'x'));
const s = fleetState(300, 16);
s.devices.forEach((x, i) => { x.name = `Gate ${String(i + 1).padStart(3, '0')}`; x.voltage_mV = [0, 3900, 7600, 22800, 3300][i % 5]!; x.node_rssi = -70; x.node_snr = 5; x.host_snr = 3; x.version = 2; x.online = i % 4 !== 0; });
await writeFile(join(d, 'state.json'), serializeState(s));
const pages = (process.argv[2] ?? '').split(',').filter(Boolean);
for (const w of [1280, 1024, 390]) {
  const b = await openBrowser({ width: w, height: w === 390 ? 844 : w === 1024 ? 768 : 800 });
  await withHost({ nodes: 3, dataDir: d }, async (h) => {
    for (const p of ['', ...pages]) {
      await b.page.goto(h.url + '/' + p);
      await new Promise((r) => setTimeout(r, 1500));
      const sw = await b.page.evaluate('document.documentElement.scrollWidth');
      console.log(w, p || 'devices', 'scrollWidth', sw, b.errors);
      await b.page.screenshot({ path: `/tmp/i20/${p || 'devices'}-${w}.png` });
    }
  });
  await b.close();
}
