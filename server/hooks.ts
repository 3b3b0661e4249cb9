import type { FastifyReply, FastifyRequest } from 'fastify';
import { isPublic } from './api-paths.js';
import type { Authenticate } from './authentication.js';
import type { App } from './context.js';
import { invalid, unauthorized } from './errors.js';
import type { FaultInjector } from './faults.js';

/** A request that is handled and then answered by closing the connection (the `apply-drop` fault). */
type DroppableRequest = FastifyRequest & { dropReply?: boolean };

export interface RequestHookOptions {
  latencyMs: number;
  faults: FaultInjector;
  authenticate: Authenticate;
}

/**
 * What every request goes through around its route: the injected latency and faults, the token check, the check of
 * coerced numbers, and the connection an `apply-drop` fault closes instead of answering.
 */
export function installRequestHooks(app: App, { latencyMs, faults, authenticate }: RequestHookOptions): void {
  app.addHook('onRequest', async (request, reply) => {
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
    const faulted = injectFault(faults, request, reply);
    if (faulted) return faulted;
    // Authentication comes before the body is read or validated: without a valid token every route under /api/v1
    // answers 401, whatever the request carries (as the service's auth middleware does).
    if (isPublic(request.routeOptions.url ?? request.url)) return;
    const userId = authenticate(request);
    if (userId === null) throw unauthorized();
    request.userId = userId;
  });

  app.addHook('preHandler', async (request) => {
    const field = nonFiniteField(request.query, request.params);
    if (field !== null) throw invalid(field, `The ${field} field must be a finite integer.`);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if ((request as DroppableRequest).dropReply) {
      // The request took effect; the caller never learns it.
      request.raw.socket?.destroy();
      reply.raw.destroy();
    }
    return payload;
  });
}

/** The fault picked for this request, if any: the reply that ends it now, or nothing when it goes on. */
function injectFault(faults: FaultInjector, request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
  const fault = faults.pick(request.method, request.url);
  if (fault === 'drop') {
    request.raw.socket?.destroy();
    return reply.hijack();
  }
  if (fault === 'apply-drop') {
    (request as DroppableRequest).dropReply = true;
  } else if (fault === '429') {
    return reply
      .code(429)
      .header('retry-after', String(faults.retryAfterSeconds))
      .send({ message: 'Too Many Attempts.' });
  } else if (fault === '500' || fault === '503') {
    return reply.code(Number(fault)).send({ message: fault === '500' ? 'Server error.' : 'Service unavailable.' });
  }
  return undefined;
}

/**
 * The first query or path value that schema coercion turned into a non-finite number ("1e400" and "Infinity" pass
 * an integer schema with a maximum once coerced): such a value is invalid data, never something to hand to SQL.
 */
function nonFiniteField(...sources: unknown[]): string | null {
  for (const source of sources) {
    if (!source || typeof source !== 'object') continue;
    for (const [key, value] of Object.entries(source as Record<string, unknown>)) {
      const values = Array.isArray(value) ? value : [value];
      if (values.some((v) => typeof v === 'number' && !Number.isFinite(v))) return key;
    }
  }
  return null;
}
