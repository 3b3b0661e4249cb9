import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Profile } from './profile.js';

/** An answer that ends a request early: 401/403/404/409 carry {message}; 422 carries the profile's validation body. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly errors?: Record<string, string>,
    /** Fields whose message deployed versions answer as a string rather than a list. */
    readonly plainFields?: ReadonlySet<string>,
  ) {
    super(message);
  }
}

export const unauthorized = () => new HttpError(401, 'Unauthenticated.');
export const forbidden = (message = 'This action is unauthorized.') => new HttpError(403, message);
export const notFound = (message = 'Not found.') => new HttpError(404, message);
export const conflict = (message: string) => new HttpError(409, message);
export const invalid = (field: string, message: string, options: { plain?: boolean } = {}) =>
  new HttpError(422, message, { [field]: message }, options.plain ? new Set([field]) : undefined);

/** 422 answers in the profile's shape; every other refusal is `{message}`. */
export function errorBody(
  profile: Profile,
  statusCode: number,
  message: string,
  errors?: Record<string, string>,
  plain?: ReadonlySet<string>,
) {
  if (statusCode === 422) return profile.validationBody(message, errors ?? {}, plain);
  return { message };
}

interface AjvIssue {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

/** Field name of a schema violation in Laravel's dotted form: `entryIds.0`, `name`, `page`. */
function fieldOf(issue: AjvIssue, context: string | undefined): string {
  const missing = issue.params?.missingProperty ?? issue.params?.additionalProperty;
  const parts = (issue.instancePath ?? '').split('/').filter(Boolean);
  if (typeof missing === 'string') parts.push(missing);
  return parts.length > 0 ? parts.join('.') : context ?? 'request';
}

function validationErrors(error: FastifyError): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of (error.validation ?? []) as AjvIssue[]) {
    const field = fieldOf(issue, error.validationContext);
    errors[field] ??= `The ${field} field ${issue.message ?? 'is invalid'}.`;
  }
  return errors;
}

/** The refusals the server answers (docs/server.md, Errors); any other 4xx is invalid data, a 422. */
const ANSWERED_4XX = new Set([401, 403, 404, 409, 410, 413, 415, 416, 422]);

/** Maps every failure to a status and body; only a genuine fault of the server itself answers 500. */
export function errorHandler(profile: Profile) {
  const body = (code: number, message: string, errors?: Record<string, string>, plain?: ReadonlySet<string>) =>
    errorBody(profile, code, message, errors, plain);
  return function handleError(error: FastifyError | HttpError, request: FastifyRequest, reply: FastifyReply) {
    if (error instanceof HttpError) {
      const code = error.statusCode;
      if (code >= 400 && code < 500 && !ANSWERED_4XX.has(code)) {
        // e.g. a library's 400 (a multipart field named like an Object.prototype property) or 406 (a multipart
        // field declared JSON that is not) passed on by a route: the request's data is invalid.
        return reply.code(422).send(body(422, error.message, error.errors ?? { request: error.message }));
      }
      return reply.code(code).send(body(code, error.message, error.errors, error.plainFields));
    }
    if (error.validation) {
      const errors = validationErrors(error);
      const message = Object.values(errors)[0] ?? 'The given data was invalid.';
      return reply.code(422).send(body(422, message, errors));
    }
    const code = error.statusCode ?? 500;
    if (code === 400 || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
      // Malformed JSON, bad content length and the like: the data is invalid, whatever broke it.
      return reply.code(422).send(body(422, 'The request body is not valid JSON.', { body: error.message }));
    }
    if (code >= 400 && code < 500) {
      if (!ANSWERED_4XX.has(code)) return reply.code(422).send(body(422, error.message, { request: error.message }));
      return reply.code(code).send(body(code, error.message));
    }
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send({ message: 'Server error.' });
  };
}
