/**
 * Race lights settings name things that live elsewhere in the host: groups, devices and
 * scenes. The schema checks their shape; this checks that they exist, so a mapping that
 * could never light anything is refused when it is saved (a 400 naming the field), not
 * discovered as a dark gate on race day.
 */
import { ValidationError } from '../../../errors.ts';
import type { Gate, RaceLightsSettings } from './settings.ts';
import { COUNTDOWN_PHASES, PHASES } from './settings.ts';

/** What the settings may refer to: the host's current groups, devices and scenes. */
export interface TargetCatalog {
  groupExists(id: number): boolean;
  deviceExists(addr: string): boolean;
  sceneExists(key: string): boolean;
  /** The scene holds only native effects (a countdown look is armed ahead and fired by a SYNC). */
  sceneArmable(key: string): boolean;
}

/** Timer seats the plugin's panel offers (RotorHazard's nodes 1–8 are seats 0–7). */
export const SEATS = 8;

export function gateProblem(g: Gate | null, catalog: TargetCatalog): string | null {
  if (g === null || g.kind === 'broadcast') return null;
  if (g.kind === 'group') return catalog.groupExists(g.value) ? null : `no group ${g.value}`;
  return catalog.deviceExists(g.value) ? null : `no device ${g.value}`;
}

/** Throws a ValidationError naming the first field that refers to nothing (or a seat out of range). */
export function checkTargets(s: RaceLightsSettings, catalog: TargetCatalog): void {
  const fail = (field: string, msg: string): never => {
    throw new ValidationError(`${field}: ${msg}`);
  };
  const gate = (field: string, g: Gate | null): void => {
    const p = gateProblem(g, catalog);
    if (p) fail(field, p);
  };
  gate('all_seats_gate', s.all_seats_gate);
  s.seats.forEach((row, i) => {
    if (row.seat >= SEATS)
      fail(`seats[${i}].seat`, `seat ${row.seat} does not exist: timer seats are 0–${SEATS - 1}`);
    gate(`seats[${i}].gate`, row.gate);
  });
  s.timing_systems.forEach((row, i) => gate(`timing_systems[${i}].gate`, row.gate));
  gate('finish_gate', s.finish_gate);
  for (const phase of PHASES) {
    const scene = s.phases[phase].scene;
    if (scene !== null && !catalog.sceneExists(scene)) fail(`phases.${phase}.scene`, `no scene ${scene}`);
  }
  for (const phase of COUNTDOWN_PHASES) {
    const scene = s.phases[phase].scene;
    if (scene !== null && !catalog.sceneArmable(scene))
      fail(
        `phases.${phase}.scene`,
        `scene ${scene} cannot be a countdown look: it must hold native effects only (they are armed ahead and shown at the tone)`,
      );
  }
}
