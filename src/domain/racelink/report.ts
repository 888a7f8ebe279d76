/**
 * Building the import report while mapping, and printing it for a terminal (the CLI). The
 * HTTP route and the web UI get the same report as JSON.
 */
import type { ImportReport, ItemAction, ItemKind, ReportItem } from './types.ts';

export class ReportBuilder {
  readonly report: ImportReport = {
    source: {
      files: [],
      config_file: null,
      state_schema: null,
      state_encoding: null,
      presets_schema: null,
      scenes_spelling: null,
      backup: null,
    },
    counts: {},
    items: [],
    mapped: [],
    warnings: [],
    changes: false,
  };

  item(kind: ItemKind, name: string, action: ItemAction, detail?: string): void {
    const it: ReportItem = { kind, name, action };
    if (detail) it.detail = detail;
    this.report.items.push(it);
    const c = (this.report.counts[kind] ??= { create: 0, update: 0, unchanged: 0, skip: 0 });
    c[action]++;
    if (action === 'create' || action === 'update') this.report.changes = true;
  }

  /** Counts one use of a translation (equal what/from/to are merged). */
  map(what: string, from: string | number, to: string | number): void {
    const f = String(from);
    const t = String(to);
    const m = this.report.mapped.find((x) => x.what === what && x.from === f && x.to === t);
    if (m) m.count++;
    else this.report.mapped.push({ what, from: f, to: t, count: 1 });
  }

  warn(text: string): void {
    if (!this.report.warnings.includes(text)) this.report.warnings.push(text);
  }
}

const KIND_LABEL: Record<ItemKind, string> = {
  device: 'Devices',
  group: 'Groups',
  network: 'Networks',
  native_preset: 'Native presets',
  scene: 'Scenes',
  led_preset_file: 'LED preset files',
  setting: 'Settings',
  backup: 'Backups',
  file: 'Other files',
};
const ACTION_LABEL: Record<ItemAction, string> = {
  create: 'create',
  update: 'update',
  unchanged: 'same',
  skip: 'SKIP',
};

/** The report as plain text: a summary line per kind, every item, the mappings, the warnings. */
export function formatReport(r: ImportReport, mode: 'dry-run' | 'written'): string {
  const lines: string[] = [];
  const s = r.source;
  lines.push(
    `RaceLink folder: ${s.files.length} files read` +
      (s.config_file ? `; state from ${s.backup ? `backup ${s.backup}` : s.config_file}` : '') +
      (s.state_schema !== null ? ` (state schema ${s.state_schema}, ${s.state_encoding})` : '') +
      (s.presets_schema !== null ? `; presets schema ${s.presets_schema}` : '') +
      (s.scenes_spelling ? `; scenes file (${s.scenes_spelling})` : ''),
  );
  lines.push('');
  for (const kind of Object.keys(KIND_LABEL) as ItemKind[]) {
    const items = r.items.filter((i) => i.kind === kind);
    if (!items.length) continue;
    const c = r.counts[kind];
    const parts = c
      ? (Object.keys(ACTION_LABEL) as ItemAction[]).filter((a) => c[a]).map((a) => `${c[a]} ${a}`)
      : [];
    lines.push(`${KIND_LABEL[kind]}: ${parts.join(', ')}`);
    for (const i of items)
      lines.push(`  ${ACTION_LABEL[i.action].padEnd(6)} ${i.name}${i.detail ? `  — ${i.detail}` : ''}`);
  }
  if (r.mapped.length) {
    lines.push('', 'Mapped:');
    for (const m of r.mapped)
      lines.push(`  ${m.what}: ${m.from} → ${m.to}${m.count > 1 ? ` (×${m.count})` : ''}`);
  }
  if (r.warnings.length) {
    lines.push('', 'Check after the import:');
    for (const w of r.warnings) lines.push(`  ! ${w}`);
  }
  lines.push(
    '',
    !r.changes
      ? 'Nothing to change: everything is already in Lightnet.'
      : mode === 'dry-run'
        ? 'Dry run: nothing was written. Run again without --dry-run to import.'
        : 'Imported and saved.',
  );
  return lines.join('\n') + '\n';
}
