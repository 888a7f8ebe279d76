/**
 * Settings → Import from RaceLink: the operator picks the RaceLink data folder (or a zip of
 * it), sees the host's dry-run report (what will be created, what is mapped, what cannot come
 * over and why), and confirms; the host answers once the import is on disk.
 */
import { useState } from 'preact/hooks';
import type { ImportReport, ItemAction, ItemKind } from '../../../src/domain/racelink/types.ts';
import { post } from '../api.ts';
import { health } from '../store.ts';
import { toast } from '../toasts.ts';
import { Modal } from './Modal.tsx';

interface ImportAnswer {
  dry_run: boolean;
  report: ImportReport;
  kept_as: string | null;
  nothing_to_keep: boolean;
}

type Phase =
  | { kind: 'pick' }
  | { kind: 'checking' }
  | { kind: 'report'; answer: ImportAnswer; form: FormData; what: string }
  | { kind: 'importing'; answer: ImportAnswer }
  | { kind: 'done'; answer: ImportAnswer }
  | { kind: 'error'; message: string };

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
  create: 'new',
  update: 'update',
  unchanged: 'already here',
  skip: 'not imported',
};
const ACTION_CLASS: Record<ItemAction, string> = {
  create: 'good',
  update: 'warn',
  unchanged: '',
  skip: 'bad',
};

/** The files of a folder pick (only the .json files: the host reads nothing else), or one zip. */
function formOf(files: readonly File[]): { form: FormData; what: string } | null {
  const form = new FormData();
  const zip = files.length === 1 && files[0]?.name.toLowerCase().endsWith('.zip') ? files[0] : null;
  if (zip) {
    form.append('file', zip, zip.name);
    return { form, what: zip.name };
  }
  const json = files.filter((f) => f.name.endsWith('.json'));
  if (!json.length) return null;
  for (const f of json) form.append('files', f, f.webkitRelativePath || f.name);
  const root = (json[0]?.webkitRelativePath || '').split('/')[0];
  return { form, what: `${root || 'the folder'} (${json.length} files)` };
}

function ReportView({ report }: { report: ImportReport }) {
  const kinds = (Object.keys(KIND_LABEL) as ItemKind[]).filter((k) => report.items.some((i) => i.kind === k));
  return (
    <div class="import-report" data-testid="import-report">
      <table class="import-counts">
        <tbody>
          {kinds.map((k) => {
            const c = report.counts[k];
            return (
              <tr key={k} data-kind={k}>
                <th>{KIND_LABEL[k]}</th>
                {(['create', 'update', 'unchanged', 'skip'] as ItemAction[]).map((a) => (
                  <td key={a} class="num" data-action={a}>
                    {c?.[a] ? `${c[a]} ${ACTION_LABEL[a]}` : ''}
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
      {report.warnings.length > 0 && (
        <>
          <h3>Check after the import</h3>
          <ul class="import-warnings">
            {report.warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </>
      )}
      {report.mapped.length > 0 && (
        <>
          <h3>Mapped</h3>
          <ul class="import-mapped small-text">
            {report.mapped.map((m) => (
              <li key={`${m.what}:${m.from}`}>
                {m.what}: <span class="mono">{m.from}</span> → <span class="mono">{m.to}</span>
                {m.count > 1 ? ` (×${m.count})` : ''}
              </li>
            ))}
          </ul>
        </>
      )}
      <details class="disclosure">
        <summary>Every item ({report.items.length})</summary>
        <ul class="import-items small-text">
          {report.items.map((i, n) => (
            <li key={n} data-action={i.action}>
              <span class={`pill tiny ${ACTION_CLASS[i.action]}`}>{ACTION_LABEL[i.action]}</span>{' '}
              {KIND_LABEL[i.kind]}: <strong>{i.name}</strong>
              {i.detail ? <span class="muted"> — {i.detail}</span> : null}
            </li>
          ))}
        </ul>
      </details>
    </div>
  );
}

export function RaceLinkImportDialog({ onClose }: { onClose: () => void }) {
  const [phase, setPhase] = useState<Phase>({ kind: 'pick' });

  const check = async (files: readonly File[]) => {
    const f = formOf(files);
    if (!f) {
      setPhase({
        kind: 'error',
        message: 'No RaceLink files chosen: pick the .racelink folder or a zip of it.',
      });
      return;
    }
    setPhase({ kind: 'checking' });
    try {
      const answer = await post<ImportAnswer>('import/racelink?dry_run=1', f.form);
      setPhase({ kind: 'report', answer, form: f.form, what: f.what });
    } catch (err) {
      setPhase({ kind: 'error', message: (err as Error).message });
    }
  };

  const confirm = async (form: FormData, previous: ImportAnswer) => {
    setPhase({ kind: 'importing', answer: previous });
    try {
      const answer = await post<ImportAnswer>('import/racelink', form);
      setPhase({ kind: 'done', answer });
      toast('RaceLink setup imported');
    } catch (err) {
      setPhase({ kind: 'error', message: (err as Error).message });
    }
  };

  const picker = (
    <div class="buttons start">
      <label class="button">
        Choose the RaceLink folder…
        <input
          type="file"
          hidden
          multiple
          {...{ webkitdirectory: true }}
          data-testid="racelink-folder"
          onChange={(e) => {
            const files = Array.from(e.currentTarget.files ?? []);
            e.currentTarget.value = '';
            void check(files);
          }}
        />
      </label>
      <label class="button">
        … or a zip of it
        <input
          type="file"
          hidden
          accept=".zip,application/zip"
          data-testid="racelink-zip"
          onChange={(e) => {
            const files = Array.from(e.currentTarget.files ?? []);
            e.currentTarget.value = '';
            void check(files);
          }}
        />
      </label>
    </div>
  );

  const p = phase;
  return (
    <Modal
      title="Import from RaceLink"
      onClose={onClose}
      wide
      locked={p.kind === 'importing'}
      testId="racelink-import"
    >
      <p class="muted">
        Brings devices, groups, presets, scenes and LED preset files over from the original RaceLink host:
        pick its data folder (<span class="mono">.racelink</span> in your home folder) or a zip of it. You see
        what will change before anything is written; the current state (when it holds anything) is kept as a
        backup file first. Importing the same folder again changes nothing.
      </p>
      <SimulatorNote />
      {(p.kind === 'pick' || p.kind === 'error') && picker}
      {p.kind === 'error' && (
        <p class="error-text" role="alert" data-testid="import-error">
          {p.message}
        </p>
      )}
      {p.kind === 'checking' && <p aria-live="polite">Reading the folder…</p>}
      {p.kind === 'report' && (
        <>
          <p>
            From <strong>{p.what}</strong>:{' '}
            {p.answer.report.changes ? 'this is what the import will do.' : 'everything is already here.'}
          </p>
          <ReportView report={p.answer.report} />
          <div class="buttons">
            <button type="button" onClick={() => setPhase({ kind: 'pick' })}>
              Choose another
            </button>
            <button
              type="button"
              class="primary"
              data-testid="import-confirm"
              disabled={!p.answer.report.changes}
              onClick={() => void confirm(p.form, p.answer)}
            >
              Import
            </button>
          </div>
        </>
      )}
      {p.kind === 'importing' && <p aria-live="polite">Importing…</p>}
      {p.kind === 'done' && (
        <>
          <p data-testid="import-done" role="status">
            Imported and saved.
            {p.answer.kept_as ? (
              <>
                {' '}
                The state before the import is kept in the data directory as{' '}
                <span class="mono">{p.answer.kept_as}</span>.
              </>
            ) : p.answer.nothing_to_keep ? (
              ' There was no earlier state (no devices, groups, scenes or LED presets): nothing to keep, so no backup was written.'
            ) : null}
          </p>
          <ReportView report={p.answer.report} />
          <div class="buttons">
            <button type="button" class="primary" onClick={onClose}>
              Close
            </button>
          </div>
        </>
      )}
    </Modal>
  );
}

/**
 * On the simulator the import lands in the simulator's own folder: said before the operator
 * picks, so nobody imports here for race day and then finds nothing on the real gateway.
 */
function SimulatorNote() {
  const data = health.value?.data;
  if (!data?.simulated) return null;
  if (data.real_dir === undefined || data.real_dir === data.dir) return null;
  return (
    <p class="warn-text" data-testid="import-simulator-note">
      This host runs on the simulator: an import here goes into its own folder <code>{data.dir}</code>, to
      practise with; the real data folder <code>{data.real_dir}</code> is not changed. For race day, import
      with the gateway plugged in, or stop the host and import into <code>{data.real_dir}</code> on the
      command line (<code>npm run import</code>, in a release <code>bin/lightnet import</code>).
    </p>
  );
}
