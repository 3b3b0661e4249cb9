/** Every failure a call can answer, as one line a person can read in the window. */
import { ApiError, InvalidError } from '../../api/errors.js';
import type { Failure, FailureKind } from '../contract.js';

/** A failure the host means to answer as it is. */
export class HostError extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly fields?: Record<string, string>,
  ) {
    super(message);
  }
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim() || 'unknown error';
}

export function describeApiError(error: ApiError): string {
  const message = firstLine(error.message);
  switch (error.kind) {
    case 'unauthorized':
      return 'Not signed in, or the session has expired: sign in again.';
    case 'forbidden':
      return `Not allowed: ${message}`;
    case 'not-found':
      return `Not found on the drive: ${message}`;
    case 'invalid':
      return `Refused by the server: ${message}`;
    case 'conflict':
      return message;
    case 'rate-limited':
      return 'The server is busy (too many requests); try again later.';
    case 'server':
      return `The server failed (${message}); try again later.`;
    case 'network':
      return `Cannot reach the server: ${message}`;
    case 'timeout':
      return 'The server did not answer in time.';
    case 'bad-response':
      return `Unexpected answer from the server (${error.summary}).`;
    case 'aborted':
      return message;
  }
}

export function toFailure(error: unknown): Failure {
  if (error instanceof HostError) return { kind: error.kind, message: error.message, ...(error.fields ? { fields: error.fields } : {}) };
  if (error instanceof ApiError) {
    const failure: Failure = { kind: error.kind, message: describeApiError(error) };
    if (error instanceof InvalidError && Object.keys(error.fields).length > 0) failure.fields = { ...error.fields };
    return failure;
  }
  return { kind: 'failed', message: firstLine(error instanceof Error ? error.message : String(error)) };
}
