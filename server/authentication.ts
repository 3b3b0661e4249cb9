import type { FastifyRequest } from 'fastify';
import { API } from './api-paths.js';
import type { Db } from './db.js';
import { hashToken } from './secrets.js';

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

/** The account of a request's token, or null. Tokens are stored hashed, so the one sent is hashed to be found. */
export type Authenticate = (request: FastifyRequest) => number | null;

export function authenticator(db: Db): Authenticate {
  const lookup = db.prepare<[string], { user_id: number }>('SELECT user_id FROM tokens WHERE token_hash = ?');
  return (request) => {
    const token = bearer(request);
    const row = token ? lookup.get(hashToken(token)) : undefined;
    return row ? row.user_id : null;
  };
}
