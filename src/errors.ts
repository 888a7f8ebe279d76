/**
 * Typed service errors. Services throw these; the HTTP layer maps them to status
 * codes in one place (http/errors.ts). Messages are user-facing: they name the field
 * and the rule, never a stack or a file path.
 */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';
}

/** The request's content type is not the one the route reads (415); the message names both. */
export class UnsupportedMediaTypeError extends Error {
  override readonly name = 'UnsupportedMediaTypeError';
}

export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';
}

/** A task is running; `task` is its snapshot. */
export class BusyError extends Error {
  override readonly name = 'BusyError';
  constructor(readonly task: unknown) {
    super('a task is running');
  }
}

/** A scene is running; only one runs at a time (decisions §7). */
export class SceneRunningError extends Error {
  override readonly name = 'SceneRunningError';
  constructor(readonly scene: string) {
    super('scene_running');
  }
}

/** The request conflicts with the current state (409), e.g. deleting a network in use. */
export class ConflictError extends Error {
  override readonly name = 'ConflictError';
  constructor(
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/**
 * The command path refused a light command: 409 a higher-priority source holds the target
 * (`extra.holder` says who), 429 the source's rate limit, 403 the source is switched off.
 */
export class CommandRefusedError extends Error {
  override readonly name = 'CommandRefusedError';
  constructor(
    readonly status: 403 | 409 | 429,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export class UnavailableError extends Error {
  override readonly name = 'UnavailableError';
  constructor(
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/**
 * A failure while persisting state: the change was not kept. Answered as 507 when the
 * disk is full (ENOSPC, EDQUOT), else 500, with the message naming the cause.
 */
export class PersistenceError extends Error {
  override readonly name = 'PersistenceError';
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }

  get status(): number {
    return this.code === 'ENOSPC' || this.code === 'EDQUOT' ? 507 : 500;
  }
}

/** A device action was attempted and failed on the radio (answered as 500 with the message). */
export class ActionFailedError extends Error {
  override readonly name = 'ActionFailedError';
}
