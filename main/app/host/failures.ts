/** Every failure a call can answer, as one line a person can read in the window. */
import { ApiError, describeApiError as describeFailure, InvalidError } from '../../api/errors.js';
import type { Failure, FailureKind } from '../../contract/index.js';

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

/**
 * The service failure's line as the window shows it: a sentence. The server's own words (a refusal, a conflict)
 * end it as the server wrote them; the client's own wording ends with a full stop.
 */
export function describeApiError(error: ApiError): string {
  const line = describeFailure(error, { signIn: 'sign in again' });
  if (error.kind === 'conflict' || error.kind === 'aborted') return line;
  const sentence = line.charAt(0).toUpperCase() + line.slice(1);
  return ['forbidden', 'not-found', 'invalid', 'network'].includes(error.kind) ? sentence : `${sentence}.`;
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
