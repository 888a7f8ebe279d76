/**
 * Bounded multipart reading for the upload routes (ota.md §8.1): exactly one file part,
 * a few small text fields, and a byte cap enforced while streaming — bytes beyond the cap
 * are drained, never kept, so an oversize upload costs no memory.
 */
import type { FastifyRequest } from 'fastify';
import { ValidationError } from '../errors.ts';
import { MULTIPART_MEDIA, unsupportedType } from './json-body.ts';

export interface MultipartUpload {
  fields: Record<string, string>;
  file: { bytes: Buffer; filename: string; mimetype: string } | null;
}

export interface MultipartLimits {
  /** Largest file any kind may have (the parser's own hard cap). */
  hardMaxBytes: number;
  /** Cap for the file given the fields seen before it (e.g. `kind`); default hardMaxBytes. */
  maxBytes?: (fields: Record<string, string>) => number;
  allowedFields: readonly string[];
}

export async function readMultipart(req: FastifyRequest, limits: MultipartLimits): Promise<MultipartUpload> {
  // A body of another type was refused by the parser (json-body.ts); this is one without a body.
  if (!req.isMultipart()) throw unsupportedType(MULTIPART_MEDIA, req.headers['content-type']);
  const fields: Record<string, string> = {};
  let file: MultipartUpload['file'] = null;
  let tooLarge = 0;
  let error: ValidationError | null = null;
  try {
    const parts = req.parts({
      limits: { fileSize: limits.hardMaxBytes + 1, files: 2, fields: 4, fieldSize: 1024, parts: 8 },
    });
    for await (const part of parts) {
      if (part.type === 'field') {
        if (!limits.allowedFields.includes(part.fieldname)) {
          error ??= new ValidationError(`body: unexpected multipart field ${safe(part.fieldname)}`);
        } else if (typeof part.value === 'string') fields[part.fieldname] = part.value;
        continue;
      }
      if (part.fieldname !== 'file') {
        error ??= new ValidationError(`body: unexpected multipart field ${safe(part.fieldname)}`);
        part.file.resume();
        continue;
      }
      if (file) {
        error ??= new ValidationError('file: only one file per upload');
        part.file.resume();
        continue;
      }
      const cap = Math.min(limits.hardMaxBytes, limits.maxBytes?.(fields) ?? limits.hardMaxBytes);
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of part.file as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > cap) tooLarge = cap;
        else chunks.push(chunk);
      }
      if (part.file.truncated) tooLarge = cap;
      file = { bytes: Buffer.concat(chunks), filename: part.filename, mimetype: part.mimetype };
    }
  } catch (err) {
    if (err instanceof ValidationError) throw err;
    const code = (err as { code?: string }).code ?? '';
    if (code === 'FST_REQ_FILE_TOO_LARGE')
      throw new ValidationError(`file: file too large (max ${limits.hardMaxBytes} bytes)`);
    if (code.startsWith('FST_')) throw new ValidationError(`body: malformed multipart request (${code})`);
    throw new ValidationError(`body: malformed multipart request`);
  }
  if (error) throw error;
  if (tooLarge) throw new ValidationError(`file: file too large (max ${tooLarge} bytes)`);
  if (!file) throw new ValidationError('file: missing file');
  return { fields, file };
}

const safe = (s: string): string => JSON.stringify(s.slice(0, 64));

export interface MultipartFilesLimits {
  maxFiles: number;
  maxFileBytes: number;
  maxTotalBytes: number;
  allowedFields: readonly string[];
}

/**
 * Several file parts (a folder pick: each part's filename is its path relative to the
 * folder, kept as sent — the caller checks it). Every byte beyond a cap is drained, not kept.
 */
export async function readMultipartFiles(
  req: FastifyRequest,
  limits: MultipartFilesLimits,
): Promise<{ fields: Record<string, string>; files: { path: string; bytes: Buffer }[] }> {
  if (!req.isMultipart()) throw unsupportedType(MULTIPART_MEDIA, req.headers['content-type']);
  const fields: Record<string, string> = {};
  const files: { path: string; bytes: Buffer }[] = [];
  let total = 0;
  let error: ValidationError | null = null;
  try {
    const parts = req.parts({
      preservePath: true,
      limits: {
        fileSize: limits.maxFileBytes + 1,
        files: limits.maxFiles + 1,
        fields: 8,
        fieldSize: 1024,
        parts: limits.maxFiles + 9,
      },
    } as Parameters<FastifyRequest['parts']>[0]);
    for await (const part of parts) {
      if (part.type === 'field') {
        if (!limits.allowedFields.includes(part.fieldname))
          error ??= new ValidationError(`body: unexpected multipart field ${safe(part.fieldname)}`);
        else if (typeof part.value === 'string') fields[part.fieldname] = part.value;
        continue;
      }
      const keep = !error && (part.fieldname === 'files' || part.fieldname === 'file');
      if (!keep) error ??= new ValidationError(`body: unexpected multipart field ${safe(part.fieldname)}`);
      if (keep && files.length >= limits.maxFiles)
        error ??= new ValidationError(`files: too many files (at most ${limits.maxFiles})`);
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of part.file as AsyncIterable<Buffer>) {
        size += chunk.length;
        total += chunk.length;
        if (error) continue;
        if (size > limits.maxFileBytes)
          error = new ValidationError(
            `files: ${safe(part.filename)} is too large (max ${limits.maxFileBytes} bytes)`,
          );
        else if (total > limits.maxTotalBytes)
          error = new ValidationError(`files: upload too large (max ${limits.maxTotalBytes} bytes in all)`);
        else chunks.push(chunk);
      }
      if (!error && part.file.truncated)
        error = new ValidationError(
          `files: ${safe(part.filename)} is too large (max ${limits.maxFileBytes} bytes)`,
        );
      if (!error) files.push({ path: part.filename, bytes: Buffer.concat(chunks) });
    }
  } catch (err) {
    if (err instanceof ValidationError) throw err;
    const code = (err as { code?: string }).code ?? '';
    if (code === 'FST_FILES_LIMIT')
      throw new ValidationError(`files: too many files (at most ${limits.maxFiles})`);
    if (code.startsWith('FST_')) throw new ValidationError(`body: malformed multipart request (${code})`);
    throw new ValidationError('body: malformed multipart request');
  }
  if (error) throw error;
  if (!files.length) throw new ValidationError('files: no file uploaded');
  return { fields, files };
}
