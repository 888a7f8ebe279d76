/**
 * Before the browser tests: make sure Debian's chromium and mosquitto are installed (the
 * scripts install the packages when missing) and build the UI bundle the host serves.
 *
 * The bundle is built as `npm run build:ui` builds it, for production: vitest runs with
 * NODE_ENV=test, which Vite would otherwise take over into the bundle (dependencies keep
 * their development code: 128 KB of script instead of 106), so the tests drove a bundle no
 * user gets, and a benchmark run after them measured it.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { build } from 'vite';

export default async function setup(): Promise<void> {
  execFileSync('sh', [join(process.cwd(), 'scripts', 'ensure-chromium.sh')], { stdio: 'inherit' });
  // The Integrations page's test runs a real MQTT broker.
  execFileSync('sh', [join(process.cwd(), 'scripts', 'ensure-mosquitto.sh')], { stdio: 'inherit' });
  const env = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      configFile: join(process.cwd(), 'ui', 'vite.config.ts'),
      logLevel: 'warn',
      mode: 'production',
    });
  } finally {
    process.env.NODE_ENV = env;
  }
}
