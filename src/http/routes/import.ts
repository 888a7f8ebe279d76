/**
 * `POST /api/import/racelink`: a RaceLink data folder as multipart file parts (each part's
 * filename is its path inside the folder, as a browser folder pick sends it) or one zip of
 * it. `?dry_run=1` only answers the report. Otherwise the answer comes once the import is
 * on disk (the Store's commit is awaited, and the durable-ack hook holds the answer too).
 */
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { RaceLinkImportError } from '../../domain/racelink/types.ts';
import { ValidationError } from '../../errors.ts';
import type { AppServices } from '../../services/index.ts';
import { looksLikeZip, readZip, ZipError } from '../../util/zip.ts';
import { readMultipartFiles } from '../multipart.ts';

/** A RaceLink folder is a few hundred kB; backups and LED files add a little. */
export const IMPORT_LIMITS = {
  maxFiles: 2000,
  maxFileBytes: 16 * 1024 * 1024,
  maxTotalBytes: 32 * 1024 * 1024,
} as const;

const flag = (v: unknown): boolean => v === '1' || v === 'true' || v === 'yes';

export const importRoutes = (svc: AppServices) => async (api: FastifyInstance) => {
  await api.register(multipart, { throwFileSizeLimit: false });

  const opts = { config: { body: 'multipart' as const } };
  api.post<{ Querystring: { dry_run?: string; backup?: string } }>('/import/racelink', opts, async (req) => {
    const dryRun = flag(req.query.dry_run);
    if (!dryRun) svc.tasks.assertIdle();
    const up = await readMultipartFiles(req, { ...IMPORT_LIMITS, allowedFields: ['dry_run', 'backup'] });
    let files = up.files;
    const only = files[0];
    if (
      files.length === 1 &&
      only &&
      (only.path.toLowerCase().endsWith('.zip') || looksLikeZip(only.bytes))
    ) {
      try {
        files = readZip(only.bytes, {
          maxEntries: IMPORT_LIMITS.maxFiles,
          maxEntryBytes: IMPORT_LIMITS.maxFileBytes,
          maxTotalBytes: IMPORT_LIMITS.maxTotalBytes,
        }).map((e) => ({ path: e.name, bytes: e.bytes }));
      } catch (err) {
        if (err instanceof ZipError) throw new RaceLinkImportError(only.path, err.message);
        throw err;
      }
    }
    const backup = req.query.backup ?? up.fields.backup;
    if (backup !== undefined && !/^[\w.-]{1,128}$/.test(backup))
      throw new ValidationError('backup: must be a backup id from rl_state_backups/');
    const result = await svc.racelinkImport.run({
      files,
      dryRun: dryRun || flag(up.fields.dry_run),
      backup: backup || undefined,
      label: 'the upload',
    });
    return { ok: true, ...result };
  });
};
