/**
 * Client-supplied file names are display text only: they never reach a path. These pure
 * helpers reduce them to something safe to show and check server-generated ids.
 */
import { randomBytes } from 'node:crypto';

/** Last path part (after `/` or `\`), control characters dropped, capped at 128 characters. */
export function displayName(clientName: string | undefined, fallback: string): string {
  const base = (clientName ?? '').split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const clean = base.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim();
  if (!clean || clean === '.' || clean === '..') return fallback;
  return [...clean].slice(0, 128).join('');
}

export const UPLOAD_ID = /^[0-9a-f]{12}$/;

/** 12 lowercase hex characters from a CSPRNG. */
export function newUploadId(): string {
  return randomBytes(6).toString('hex');
}
