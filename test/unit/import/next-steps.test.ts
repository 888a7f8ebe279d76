/** What the import CLI prints after writing: how to see the import (and not on the simulator). */
import { describe, expect, it } from 'vitest';
import { nextSteps, shellWord } from '../../../src/import-next-steps.ts';

describe('import next steps', () => {
  it('a clone importing into ./data: npm start, and the simulator folder named as ./data/simulator', () => {
    const text = nextSteps({ dataDir: 'data', racelinkDir: '/home/me/.racelink', bin: undefined, cwd: '/w' });
    expect(text).toContain('Next: start Lightnet on ./data with the radio gateway plugged in');
    expect(text).toContain('\n  npm start\n');
    expect(text).toContain('keeps its own state in ./data/simulator');
    expect(text).toContain('npm run import -- /home/me/.racelink --data-dir ./data/simulator');
  });

  it('another folder is named on the start line, quoted when it needs to be', () => {
    const text = nextSteps({ dataDir: '/srv/my data', racelinkDir: 'rl', bin: undefined, cwd: '/w' });
    expect(text).toContain("npm start -- --data-dir '/srv/my data'");
    expect(text).toContain("--data-dir '/srv/my data/simulator'");
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
  });

  it('a release names its own bin/lightnet; the service folder says to start the service', () => {
    const rel = nextSteps({
      dataDir: './d',
      racelinkDir: 'rl',
      bin: 'lightnet-0.1.0/bin/lightnet',
      cwd: '/w',
    });
    expect(rel).toContain('lightnet-0.1.0/bin/lightnet --data-dir ./d');
    expect(rel).toContain('lightnet-0.1.0/bin/lightnet import rl --data-dir ./d/simulator');
    const svc = nextSteps({ dataDir: '/var/lib/lightnet', racelinkDir: 'rl', bin: '/opt/x', cwd: '/w' });
    expect(svc).toContain('sudo systemctl start lightnet');
  });

  it('an import into a simulator folder says how to start that simulator', () => {
    const text = nextSteps({ dataDir: './data/simulator', racelinkDir: 'rl', bin: undefined, cwd: '/w' });
    expect(text).toContain("./data/simulator is the simulator's folder of a host started on ./data");
    expect(text).toContain('\n  npm start\n');
  });
});
