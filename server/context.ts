import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Db } from './db.js';
import type { Entries } from './entries.js';
import type { ListFormat, Profile } from './profile.js';

/**
 * What a route handler is given: the server's instance and its state. Kept apart from app.ts, which builds both and
 * registers the routes, so that the routes depend on what they are handed rather than on who hands it.
 */
export interface Context {
  db: Db;
  entries: Entries;
  dataDir: string;
  blobDir: string;
  tmpDir: string;
  listFormat: ListFormat;
  profile: Profile;
}

// The account of an authenticated request; app.ts's onRequest hook sets it before any route runs.
declare module 'fastify' {
  interface FastifyRequest {
    userId: number;
  }
}

export type App = FastifyInstance<any, any, any, any, TypeBoxTypeProvider>;
