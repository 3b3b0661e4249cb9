import Fastify, { type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App, Context } from './context.js';
import { openDatabase, type Db } from './db.js';
import { Entries } from './entries.js';
import { errorBody, errorHandler, invalid, unauthorized } from './errors.js';
import { FaultInjector, type FaultSpec } from './faults.js';
import { hashToken } from './secrets.js';
import { authRoutes } from './routes/auth.js';
import { entryRoutes } from './routes/entries.js';
import { uploadRoutes } from './routes/uploads.js';
import { sharingRoutes } from './routes/sharing.js';
import { linkRoutes, publicLinkRoutes } from './routes/links.js';
import { listRoutes } from './routes/lists.js';
import { contentRoutes } from './routes/content.js';
import { profileOf, type ListFormat, type ProfileName } from './profile.js';

export type { App, Context, ListFormat, ProfileName };

export interface ServerOptions {
  /** Where the database and stored bytes live; a new temp dir when absent. */
  dataDir?: string;
  host?: string;
  port?: number;
  /** Answer as the documents say (default) or as the deployed versions do (docs/server.md, Profiles). */
  profile?: ProfileName;
  listFormat?: ListFormat;
  latencyMs?: number;
  faults?: FaultSpec | string | null;
  /** Print request logs (pino) to stdout. */
  log?: boolean;
}

export const API = '/api/v1';
const MAX_UPLOAD_BYTES = 1024 ** 4;

const tokenLookup = (db: Db) =>
  db.prepare<[string], { user_id: number }>('SELECT user_id FROM tokens WHERE token_hash = ?');

/** The bearer token of a request (or the `api_token` query parameter the mailing-list service also accepts). */
function bearer(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match ? match[1]! : null;
  }
  const query = request.query as Record<string, unknown> | undefined;
  if (request.url.startsWith(`${API}/lists/`) && typeof query?.api_token === 'string') return query.api_token;
  return null;
}

const isPublic = (url: string) => url.startsWith(`${API}/auth/`) || url.startsWith('/drive/s/');

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

export interface BuiltServer {
  app: App;
  context: Context;
  faults: FaultInjector;
}

export async function buildServer(options: ServerOptions = {}): Promise<BuiltServer> {
  // A bad fault spec or profile is refused before anything is created or opened.
  const profile = profileOf(options.profile, options.listFormat);
  const faults = new FaultInjector();
  if (options.faults) faults.set(options.faults);
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'drivesync-server-'));
  const blobDir = join(dataDir, 'blobs');
  const tmpDir = join(dataDir, 'tmp');
  mkdirSync(blobDir, { recursive: true });
  // Uploads are written here before they become blobs: what a killed server left here is never finished, so it goes.
  rmSync(tmpDir, { recursive: true, force: true });
  mkdirSync(tmpDir, { recursive: true });
  const db = openDatabase(dataDir);
  const context: Context = {
    db,
    entries: new Entries(db),
    dataDir,
    blobDir,
    tmpDir,
    listFormat: profile.listFormat(options.listFormat ?? 'paginator'),
    profile,
  };
  const lookup = tokenLookup(db);
  /** The account of a request's token, or null. */
  function authenticatedUser(request: FastifyRequest): number | null {
    const token = bearer(request);
    const row = token ? lookup.get(hashToken(token)) : undefined;
    return row ? row.user_id : null;
  }

  const app: App = Fastify({
    logger: options.log ? { level: 'info' } : false,
    bodyLimit: 1024 * 1024,
    routerOptions: { maxParamLength: 500 },
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false, allErrors: true } },
    // A path the router matched but cannot decode (`%ZZ`) or an over-long path parameter is malformed data (422),
    // answered in the service's error shape; an unauthenticated caller still learns only that it is one.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const url = request.raw.url ?? '/';
      if (!isPublic(url) && !authenticatedUser(request)) {
        return reply.code(401).send(errorBody(profile, 401, 'Unauthenticated.'));
      }
      if (error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
        const message = 'The request path is malformed.';
        return reply.code(422).send(errorBody(profile, 422, message, { path: message }));
      }
      return reply.code(500).send({ message: 'Server error.' });
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorateRequest('userId', 0);
  app.setErrorHandler(errorHandler(profile));
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ message: 'Not found.' }));
  // DELETE requests carry JSON bodies here; an empty one is simply absent.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      const error = Object.assign(new Error('The request body is not valid JSON.'), { statusCode: 400 });
      done(error, undefined);
    }
  });

  const latency = options.latencyMs ?? 0;

  app.addHook('onRequest', async (request, reply) => {
    if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency));
    const fault = faults.pick(request.method, request.url);
    if (fault === 'drop') {
      request.raw.socket?.destroy();
      return reply.hijack();
    }
    if (fault === 'apply-drop') {
      (request as FastifyRequest & { dropReply?: boolean }).dropReply = true;
    } else if (fault === '429') {
      return reply
        .code(429)
        .header('retry-after', String(faults.retryAfterSeconds))
        .send({ message: 'Too Many Attempts.' });
    } else if (fault === '500' || fault === '503') {
      return reply.code(Number(fault)).send({ message: fault === '500' ? 'Server error.' : 'Service unavailable.' });
    }
    // Authentication comes before the body is read or validated: without a valid token every route under /api/v1
    // answers 401, whatever the request carries (as the service's auth middleware does).
    if (isPublic(request.routeOptions.url ?? request.url)) return;
    const userId = authenticatedUser(request);
    if (userId === null) throw unauthorized();
    request.userId = userId;
  });

  app.addHook('preHandler', async (request) => {
    const field = nonFiniteField(request.query, request.params);
    if (field !== null) throw invalid(field, `The ${field} field must be a finite integer.`);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if ((request as FastifyRequest & { dropReply?: boolean }).dropReply) {
      // The request took effect; the caller never learns it.
      request.raw.socket?.destroy();
      reply.raw.destroy();
    }
    return payload;
  });

  await app.register(multipart, {
    preservePath: true,
    limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 20, parts: 40, fieldSize: 64 * 1024 },
  });

  await app.register(
    async (api) => {
      authRoutes(api as App, context);
      entryRoutes(api as App, context);
      uploadRoutes(api as App, context);
      sharingRoutes(api as App, context);
      linkRoutes(api as App, context);
      listRoutes(api as App, context);
      contentRoutes(api as App, context);
    },
    { prefix: API },
  );
  publicLinkRoutes(app, context);

  app.addHook('onClose', async () => {
    db.close();
    // A server started without a data folder made itself a scratch one; it goes with the server.
    if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  return { app, context, faults };
}

export interface RunningServer extends BuiltServer {
  url: string;
  close(): Promise<void>;
}

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const built = await buildServer(options);
  const host = options.host ?? '127.0.0.1';
  await built.app.listen({ host, port: options.port ?? 0 });
  const address = built.app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  // app.close() closes the keep-alive connections that are idle when it starts, then waits for the rest; a
  // connection whose answer was still being flushed at that moment (a streamed file the client has already read
  // in full) becomes idle only later and would hold the close until its keep-alive timeout. Keep closing the idle
  // ones until the server is down.
  const close = async () => {
    const sweep = setInterval(() => built.app.server.closeIdleConnections(), 20);
    try {
      await built.app.close();
    } finally {
      clearInterval(sweep);
    }
  };
  return { ...built, url: `http://${shownHost}:${port}`, close };
}
