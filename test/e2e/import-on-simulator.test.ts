/**
 * An import on the command line, then the host started with no gateway (issue 35, item 4):
 * the host runs on the simulator, whose own folder does not hold the import. The CLI says
 * so and how to see it; the simulator's banner names what the real folder holds and how to
 * use it or practise with it — on a desktop and on a phone, with Blackout still in reach.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withHost } from '../integration/harness.ts';
import { CLUB } from '../unit/import/racelink-files.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'lightnet-import-sim-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('an import on the command line, then the simulator', () => {
  it('the-cli-says-how-to-see-it-and-the-simulator-banner-names-it', { timeout: 120_000 }, async () => {
    const dataDir = join(root, 'data');
    const simDir = join(dataDir, 'simulator');
    const { stdout } = await promisify(execFile)(process.execPath, [
      ...['--import', 'tsx', 'src/import-cli.ts', CLUB, '--data-dir', dataDir],
    ]);
    expect(stdout).toContain('Imported and saved.');
    expect(stdout).toContain(`Next: start Lightnet on ${dataDir} with the radio gateway plugged in`);
    expect(stdout).toContain(`npm start -- --data-dir ${dataDir}`);
    expect(stdout).toContain(`keeps its own state in ${simDir}`);
    expect(stdout).toContain(`npm run import -- ${CLUB} --data-dir ${simDir}`);

    await mkdir(simDir, { recursive: true });
    await withHost({ nodes: 3, dataDir, simDataDir: simDir }, async (h) => {
      for (const [width, height] of [
        [1280, 800],
        [390, 844],
      ] as const) {
        const b: BrowserHandle = await openBrowser({ width, height });
        try {
          await b.page.goto(h.url + '/');
          const real = b.page.getByTestId('sim-real-folder');
          await real.waitFor();
          const text = (await real.textContent()) ?? '';
          expect(text).toContain(`The real data folder ${dataDir} holds 24 devices, 4 groups and 5 scenes`);
          expect(text).toContain('not shown on the simulator: plug in the gateway and restart the host');
          expect(text).toContain('Settings → Import from RaceLink');
          await b.page.getByTestId('sim-data-dir').getByText(simDir, { exact: true }).waitFor();
          expect(await b.page.getByTestId('banner-sim').textContent()).toContain(
            `kept in ${simDir}, apart from the real data folder.`,
          );
          await b.shot(`import-on-simulator-${width}`);
          // Nothing sticks out sideways on a phone, and Blackout is on screen.
          const overflow = await b.page.evaluate<number>(
            'document.documentElement.scrollWidth - document.documentElement.clientWidth',
          );
          expect(overflow).toBeLessThanOrEqual(0);
          const blackout = await b.page
            .getByRole('button', { name: /blackout/i })
            .first()
            .boundingBox();
          expect(blackout).not.toBeNull();
          expect((blackout?.y ?? 0) + (blackout?.height ?? 0)).toBeLessThanOrEqual(height);
          // Importing in this host's web UI says where that import goes.
          await b.page.getByRole('button', { name: 'Settings' }).click();
          await b.page.getByTestId('racelink-import-open').click();
          const note = (await b.page.getByTestId('import-simulator-note').textContent()) ?? '';
          expect(note).toContain(`an import here goes into its own folder ${simDir}`);
          expect(note).toContain(`the real data folder ${dataDir} is not changed`);
          await b.shot(`import-on-simulator-dialog-${width}`);
          expect(b.errors).toEqual([]);
        } finally {
          await b.close();
        }
      }
    });
  });

  it('a-simulator-on-the-real-folder-itself-says-so', { timeout: 60_000 }, async () => {
    // --sim-data-dir naming the real folder (as every other test host runs).
    await withHost({ nodes: 1 }, async (h) => {
      const b = await openBrowser({ width: 1280, height: 800 });
      try {
        await b.page.goto(h.url + '/');
        await b.page.getByTestId('sim-data-dir').getByText(h.dataDir, { exact: true }).waitFor();
        const text = (await b.page.getByTestId('banner-sim').textContent()) ?? '';
        expect(text).toContain(`kept in ${h.dataDir}, the real data folder itself (--sim-data-dir names it)`);
        expect(text).not.toContain('apart');
      } finally {
        await b.close();
      }
    });
  });
});
