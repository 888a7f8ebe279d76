/**
 * Browser scenario for authoring: a native preset made in the library dialog, then a
 * scene with every common kind (preset, delay, offset group with a live formula
 * preview, SYNC) — cost estimate, save, run with per-action results, and stop.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withHost } from '../integration/harness.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';

let b: BrowserHandle;
beforeAll(async () => {
  b = await openBrowser();
});
afterAll(async () => {
  await b?.close();
});

describe('scenes page', () => {
  it('operator-authors-a-preset-and-a-scene-estimates-runs-and-stops-it', async () => {
    // Scaled real time (not the stepped clock): the 60 s delay below must still be
    // running (6 s of wall time) when the operator presses Stop.
    await withHost({ nodes: 6, seed: 3, timeScale: 0.1 }, async (h) => {
      // Two groups with devices in them (discovery is covered by the devices scenario).
      await h.post('/api/groups/create', { name: 'Left' });
      const d = await h.post<{ task: { id: number } }>('/api/discover', { targetGroupId: 1 });
      await h.waitTask(d.body.task.id);
      await h.post('/api/groups/create', { name: 'Right' });
      const page = b.page;
      await page.goto(h.url + '/');

      // A native preset from the library dialog: the effect decides which fields show.
      await page.getByRole('button', { name: 'Native presets' }).click();
      const lib = page.getByTestId('native-presets');
      await lib.getByLabel('Label').fill('Green Go');
      await lib.locator('select[name=mode]').selectOption({ label: '* Breathe' });
      await lib.getByText('Speed').waitFor();
      await lib.locator('input[name=color1]').fill('#00ff00');
      await lib.getByRole('button', { name: 'Create' }).click();
      await page.locator('.toast', { hasText: "Created preset 'Green Go'" }).waitFor();
      const presets = (
        await h.get<{ presets: { label: string; params: { mode: number; color1: number[] } }[] }>(
          '/api/native-presets',
        )
      ).body.presets;
      expect(presets).toMatchObject([{ label: 'Green Go', params: { mode: 2, color1: [0, 255, 0] } }]);
      await b.shot('09-native-presets');
      await lib.getByRole('button', { name: 'Close' }).click();

      // A new scene.
      await page.getByRole('link', { name: 'Scenes' }).click();
      await page.getByRole('button', { name: 'New scene', exact: true }).click();
      await page.getByLabel('Scene label').fill('Race Start');
      const add = async (label: string) => {
        await page.getByLabel('New action kind').selectOption({ label });
        await page.getByRole('button', { name: '+ Add', exact: true }).click();
      };
      await add('Apply Native Preset');
      const a0 = page.getByTestId('action-0');
      await a0.getByLabel('presetId').selectOption({ label: 'Green Go' });
      await a0.getByRole('radio', { name: 'Groups' }).check();
      // The Groups target starts empty: the operator picks the group.
      await a0.getByLabel('Add group').selectOption({ index: 1 });
      await a0
        .getByTestId('cost')
        .getByText(/1p · \d+B/)
        .waitFor();
      await add('Delay');
      await page.getByTestId('action-1').getByLabel('Delay ms').fill('400');
      await add('Offset Group');
      const a2 = page.getByTestId('action-2');
      await a2.getByRole('radio', { name: 'Groups' }).check();
      // The Groups target starts empty: the first group through the quick select, the
      // second through the multi-group picker.
      await a2.getByLabel('Add group').selectOption({ label: 'Left #1' });
      await a2.getByRole('button', { name: 'Pick multiple…' }).click();
      const pick = page.getByTestId('group-pick');
      await pick.getByLabel('Filter groups').fill('Rig');
      await pick.getByRole('button', { name: 'Select all hits', exact: true }).click();
      await pick.getByTestId('pick-count').getByText('2 selected (max 64)').waitFor();
      await pick.getByRole('button', { name: 'Apply' }).click();
      await a2
        .getByTestId('group-summary')
        .getByText(/^2 groups · \d+ devices?/)
        .waitFor();
      await a2.getByLabel('Step (ms)').fill('250');
      // The live formula preview: linear base + gid * step.
      await a2.getByTestId('offset-preview').getByText('gid 1 → 250 ms').waitFor();
      await a2.getByTestId('offset-preview').getByText('gid 2 → 500 ms').waitFor();
      await a2.getByRole('button', { name: '+ Add child' }).click();
      await add('SYNC (fire armed actions)');
      // The total of the whole draft (not one left from an earlier edit): preset 1, offsets 2, SYNC 1.
      await page
        .locator('[data-testid=total-cost][data-pending=false]', { hasText: /Total: 4p · \d+B/ })
        .waitFor();
      // One gateway: no scope selector and no fan-out (the editor is as it always was).
      expect(await page.getByTestId('scene-scope').count()).toBe(0);
      expect(await page.getByTestId('fan-out').count()).toBe(0);
      await page.getByTestId('timeline').waitFor();
      await page.getByRole('button', { name: /^Create/ }).click();
      await page.locator('.toast', { hasText: "Saved scene 'Race Start'" }).waitFor();
      const saved = (await h.get<{ scenes: { label: string; actions: { kind: string }[] }[] }>('/api/scenes'))
        .body.scenes;
      expect(saved[0]?.actions.map((a) => a.kind)).toEqual([
        'native_preset',
        'delay',
        'offset_group',
        'sync',
      ]);
      await b.shot('10-scene-editor');

      // Run: every card ends green, the Last run line appears with the measured times.
      await page.getByRole('button', { name: 'Run' }).click();
      await page
        .getByTestId('last-run')
        .getByText(/Last run: OK · 4 actions/)
        .waitFor({ timeout: 60_000 });
      for (let i = 0; i < 4; i++) await page.locator(`[data-testid=action-${i}].run-ok`).waitFor();
      await page
        .getByTestId('action-1')
        .getByText(/actual \d/)
        .waitFor();
      await b.shot('11-scene-run');

      // Stop: a long delay, run, then stop between actions.
      await add('Delay');
      await page.getByTestId('action-4').getByLabel('Delay ms').fill('60000');
      await page.getByRole('button', { name: 'Run' }).click();
      await page.locator('[data-testid=action-4].run-running').waitFor({ timeout: 60_000 });
      await page.getByRole('button', { name: 'Stop' }).click();
      await page
        .getByTestId('last-run')
        .getByText(/Last run: Stopped/)
        .waitFor({ timeout: 60_000 });
      await b.shot('12-scene-stopped');
      expect(b.errors).toEqual([]);
    });
  });
});
