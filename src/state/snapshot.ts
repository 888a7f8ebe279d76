/**
 * The snapshot file format (`state.json`): the current schema plus `journal_seq`, the last
 * journal record it contains. Records of a collection are written one per line, so the
 * file stays readable and diffable, and the text is produced in slices with a yield in
 * between: compacting a 2.4 MB state never blocks the event loop for long.
 */
import { setImmediate as yieldNow } from 'node:timers/promises';
import type { StateModel } from '../domain/model.ts';
import { CURRENT_SCHEMA_VERSION, migrateToCurrent } from './migrations.ts';

const SLICE_BYTES = 128 * 1024;

export async function serializeSnapshot(image: StateModel, journalSeq: number): Promise<string> {
  const parts: string[] = [
    `{\n  "schema_version": ${CURRENT_SCHEMA_VERSION},\n  "journal_seq": ${journalSeq}`,
  ];
  let since = 0;
  for (const [name, value] of Object.entries(image)) {
    if (value === undefined) continue;
    if (!Array.isArray(value)) {
      parts.push(`,\n  ${JSON.stringify(name)}: ${JSON.stringify(value)}`);
      continue;
    }
    parts.push(`,\n  ${JSON.stringify(name)}: [`);
    for (let i = 0; i < value.length; i++) {
      const line = JSON.stringify(value[i]);
      parts.push(`${i ? ',' : ''}\n    ${line}`);
      since += line.length;
      if (since > SLICE_BYTES) {
        since = 0;
        await yieldNow();
      }
    }
    parts.push(value.length ? '\n  ]' : ']');
  }
  parts.push('\n}\n');
  return parts.join('');
}

export interface ParsedSnapshot {
  state: StateModel;
  journalSeq: number;
  fromVersion: number;
  notes: string[];
}

/** Parses and migrates a snapshot's text; throws an Error naming the problem. */
export function parseSnapshot(raw: string): ParsedSnapshot {
  const json = JSON.parse(raw) as unknown;
  const seq = (json as { journal_seq?: unknown } | null)?.journal_seq;
  const parsed = migrateToCurrent(json);
  return {
    state: parsed.state,
    journalSeq: typeof seq === 'number' && Number.isInteger(seq) && seq >= 0 ? seq : 0,
    fromVersion: parsed.fromVersion,
    notes: parsed.notes,
  };
}
