import Fastify, { type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API, isPublic } from './api-paths.js';
import { authenticator, type Authenticate } from './authentication.js';
import type { App, Context } from './context.js';
import { openDatabase } from './db.js';
import { Entries } from './entries.js';
import { errorBody, errorHandler } from './errors.js';
import { FaultInjector, type FaultSpec } from './faults.js';
import { installRequestHooks } from './hooks.js';
import { authRoutes } from './routes/auth.js';
import { entryRoutes } from './routes/entries.js';
import { uploadRoutes } from './routes/uploads.js';
import { sharingRoutes } from './routes/sharing.js';
import { linkRoutes } from './routes/links.js';
import { publicLinkRoutes } from './routes/public-links.js';
import { listRoutes } from './routes/lists.js';
import { contentRoutes } from './routes/content.js';
import { profileOf, type ListFormat, type Profile, type ProfileName } from './profile.js';

export type { App, Context, ListFormat, ProfileName };
export { API };

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

const MAX_UPLOAD_BYTES = 1024 ** 4;

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
  const { dataDir, blobDir, tmpDir } = prepareDataDir(options.dataDir);
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
  const authenticate = authenticator(db);
  const app = createApp(options, profile, authenticate);
  installBodyHandling(app, profile);
  installRequestHooks(app, { latencyMs: options.latencyMs ?? 0, faults, authenticate });
  await registerRoutes(app, context);
  app.addHook('onClose', async () => {
    db.close();
    // A server started without a data folder made itself a scratch one; it goes with the server.
    if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
  });
  return { app, context, faults };
}

function prepareDataDir(given: string | undefined): { dataDir: string; blobDir: string; tmpDir: string } {
  const dataDir = given ?? mkdtempSync(join(tmpdir(), 'drivesync-server-'));
  const blobDir = join(dataDir, 'blobs');
  const tmpDir = join(dataDir, 'tmp');
  mkdirSync(blobDir, { recursive: true });
  // Uploads are written here before they become blobs: what a killed server left here is never finished, so it goes.
  rmSync(tmpDir, { recursive: true, force: true });
  mkdirSync(tmpDir, { recursive: true });
  return { dataDir, blobDir, tmpDir };
}

function createApp(options: ServerOptions, profile: Profile, authenticate: Authenticate): App {
  const app: App = Fastify({
    logger: options.log ? { level: 'info' } : false,
    bodyLimit: 1024 * 1024,
    routerOptions: { maxParamLength: 500 },
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false, allErrors: true } },
    frameworkErrors: frameworkErrors(profile, authenticate),
  }).withTypeProvider<TypeBoxTypeProvider>();
  // The hook that checks the token sets it (hooks.ts) before any route runs.
  app.decorateRequest('userId', 0);
  return app;
}

/**
 * A path the router matched but cannot decode (`%ZZ`) or an over-long path parameter is malformed data (422),
 * answered in the service's error shape; an unauthenticated caller still learns only that it is one.
 */
function frameworkErrors(profile: Profile, authenticate: Authenticate) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const url = request.raw.url ?? '/';
    if (!isPublic(url) && !authenticate(request)) {
      return reply.code(401).send(errorBody(profile, 401, 'Unauthenticated.'));
    }
    if (error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      const message = 'The request path is malformed.';
      return reply.code(422).send(errorBody(profile, 422, message, { path: message }));
    }
    return reply.code(500).send({ message: 'Server error.' });
  };
}

/** Refusals and unknown paths answered in the service's shapes, and JSON bodies read as the service reads them. */
function installBodyHandling(app: App, profile: Profile): void {
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
}

async function registerRoutes(app: App, context: Context): Promise<void> {
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
