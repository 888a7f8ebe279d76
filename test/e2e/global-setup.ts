/**
 * Before the browser tests: make sure Debian's chromium is installed (the script
 * installs the package when missing) and build the UI bundle the host serves.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { build } from 'vite';

export default async function setup(): Promise<void> {
  execFileSync('sh', [join(process.cwd(), 'scripts', 'ensure-chromium.sh')], { stdio: 'inherit' });
  await build({ configFile: join(process.cwd(), 'ui', 'vite.config.ts'), logLevel: 'warn' });
}
