/**
 * Request bodies (issue 35, item 7; the host's reading of contract convention 1):
 *
 * - A request without a body, or with an empty (blank) JSON body, is `{}`: the route applies
 *   its defaults or names the missing field. `POST /api/discover` with no body works.
 * - A body declared `application/json` (or `…+json`), or sent without any content type, is
 *   parsed as JSON; a body that is not valid JSON is a 400 `body: not valid JSON (…)` — never
 *   read as `{}`, which would turn `{"name":"x` into "name: is required" or, worse, into a
 *   route's defaults (a discovery into group 0, a status poll of the whole fleet).
 * - Any other declared type (text/plain, a form) is a 415 naming the type the route wants:
 *   `application/json`, or `multipart/form-data` on the upload routes. Those are the types a
 *   page on another site may send without a CORS preflight, so no JSON route ever reads one
 *   (security.ts refuses foreign origins first; this is the second lock on the door).
 *
 * Upload routes mark themselves with `config: { body: 'multipart' }`; their multipart parser
 * (@fastify/multipart, registered in their scope) takes multipart bodies before this one.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { UnsupportedMediaTypeError, ValidationError } from '../errors.ts';
import { errText } from '../util/err-text.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the route's body is; absent = JSON. */
    body?: 'multipart';
  }
}

export const JSON_MEDIA = 'application/json';
export const MULTIPART_MEDIA = 'multipart/form-data';

/** application/json and structured-syntax JSON types (application/merge-patch+json). */
const JSON_TYPES = /^application\/(?:json|[\w.+-]+\+json)$/;
/** A V8 message quotes the start of the input: enough to find the spot, not a whole body. */
const MAX_DETAIL = 120;

/** The media type of a content-type header, lower case without parameters; null when absent. */
export function mediaType(header: string | undefined): string | null {
  if (header === undefined) return null;
  const type = header.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === '' ? null : type;
}

/** The 415 for a route that wants `wanted` and was sent `header`. */
export function unsupportedType(wanted: string, header: string | undefined): UnsupportedMediaTypeError {
  const got = mediaType(header);
  return new UnsupportedMediaTypeError(`content-type: expected ${wanted}, got ${got ?? 'none'}`);
}

/** Parses a JSON body's text; blank is `{}`. Throws ValidationError naming `body`. */
export function parseJsonText(text: string): unknown {
  // A UTF-8 byte-order mark is not JSON, but some Windows tools write one.
  const clean = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (!clean.trim()) return {};
  try {
    return JSON.parse(clean) as unknown;
  } catch (err) {
    const detail = errText(err);
    const short = detail.length > MAX_DETAIL ? `${detail.slice(0, MAX_DETAIL)}…` : detail;
    throw new ValidationError(`body: not valid JSON (${short})`);
  }
}

function parse(req: FastifyRequest, body: string | Buffer): unknown {
  const header = req.headers['content-type'];
  if (req.routeOptions.config.body === 'multipart') throw unsupportedType(MULTIPART_MEDIA, header);
  const type = mediaType(header);
  if (type !== null && !JSON_TYPES.test(type)) throw unsupportedType(JSON_MEDIA, header);
  return parseJsonText(typeof body === 'string' ? body : body.toString('utf8'));
}

/** Installs the one body parser every non-upload route uses (replaces Fastify's own). */
export function installJsonBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (req, body, done) => {
    // An unknown path or method answers 404/405, whatever its body.
    if (req.is404) return done(null, {});
    try {
      done(null, parse(req, body));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}
