import { describe, expect, it } from 'vitest';
import { progressView } from '../../../ui/src/common/task-progress.ts';
import { rfTaskEnd, rfTaskMessage } from '../../../ui/src/networks/rf-task-words.ts';
import type { Task } from '../../../ui/src/types.ts';

const task = (over: Partial<Task>): Task => ({
  id: 7,
  name: 'rf_migration',
  state: 'running',
  started_ts: 0,
  ended_ts: null,
  meta: {},
  last_error: null,
  result: null,
  ...over,
});

describe('RF tasks in words', () => {
  it('names the stage of a move, a scan and a rescue as an operator reads it', () => {
    expect(rfTaskMessage(task({ meta: { stage: 'push', index: 10, total: 150 } }), 'Channel move')).toBe(
      'Channel move: telling the nodes their new channel',
    );
    expect(
      rfTaskMessage(
        task({ name: 'channel_scan', meta: { stage: 'listen', channel: 'EU868 ch 4 · 869.2 MHz' } }),
        'Channel scan',
      ),
    ).toBe('Channel scan: listening for nodes · EU868 ch 4 · 869.2 MHz');
    expect(rfTaskMessage(task({ name: 'rf_rescue', meta: { stage: 'home' } }), 'Bring home')).toBe(
      'Bring home: waiting for the nodes to come home',
    );
    // The status bar's phase.
    expect(progressView(task({ meta: { stage: 'rebind', index: 3, total: 8 } }), 0).phase).toBe(
      'putting the nodes back into their groups',
    );
  });

  it('sums up how each ended, and says when nodes were left behind', () => {
    const moved = (summary: Record<string, number>) =>
      rfTaskEnd('rf_migration', {
        network_name: 'Track B',
        to: { channel: 'EU868 ch 3 · 868.7 MHz' },
        summary,
      });
    expect(moved({ devices: 3, rebound: 3, not_moved: 0, stranded: 0, skipped_offline: 0 })).toEqual({
      text: 'Moved Track B to EU868 ch 3 · 868.7 MHz: 3 of 3 back in their groups',
      ok: true,
    });
    expect(moved({ devices: 4, rebound: 2, not_moved: 1, stranded: 0, skipped_offline: 1 })).toEqual({
      text: 'Moved Track B to EU868 ch 3 · 868.7 MHz: 2 of 4 back in their groups, 1 offline left behind, 1 not moved or stranded',
      ok: false,
    });
    expect(
      rfTaskEnd('channel_scan', { returned_home: true, summary: { channels: 4, known: 1, unknown: 2 } }),
    ).toEqual({ text: 'Channel scan: 4 channels, 1 known and 2 unknown nodes heard', ok: true });
    expect(rfTaskEnd('channel_scan', { returned_home: false, summary: {} }).ok).toBe(false);
    expect(rfTaskEnd('rf_rescue', { nodes: [{ outcome: 'home' }, { outcome: 'no_bind' }] })).toEqual({
      text: 'Bring home: 1 of 2 back in their group',
      ok: false,
    });
  });
});
