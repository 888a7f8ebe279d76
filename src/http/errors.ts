/**
 * One place that maps errors to HTTP answers: typed service errors to 400/404/409/415/503,
 * Fastify's own client errors to their 4xx, everything else to a JSON 500 that names
 * the error type but never leaks a stack or a path.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  ActionFailedError,
  BusyError,
  CommandRefusedError,
  ConflictError,
  NotFoundError,
  PersistenceError,
  SceneRunningError,
  UnavailableError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../errors.ts';
import type { Logger } from '../logger.ts';

export function errorHandler(log: Logger) {
  return (err: FastifyError | Error, req: FastifyRequest, reply: FastifyReply): void => {
    if (err instanceof ValidationError) {
      void reply.code(400).send({ ok: false, error: err.message });
    } else if (err instanceof UnsupportedMediaTypeError) {
      void reply.code(415).send({ ok: false, error: err.message });
    } else if (err instanceof NotFoundError) {
      void reply.code(404).send({ ok: false, error: err.message });
    } else if (err instanceof BusyError) {
      void reply.code(409).send({ ok: false, busy: true, error: 'a task is running', task: err.task });
    } else if (err instanceof SceneRunningError) {
      void reply.code(409).send({ ok: false, busy: true, error: 'scene_running', scene: err.scene });
    } else if (err instanceof ConflictError) {
      void reply.code(409).send({ ok: false, ...err.extra, error: err.message });
    } else if (err instanceof CommandRefusedError) {
      void reply.code(err.status).send({ ok: false, ...err.extra, error: err.message });
    } else if (err instanceof UnavailableError) {
      void reply.code(503).send({ ok: false, ...err.extra, error: err.message });
    } else if (err instanceof ActionFailedError) {
      log.warn({ url: req.url, error: err.message }, 'device action failed');
      void reply.code(500).send({ ok: false, error: err.message });
    } else if (err instanceof PersistenceError) {
      log.error({ url: req.url, error: err.message }, 'persistence failure');
      void reply.code(err.status).send({ ok: false, error: `PersistenceError: ${err.message}` });
    } else {
      const fe = err as FastifyError;
      const status =
        typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500
          ? fe.statusCode
          : 500;
      if (status < 500) {
        void reply.code(status).send({ ok: false, error: clientMessage(fe) });
        return;
      }
      log.error(
        { url: req.url, err: { type: err.name, message: err.message, stack: err.stack } },
        'unhandled error',
      );
      void reply.code(500).send({ ok: false, error: `${err.name}: ${sanitize(err.message)}` });
    }
  };
}

function clientMessage(err: FastifyError): string {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'body: too large (limit 1 MiB)';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'content-type: not a valid media type (expected application/json)';
    default:
      return sanitize(err.message);
  }
}

/** Strips absolute paths from messages that reach clients. */
function sanitize(msg: string): string {
  return msg.replace(/(\/[\w.-]+){2,}/g, '<path>');
}
