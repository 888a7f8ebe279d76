/**
 * The console settings every browser shares (race mode, pinned scenes, battery warning
 * level, acknowledged alerts): GET/PATCH /api/console over HTTP, validation that names the
 * field, a restart against the same data dir, an old (version 2) state file, and a second
 * browser's live stream hearing of a change.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConsoleSettings } from '../../../src/domain/console-settings.ts';
import { withHost, type Harness, type SseEvent } from '../harness.ts';
import { call } from './library-helpers.ts';
import { testTempDir } from '../../temp-dir.ts';

interface ConsoleAnswer {
  ok: boolean;
  console: ConsoleSettings;
  changed?: string[];
  error?: string;
}

const DEFAULTS: ConsoleSettings = {
  race_mode: false,
  pinned_scenes: [],
  battery: { warnPerCell: 3.4 },
  acknowledged_alerts: [],
};

const read = async (h: Harness): Promise<ConsoleSettings> => {
  const r = await h.get<ConsoleAnswer>('/api/console');
  expect(r.status).toBe(200);
  return r.body.console;
};

async function scene(h: Harness, label: string): Promise<string> {
  const r = await h.post<{ scene: { key: string } }>('/api/scenes', { label, actions: [] });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.scene.key;
}

const hasConsole = (d: unknown): boolean => (d as { what: string[] }).what.includes('console');

describe('console settings', () => {
  it('get-and-patch-with-validation-errors-naming-the-field', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      expect(await read(h)).toEqual(DEFAULTS);
      const start = await scene(h, 'Start lights');
      const idle = await scene(h, 'Idle');

      const on = await h.patch<ConsoleAnswer>('/api/console', {
        race_mode: true,
        pinned_scenes: [idle, start],
        battery: { warnPerCell: 3.55 },
      });
      expect(on.status, JSON.stringify(on.body)).toBe(200);
      expect(on.body.console).toEqual({
        race_mode: true,
        pinned_scenes: [idle, start],
        battery: { warnPerCell: 3.55 },
        acknowledged_alerts: [],
      });
      expect(on.body.changed).toEqual(['race_mode', 'pinned_scenes', 'battery']);
      const after = await read(h);

      const refused: [unknown, RegExp][] = [
        [{ race_mode: true, colour: 'red' }, /^colour: unknown field$/],
        [{ race_mode: 'yes' }, /^race_mode: must be true or false$/],
        [{ pinned_scenes: [start, 'nope'] }, /^pinned_scenes\[1\]: no scene with key 'nope'$/],
        [{ pinned_scenes: [start, start] }, /^pinned_scenes\[1\]: 'start_lights' is pinned twice$/],
        [{ pinned_scenes: Array.from({ length: 10 }, () => start) }, /^pinned_scenes: must hold at most 9/],
        [{ pinned_scenes: [7] }, /^pinned_scenes\[0\]: must be a scene key/],
        [{ battery: { warnPerCell: 5 } }, /^battery\.warnPerCell: must be <= 4$/],
        [{ battery: { warnPerCell: 2.5 } }, /^battery\.warnPerCell: must be >= 3$/],
        [{ battery: { warnPerCell: 3.5, warn2s: 7 } }, /^battery\.warn2s: unknown field$/],
        [{ battery: {} }, /^battery\.warnPerCell: is required$/],
        [{ acknowledged_alerts: [''] }, /^acknowledged_alerts\[0\]: must not be empty$/],
        [
          { acknowledge: Array.from({ length: 1001 }, (_, i) => `x:${i}`) },
          /^acknowledge: must hold at most/,
        ],
        [{}, /^body: no setting given/],
      ];
      for (const [body, error] of refused) {
        const r = await h.patch<ConsoleAnswer>('/api/console', body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.body).toMatchObject({ ok: false, error: expect.stringMatching(error) });
      }
      // Nothing refused changed anything.
      expect(await read(h)).toEqual(after);

      // A change from another origin is refused like every other state-changing request.
      const foreign = await h.patch(
        '/api/console',
        { race_mode: false },
        {
          headers: { origin: 'http://evil.example' },
        },
      );
      expect(foreign.status).toBe(403);
      expect((await read(h)).race_mode).toBe(true);

      // Acknowledgements: add and remove by key, so two browsers never overwrite each other.
      await h.patch('/api/console', { acknowledge: ['offline:AAAAAA', 'battery:BBBBBB'] });
      await h.patch('/api/console', { acknowledge: ['weak_link:CCCCCC', 'offline:AAAAAA'] });
      await h.patch('/api/console', { unacknowledge: ['battery:BBBBBB'] });
      expect((await read(h)).acknowledged_alerts).toEqual(['offline:AAAAAA', 'weak_link:CCCCCC']);
      // The list keeps the newest 1000.
      const many = Array.from({ length: 1000 }, (_, i) => `offline:${i.toString(16).padStart(6, '0')}`);
      await h.patch('/api/console', { acknowledged_alerts: many });
      const bounded = await h.patch<ConsoleAnswer>('/api/console', { acknowledge: ['ap_open:DDDDDD'] });
      expect(bounded.body.console.acknowledged_alerts).toHaveLength(1000);
      expect(bounded.body.console.acknowledged_alerts[0]).toBe(many[1]);
      expect(bounded.body.console.acknowledged_alerts.at(-1)).toBe('ap_open:DDDDDD');

      // The same value again is no change.
      const same = await h.patch<ConsoleAnswer>('/api/console', { race_mode: true });
      expect(same.status).toBe(200);
      expect(same.body.changed).toEqual([]);

      // A deleted scene's pin is left out.
      expect((await call(h, 'DELETE', `/api/scenes/${idle}`)).status).toBe(200);
      expect((await read(h)).pinned_scenes).toEqual([start]);
    });
  });

  it('needs-a-login-when-the-host-has-a-password', async () => {
    await withHost({ nodes: 0, password: 's3cret' }, async (h) => {
      expect((await h.get('/api/console')).status).toBe(401);
      expect((await h.patch('/api/console', { race_mode: true })).status).toBe(401);
      const auth = { headers: { authorization: 'Bearer s3cret' } };
      const r = await h.patch<ConsoleAnswer>('/api/console', { race_mode: true }, auth);
      expect(r.status).toBe(200);
      expect(r.body.console.race_mode).toBe(true);
    });
  });

  it('settings-survive-a-host-restart', async () => {
    const dataDir = await testTempDir('lightnet-console-');
    let expected: ConsoleSettings = DEFAULTS;
    await withHost({ nodes: 0, dataDir }, async (h) => {
      const key = await scene(h, 'Countdown');
      const r = await h.patch<ConsoleAnswer>('/api/console', {
        race_mode: true,
        pinned_scenes: [key],
        battery: { warnPerCell: 3.3 },
        acknowledge: ['offline:ABCDEF'],
      });
      expect(r.status).toBe(200);
      expected = r.body.console;
    });
    const file = JSON.parse(await readFile(join(dataDir, 'state.json'), 'utf8')) as {
      schema_version: number;
      console: ConsoleSettings;
    };
    expect(file.schema_version).toBe(4);
    expect(file.console).toEqual(expected);
    await withHost({ nodes: 0, dataDir }, async (h) => {
      expect(await read(h)).toEqual(expected);
    });
  });

  it('a-version-2-state-file-loads-with-default-console-settings', async () => {
    const dataDir = await testTempDir('lightnet-console-v2-');
    await writeFile(
      join(dataDir, 'state.json'),
      JSON.stringify({
        schema_version: 2,
        devices: [],
        groups: [{ id: 1, name: 'Start', dev_type: 0 }],
        native_presets: [],
        scenes: [],
        settings: { led_presets_file: null },
      }),
    );
    await withHost({ nodes: 0, dataDir }, async (h) => {
      expect(await read(h)).toEqual(DEFAULTS);
      const groups = (await h.get<{ groups: { name: string }[] }>('/api/groups')).body.groups;
      expect(groups.map((g) => g.name)).toContain('Start');
      expect((await h.get<{ warnings: string[] }>('/api/health')).body.warnings ?? []).toEqual(
        expect.not.arrayContaining([expect.stringMatching(/state/)]),
      );
      expect((await h.patch('/api/console', { race_mode: true })).status).toBe(200);
    });
    await withHost({ nodes: 0, dataDir }, async (h) => {
      expect((await read(h)).race_mode).toBe(true);
    });
  });

  it('a-second-browser-stream-hears-of-a-change-and-contract-streams-do-not', async () => {
    await withHost({ nodes: 0 }, async (h) => {
      const first = await h.sse('console=1');
      const second = await h.sse('console=1');
      const contract = await h.sse();
      await Promise.all([first, second, contract].map((s) => s.waitFor('master')));

      const r = await h.patch<ConsoleAnswer>('/api/console', { race_mode: true });
      expect(r.status).toBe(200);
      const answered = Date.now();
      // Both opted-in streams get the token within a second of the answer (sent at the change).
      await Promise.all([first, second].map((s) => s.waitFor('refresh', hasConsole, 1000)));
      expect(Date.now() - answered).toBeLessThan(1000);
      // What the second browser then reads is the change.
      expect((await read(h)).race_mode).toBe(true);

      // A later contract change reaches the contract stream; nothing before it named `console`.
      await h.post('/api/groups/create', { name: 'After' });
      const has = (t: string) => (d: unknown) => (d as { what: string[] }).what.includes(t);
      await contract.waitFor('refresh', has('groups'));
      await second.waitFor('refresh', has('groups'));
      const refreshes = (s: { events: SseEvent[] }) => s.events.filter((e) => e.event === 'refresh');
      expect(refreshes(contract).map((e) => e.data)).toEqual([{ what: ['groups'] }]);
      // Opted-in streams still get the contract tokens.
      expect(refreshes(second).some((e) => has('groups')(e.data))).toBe(true);
    });
  });
});
