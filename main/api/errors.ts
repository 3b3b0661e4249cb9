/**
 * Every failure of a call to the service becomes one of these, naming the endpoint, with a one-line message a
 * person can read. Callers branch on `kind`, never on message text.
 */
export type ApiErrorKind =
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  | 'conflict'
  | 'invalid'
  | 'rate-limited'
  | 'server'
  | 'network'
  | 'timeout'
  | 'bad-response'
  | 'aborted';

export abstract class ApiError extends Error {
  abstract readonly kind: ApiErrorKind;
  constructor(
    /** The endpoint as `METHOD path-template`, e.g. `DELETE /file-entries`. */
    readonly endpoint: string,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }

  /** One line for a person: what failed and why. */
  get summary(): string {
    return `${this.endpoint}: ${this.message}`;
  }
}

export class UnauthorizedError extends ApiError {
  readonly kind = 'unauthorized';
}
export class ForbiddenError extends ApiError {
  readonly kind = 'forbidden';
}
export class NotFoundError extends ApiError {
  readonly kind = 'not-found';
}
export class ConflictError extends ApiError {
  readonly kind = 'conflict';
}
export class InvalidError extends ApiError {
  readonly kind = 'invalid';
  constructor(
    endpoint: string,
    message: string,
    /** Field name → first message, whether the server sent strings or lists. */
    readonly fields: Record<string, string>,
    status = 422,
  ) {
    super(endpoint, message, status);
  }
}
export class RateLimitedError extends ApiError {
  readonly kind = 'rate-limited';
  constructor(
    endpoint: string,
    message: string,
    /** Milliseconds the service asked to wait, when it said. */
    readonly retryAfterMs: number | undefined,
  ) {
    super(endpoint, message, 429);
  }
}
export class ServerError extends ApiError {
  readonly kind = 'server';
}
export class NetworkError extends ApiError {
  readonly kind = 'network';
  constructor(
    endpoint: string,
    message: string,
    readonly code: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(endpoint, message, undefined, options);
  }
}
export class TimeoutError extends ApiError {
  readonly kind = 'timeout';
  constructor(
    endpoint: string,
    message: string,
    /** The phase that ran out of time, where known (got's `lookup`, `connect`, `secureConnect`, `send`, `response`…). */
    readonly phase?: string,
  ) {
    super(endpoint, message);
  }
}
export class BadResponseError extends ApiError {
  readonly kind = 'bad-response';
}
export class AbortedError extends ApiError {
  readonly kind = 'aborted';
}

/**
 * A transfer that did not start because the local file could not be read: a problem of the file here, not of the
 * call, so its summary names neither the endpoint nor the absolute path (the caller names the item).
 */
export class UnreadableFileError extends AbortedError {
  constructor(
    endpoint: string,
    readonly reason: string,
    cause: unknown,
  ) {
    super(endpoint, `cannot be read: ${reason}`, undefined, { cause });
  }

  override get summary(): string {
    return this.message;
  }
}

/**
 * A download that could not be written here (the disk full, a folder without write permission): a problem of this
 * computer's disk, not of the call, so it is neither transient nor a sign the server is out of reach.
 */
export class UnwritableFileError extends AbortedError {
  constructor(
    endpoint: string,
    readonly reason: string,
    cause: unknown,
  ) {
    super(endpoint, `cannot be written on this computer: ${reason}`, undefined, { cause });
  }

  override get summary(): string {
    return this.message;
  }
}

export const isApiError = (error: unknown): error is ApiError => error instanceof ApiError;

/** Errors worth trying again later (the request may or may not have taken effect). */
export const isTransient = (error: unknown): boolean =>
  isApiError(error) && ['rate-limited', 'server', 'network', 'timeout'].includes(error.kind);

/**
 * Failures that happened before a connection to the server was open: the name did not resolve, nothing listened
 * (refused), no route, or the connection or its TLS handshake did not complete in time. No byte of the request
 * reached the server, so a POST that failed so provably did not take effect.
 */
const BEFORE_CONNECTING = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'ENETUNREACH', 'EHOSTUNREACH', 'EADDRNOTAVAIL', 'ENETDOWN']);
const CONNECT_PHASES = new Set(['lookup', 'connect', 'secureConnect']);

export function neverSent(error: unknown): boolean {
  if (error instanceof NetworkError) return error.code !== undefined && BEFORE_CONNECTING.has(error.code);
  if (error instanceof TimeoutError) return error.phase !== undefined && CONNECT_PHASES.has(error.phase);
  return false;
}

/**
 * An https request answered in plain http: OpenSSL reads the HTTP reply as a TLS record and says so in its own
 * words ("wrong version number", "packet length too long"), which mean nothing to a person. `code` is the error's;
 * by default, the one a line of text names (`write EPROTO …`).
 */
export function plainHttpAnswer(message: string, code = /\b(EPROTO|ERR_SSL_\w+)\b/.exec(message)?.[1] ?? ''): boolean {
  return (code === 'EPROTO' || code.startsWith('ERR_SSL_')) && /wrong version number|packet length too long|http request/i.test(message);
}

const speaksPlainHttp = (error: ApiError): boolean => plainHttpAnswer(error.message, error instanceof NetworkError ? (error.code ?? '') : '');

/** A web server without the service's routes, said as such: its answer to a route every drive has. */
export function notADriveService(error: ApiError, server: string): string {
  return `${server} does not look like a drive service (it answered ${error.endpoint} with ${error.status ? `HTTP ${error.status}` : 'something else'})`;
}

/**
 * What a person reads for a failed call to the service: one line, lower case, saying what to do where there is
 * something. `server` names the server where it helps; `signIn` is how to sign in again (a command, a button).
 */
export function describeApiError(error: ApiError, how: { signIn: string; server?: string }): string {
  const message = error.message.split('\n')[0]!.trim() || 'unknown error';
  const server = how.server ?? 'the server';
  switch (error.kind) {
    case 'unauthorized':
      return `not signed in, or the session has expired: ${how.signIn}`;
    case 'forbidden':
      return `not allowed: ${message}`;
    case 'not-found':
      // A drive lists its entries for every signed-in account: a web server without the service's routes does not.
      if (error.endpoint === 'GET /drive/file-entries') return `${notADriveService(error, server)}; check the address`;
      return `not found on the drive: ${message}`;
    case 'invalid':
      return `refused by the server: ${message}`;
    case 'conflict':
    case 'aborted':
      return message;
    case 'rate-limited':
      return 'the server is busy (too many requests); try again later';
    case 'server':
      return `the server failed (${message}); try again later`;
    case 'network':
      if (speaksPlainHttp(error)) return `${server} speaks plain http, not https: use its http:// address`;
      return `cannot reach ${server}: ${message}`;
    case 'timeout': {
      // The messages toApiError and the deadline write; anything else (an older line) is said in general.
      const within = /^the server did not answer within (.+)$/.exec(message);
      if (within) return `${server} did not answer within ${within[1]}`;
      const stalled = /^no data moved for (.+)$/.exec(message);
      if (stalled) return `the transfer stalled: nothing moved to or from ${server} for ${stalled[1]}`;
      const connect = /^could not connect within (.+)$/.exec(message);
      if (connect) return `cannot reach ${server}: no connection within ${connect[1]}`;
      return `${server} did not answer in time`;
    }
    case 'bad-response':
      return `unexpected answer from the server (${error.summary})`;
  }
}
