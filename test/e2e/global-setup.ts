/**
 * Before the browser tests: make sure Debian's chromium and mosquitto are installed (the
 * scripts install the packages when missing) and build the UI bundle the host serves.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { build } from 'vite';

export default async function setup(): Promise<void> {
  execFileSync('sh', [join(process.cwd(), 'scripts', 'ensure-chromium.sh')], { stdio: 'inherit' });
  // The Integrations page's test runs a real MQTT broker.
  execFileSync('sh', [join(process.cwd(), 'scripts', 'ensure-mosquitto.sh')], { stdio: 'inherit' });
  await build({ configFile: join(process.cwd(), 'ui', 'vite.config.ts'), logLevel: 'warn' });
}
