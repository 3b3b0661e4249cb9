import { ApiError, describeApiError as describeFailure } from '../api/errors.js';
import { ServerAddressError, StateError } from '../state/errors.js';

/** A failure the user caused or can act on: printed as one line, never with a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

export const usageError = (message: string) => new CliError(message, 2);

/**
 * The shared state's failures as the command line tells them: a bad server address is a usage error naming
 * `--server`; the others fail the command (exit 1) with their own line. Anything else is kept as it is.
 */
export function fromState(error: unknown): unknown {
  if (error instanceof ServerAddressError) {
    return usageError(
      error.reason === 'not-a-url'
        ? `--server must be a URL such as http://127.0.0.1:8080 (got ${error.given})`
        : `--server must start with http:// or https:// (got ${error.given})`,
    );
  }
  if (error instanceof StateError) return new CliError(error.message);
  return error;
}

/** One line for any error, whatever threw it. */
export function oneLine(error: unknown): string {
  if (error instanceof ApiError) return describeApiError(error);
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.trim() || 'unknown error';
}

/** What a person reads for a failed call to the service, on the command line. */
export const describeApiError = (error: ApiError, server?: string): string =>
  describeFailure(error, { signIn: 'run drivesync login', ...(server ? { server } : {}) });

/** Turns a failed call into a CliError (exit 1) with the one line above, keeping any other error as it is. */
export function failure(error: unknown, server?: string, context?: string): unknown {
  if (error instanceof ApiError) {
    const line = describeApiError(error, server);
    return new CliError(context ? `${context}: ${line}` : line);
  }
  return error;
}

/** Ends the command with an exit code; whatever needed saying was already said. */
export class SilentExit extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
  }
}
