/**
 * Region + channel from the firmware's table (`GET /api/channels`): each channel with its
 * frequency and note; a channel another network occupies (on it or too close to it) is
 * greyed and names that network — the host would refuse it with a 400 naming both.
 */
import { useEffect, useState } from 'preact/hooks';
import { REGIONS, errorText, loadChannels, type ChannelTable, type Region } from './network-api.ts';

export interface ChannelChoice {
  region: Region;
  channel_id: number | null;
}

export function ChannelPicker({
  value,
  onChange,
  selfId,
}: {
  value: ChannelChoice;
  onChange: (c: ChannelChoice) => void;
  /** The network being moved: its own channel is not "occupied" by someone else. */
  selfId?: number;
}) {
  const [table, setTable] = useState<ChannelTable | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    loadChannels()
      .then(setTable)
      .catch((err) => setError(errorText(err)));
  }, []);
  const rows = table?.regions[value.region] ?? [];
  return (
    <fieldset class="net-channels" data-testid="channel-picker">
      <legend>Channel</legend>
      <label class="check">
        Region{' '}
        <select
          aria-label="Region"
          value={value.region}
          onChange={(e) => onChange({ region: e.currentTarget.value as Region, channel_id: null })}
        >
          {REGIONS.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </label>
      {error && (
        <p class="error-text" role="alert">
          {error}
        </p>
      )}
      {!table && !error && <p class="muted">Loading channels…</p>}
      <div class="net-channel-list" role="radiogroup" aria-label="Channel">
        {rows.map((c) => {
          const by = c.occupied_by && c.occupied_by.id !== selfId ? c.occupied_by : null;
          const mine = c.occupied_by !== null && c.occupied_by.id === selfId;
          return (
            <label
              key={c.id}
              class={`check net-channel${by ? ' occupied' : ''}`}
              data-testid={`channel-${c.id}`}
              title={c.note}
            >
              <input
                type="radio"
                name="channel"
                value={c.id}
                disabled={by !== null || mine}
                checked={value.channel_id === c.id}
                onChange={() => onChange({ region: value.region, channel_id: c.id })}
              />
              {/* One block beside the radio: on a phone the note wraps under its own channel's
                  text, never to the left edge where it read as the next channel's. */}
              <span class="net-channel-text">
                <strong>ch {c.id}</strong> {c.name} ·{' '}
                <span class="mono">{(c.freq_hz / 1e6).toFixed(1)} MHz</span>
                {by && <span class="muted net-channel-note"> — used by {by.name}</span>}
                {mine && <span class="muted net-channel-note"> — this network now</span>}
              </span>
            </label>
          );
        })}
      </div>
      {table?.rule.text && <p class="muted small">Rule: {table.rule.text}.</p>}
    </fieldset>
  );
}
