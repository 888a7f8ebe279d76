/**
 * Typed transport errors. Callers (detection, the driver's readiness codes) branch on the
 * class, never on message text: the message text is for humans and logs.
 */

/** The link is not open (never opened, closed, or broken) and cannot carry bytes. */
export class LinkClosedError extends Error {
  constructor(path: string, detail = 'link is not open') {
    super(`${path}: ${detail}`);
    this.name = 'LinkClosedError';
  }
}

/** Opening the endpoint failed (no such device, connection refused, unplugged simulator…). */
export class LinkOpenError extends Error {
  /** System error code when there was one, e.g. `ECONNREFUSED`, `ENOENT`. */
  readonly code: string | undefined;

  constructor(message: string, options?: { cause?: unknown; code?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LinkOpenError';
    this.code = options?.code;
  }
}

/**
 * Another process holds the port (exclusive lock failed). Distinct from other open
 * failures because it drives the `PORT_BUSY` readiness code and auto-retry.
 */
export class PortBusyError extends LinkOpenError {
  constructor(
    readonly path: string,
    cause?: unknown,
  ) {
    super(`${path}: port is busy (could not exclusively lock it; another program has it open)`, {
      cause,
      code: 'EBUSY',
    });
    this.name = 'PortBusyError';
  }
}

/** Message fragments the serial bindings use when the exclusive lock fails. */
const BUSY_PATTERNS = [
  /cannot lock port/i,
  /could not exclusively lock/i,
  /resource temporarily unavailable/i,
  /resource busy/i,
  /\bEBUSY\b/,
];

export function looksLikePortBusy(message: string): boolean {
  return BUSY_PATTERNS.some((re) => re.test(message));
}
