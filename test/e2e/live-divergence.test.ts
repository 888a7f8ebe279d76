/**
 * Browser scenarios for state that changes under the operator's feet: a device option
 * changed on the node itself (its live value diverges from the host's stored one:
 * badge, banner, import), and a scene edited elsewhere while the editor holds unsaved
 * edits (the changed-elsewhere prompt, never a silent overwrite). Waits are on UI state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withHost, type Harness } from '../integration/harness.ts';
import { discoverAll } from '../integration/host/helpers.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';

let b: BrowserHandle;
beforeAll(async () => {
  b = await openBrowser();
});
afterAll(async () => {
  await b?.close();
});

type Specials = Record<string, unknown>;
const storedOf = async (h: Harness, addr: string): Promise<Specials> =>
  (await h.get<{ devices: { addr: string; specials?: Specials }[] }>('/api/devices')).body.devices.find(
    (d) => d.addr === addr,
  )?.specials ?? {};

/** A change made by someone else (another tab, another operator, a script). */
async function elsewhere(h: Harness, method: 'PUT' | 'DELETE', path: string, body?: unknown): Promise<void> {
  const res = await fetch(h.url + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status).toBe(200);
}

describe('live divergence', () => {
  it('operator-sees-a-device-option-changed-on-the-node-and-imports-it', async () => {
    await withHost({ nodes: 2, seed: 5 }, async (h) => {
      await discoverAll(h);
      const node = h.host.sim?.fleet.nodes.find((n) => n.isPowered);
      if (!node || !h.host.sim) throw new Error('no simulated node');
      const page = b.page;
      await page.goto(h.url + '/');
      const row = page.locator(`[role=row][data-addr="${node.addr}"]`);
      await row.waitFor();
      await row.locator('button.chip').click();
      const opts = page.getByTestId('options-dialog');
      const fps = opts.getByTestId('live-led_fps');
      await fps.getByText('device: 75 ✓').waitFor({ timeout: 60_000 });
      // (The segment geometry may differ already: the node's own default.)
      expect(
        await opts
          .getByTestId('divergence-summary')
          .getByText(/Target Refresh Rate/)
          .count(),
      ).toBe(0);

      // Someone changes the refresh rate on the node itself (its own web UI).
      const sim = h.host.sim;
      sim.fleet.sched.runExternal(() => {
        node.overrides.fps = 42;
      });
      await opts.getByRole('button', { name: 'Read device config' }).click();
      await fps.getByTestId('diverge-badge').getByText('⚠ differs').waitFor({ timeout: 60_000 });
      await fps.getByText('device: 42').waitFor();
      const summary = opts.getByTestId('divergence-summary');
      await summary.getByText(/Target Refresh Rate/).waitFor();
      await expect.poll(async () => opts.locator('.opt-row.diverges').count()).toBeGreaterThan(0);
      await b.shot('19-option-diverges');
      expect((await storedOf(h, node.addr)).led_fps).toBe(75);

      // Import adopts the node's value on the host, no radio: the badge resolves.
      await fps.getByRole('button', { name: 'Import device' }).click();
      await page.locator('.toast', { hasText: /Imported Target Refresh Rate \(fps\) = 42/ }).waitFor();
      await fps.getByText('device: 42 ✓').waitFor();
      await opts.getByTestId('opt-led_fps').getByText('stored: 42').waitFor();
      expect((await storedOf(h, node.addr)).led_fps).toBe(42);
      // Whatever else differed was adopted with the banner's one button.
      if ((await summary.count()) > 0) {
        await summary.getByRole('button', { name: 'Import all from device' }).click();
        await summary.waitFor({ state: 'detached' });
      }
      expect(await opts.getByTestId('diverge-badge').count()).toBe(0);
      await b.shot('20-option-imported');
      await opts.getByRole('button', { name: 'Close' }).first().click();
      expect(b.errors).toEqual([]);
      // Leave before the host shuts down: its last answers (503) are not this page's errors.
      await page.goto('about:blank');
    });
  });

  it('operator-editing-a-scene-is-told-it-changed-elsewhere-and-chooses', async () => {
    await withHost({ nodes: 1, seed: 3 }, async (h) => {
      const created = await h.post<{ scene: { key: string } }>('/api/scenes', {
        label: 'Warm Up',
        actions: [{ kind: 'delay', duration_ms: 500 }],
      });
      const key = created.body.scene.key;
      const page = b.page;
      await page.goto(h.url + '/scenes');
      const label = page.getByLabel('Scene label');
      await expect.poll(() => label.inputValue()).toBe('Warm Up');

      // No local edits: a change elsewhere is simply loaded.
      await elsewhere(h, 'PUT', `/api/scenes/${key}`, { label: 'Warm Up 2' });
      await page.locator('.toast', { hasText: "'Warm Up 2' was changed elsewhere: reloaded" }).waitFor();
      await expect.poll(() => label.inputValue()).toBe('Warm Up 2');
      expect(await page.getByTestId('scene-conflict').count()).toBe(0);

      // Unsaved edits here, then another change there: the prompt, Save held back.
      await label.fill('Warm Up (mine)');
      await elsewhere(h, 'PUT', `/api/scenes/${key}`, {
        actions: [{ kind: 'delay', duration_ms: 500 }, { kind: 'sync' }],
      });
      const prompt = page.getByTestId('scene-conflict');
      await prompt.getByText(/Changed elsewhere.*1 action added/).waitFor();
      expect(await page.getByRole('button', { name: /^Save/ }).isDisabled()).toBe(true);
      await b.shot('21-scene-changed-elsewhere');

      // Keep mine: the edit stays and Save overwrites knowingly.
      await prompt.getByRole('button', { name: 'Keep mine' }).click();
      await prompt.waitFor({ state: 'detached' });
      // Unsaved edits survive a trip to the Devices page (the nav marks them).
      await page.getByRole('link', { name: 'Devices' }).click();
      await page.getByTestId('device-table').waitFor();
      await page.getByRole('link', { name: /Scenes.*unsaved/ }).click();
      await expect.poll(() => label.inputValue()).toBe('Warm Up (mine)');
      await page.getByRole('button', { name: /^Save/ }).click();
      await page.locator('.toast', { hasText: "Saved scene 'Warm Up (mine)'" }).waitFor();
      const mine = await h.get<{ scene: { label: string; actions: unknown[] } }>(`/api/scenes/${key}`);
      expect(mine.body.scene).toMatchObject({ label: 'Warm Up (mine)', actions: [{ kind: 'delay' }] });

      // Reload theirs: local edits give way to the stored version.
      await label.fill('Throwaway');
      await elsewhere(h, 'PUT', `/api/scenes/${key}`, { label: 'Theirs' });
      await prompt.getByText(/Changed elsewhere \(label\)/).waitFor();
      await prompt.getByRole('button', { name: 'Reload theirs' }).click();
      await expect.poll(() => label.inputValue()).toBe('Theirs');

      // Deleted elsewhere while edited: keep it as a new scene.
      await label.fill('Rescued');
      await elsewhere(h, 'DELETE', `/api/scenes/${key}`);
      await prompt.getByText(/Deleted elsewhere/).waitFor();
      await prompt.getByRole('button', { name: 'Keep as a new scene' }).click();
      await page.getByRole('button', { name: 'Create' }).click();
      await page.locator('.toast', { hasText: "Saved scene 'Rescued'" }).waitFor();
      const all = await h.get<{ scenes: { label: string }[] }>('/api/scenes');
      expect(all.body.scenes.map((s) => s.label)).toEqual(['Rescued']);
      expect(b.errors).toEqual([]);
      // Leave before the host shuts down: its last answers (503) are not this page's errors.
      await page.goto('about:blank');
    });
  });
});
