/**
 * Which command source an HTTP request speaks for: `X-Lightnet-Source: <id>` names one of the
 * sources an HTTP caller may claim (`api`, `live`, `show`, …); without it the request is the
 * operator's UI, as every contract route has always been. An unknown or non-HTTP source is a
 * 400 naming the header.
 */
import type { FastifyRequest } from 'fastify';
import { ValidationError } from '../errors.ts';
import { OPERATOR_SOURCE, SOURCE_HEADER, type CommandPathService } from '../services/command-path/index.ts';

export function commandSource(
  req: FastifyRequest,
  path: Pick<CommandPathService, 'source' | 'owners'>,
): string {
  const given = req.headers[SOURCE_HEADER];
  if (given === undefined) return OPERATOR_SOURCE;
  const id = (Array.isArray(given) ? given[0] : given)?.trim().toLowerCase() ?? '';
  const src = path.source(id);
  if (src?.http) return src.id;
  const allowed = path
    .owners()
    .sources.filter((s) => path.source(s.id)?.http)
    .map((s) => s.id);
  throw new ValidationError(
    `${SOURCE_HEADER}: ${src ? `'${id}' cannot be claimed over HTTP` : `unknown source '${id}'`} (one of ${allowed.join(', ')})`,
  );
}
