/**
 * What every command that talks to the service needs: the state paths, the config, and a signed-in client.
 */
import type { DriveClient } from '../api/client.js';
import { loadConfig, type Config } from './config.js';
import { findToken, type TokenSource } from './credentials.js';
import { CliError, usageError } from './errors.js';
import { log } from './log.js';
import { statePaths, type StatePaths } from './paths.js';

export interface Session {
  paths: StatePaths;
  config: Config;
  server: string;
  email: string | undefined;
  client: DriveClient;
  tokenSource: TokenSource;
}

export const NOT_SIGNED_IN = 'not signed in: run drivesync login';

/** The server to use: `DRIVESYNC_SERVER` overrides the config's. */
export function serverOf(config: Config, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const fromEnv = env.DRIVESYNC_SERVER?.trim();
  return fromEnv ? normaliseServer(fromEnv) : config.server;
}

/** An http(s) origin, or a usage error. */
export function normaliseServer(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usageError(`--server must be a URL such as http://127.0.0.1:8080 (got ${text})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw usageError(`--server must start with http:// or https:// (got ${text})`);
  }
  return url.origin;
}

export async function newClient(server: string, token: string | undefined, retry: { limit: number; baseDelayMs: number } = { limit: 2, baseDelayMs: 300 }): Promise<DriveClient> {
  const { DriveClient } = await import('../api/client.js');
  return new DriveClient({
    origin: server,
    ...(token ? { token } : {}),
    retry,
    onRetry: (event) => log().warn({ endpoint: event.endpoint, attempt: event.attempt, delayMs: event.delayMs, reason: event.reason }, 'retrying'),
  });
}

/** A client for the signed-in account, or the "not signed in" failure. */
export async function openSession(options: { retry?: { limit: number; baseDelayMs: number } } = {}): Promise<Session> {
  const paths = statePaths();
  const config = loadConfig(paths);
  const server = serverOf(config);
  if (!server) throw new CliError(NOT_SIGNED_IN);
  // The config's e-mail belongs to the config's server only.
  const email = config.server === server ? config.email : undefined;
  const found = await findToken(paths, server, email);
  if (!found) throw new CliError(NOT_SIGNED_IN);
  const client = await newClient(server, found.token, options.retry);
  return { paths, config, server, email, client, tokenSource: found.source };
}
