/**
 * The sources the host knows. Each has a class (its default priority) and says whether it is
 * external (its commands are written to the Log and rate-limited) and whether an HTTP caller may
 * name it in `X-Lightnet-Source`. Adapters (OSC, …) register their own at start.
 */
import type { SourceClass } from './types.ts';

export interface SourceInfo {
  id: string;
  sourceClass: SourceClass;
  label: string;
  /** Not the operator's own UI: each command is a Log line and draws from a rate-limit bucket. */
  external: boolean;
  /** An HTTP request may claim this source with `X-Lightnet-Source`. */
  http: boolean;
}

/** The header an HTTP caller names its source with (absent: the operator's UI). */
export const SOURCE_HEADER = 'x-lightnet-source';

export const BLACKOUT_SOURCE = 'blackout';
export const OPERATOR_SOURCE = 'ui';

export const BUILTIN_SOURCES: readonly SourceInfo[] = [
  { id: BLACKOUT_SOURCE, sourceClass: 'blackout', label: 'Blackout', external: false, http: false },
  { id: OPERATOR_SOURCE, sourceClass: 'operator', label: 'Operator (UI)', external: false, http: true },
  { id: 'api', sourceClass: 'operator', label: 'HTTP API client', external: true, http: true },
  {
    id: 'live',
    sourceClass: 'live',
    label: 'Live control',
    external: true,
    http: true,
  },
  { id: 'show', sourceClass: 'automation', label: 'Show script', external: true, http: true },
  { id: 'rotorhazard', sourceClass: 'race', label: 'RotorHazard', external: true, http: false },
  { id: 'fpvtrackside', sourceClass: 'race', label: 'FPVTrackside', external: true, http: false },
];

/** Sources that cannot be switched off: the operator and Blackout must always work. */
export const ALWAYS_ON: ReadonlySet<string> = new Set([BLACKOUT_SOURCE, OPERATOR_SOURCE]);
