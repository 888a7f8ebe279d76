/**
 * Race lights: what the timers send and what the gates do with it, on one page. Each source
 * (RotorHazard's plugin, FPVTrackside's push) with its state and refused input; the live
 * pass counters and last flashes; the mapping of seats and timing systems to gates, the lap
 * flash and each phase's look, editable and saved to the host (validated there: a refusal
 * shows next to its field); a Test per gate. Follows the host live (race-lights-data.ts).
 * This file only lays the page out: the timers in SourceCards, the passes and flashes in
 * LivePasses, the settings in SettingsEditor (with GatesEditor, LapFlashEditor, PhasesEditor).
 */
import { useEffect } from 'preact/hooks';
import { link } from '../store.ts';
import { LivePasses } from './LivePasses.tsx';
import { follow, readAt, readError, view } from './race-lights-data.ts';
import { SettingsEditor } from './SettingsEditor.tsx';
import { SourceCards } from './SourceCards.tsx';
import { ago, useNow } from './time.ts';
import './race-lights.css';

export function RaceLightsPage() {
  useEffect(() => follow(), []);
  const v = view.value;
  const now = useNow();
  return (
    <main class="rl-page" id="main" data-testid="race-lights-page">
      <header class="rl-head">
        <h1>Race lights</h1>
        <span class="muted rl-fresh" data-testid="rl-fresh">
          {readError.value
            ? `Not current: ${readError.value}`
            : link.value === 'open'
              ? 'Live'
              : `Stream down: read ${ago(readAt.value, now)}, every 3 s`}
        </span>
      </header>
      {!v ? (
        <p class="muted">{readError.value ? `Loading failed: ${readError.value}` : 'Loading…'}</p>
      ) : (
        <>
          <SourceCards now={now} />
          <LivePasses v={v} now={now} />
          <SettingsEditor v={v} now={now} />
        </>
      )}
    </main>
  );
}
