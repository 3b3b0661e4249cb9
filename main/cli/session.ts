/**
 * What every command that talks to the service needs: the state paths, the config, and a signed-in client.
 */
import type { BandwidthSettings } from '../api/bandwidth.js';
import type { DriveClient } from '../api/client.js';
import { clientTimeouts, loadConfig, type Config } from '../state/config.js';
import { findToken, type TokenSource } from '../state/credentials.js';
import { statePaths, type StatePaths } from '../state/paths.js';
import { emailFor, serverOf } from '../state/server.js';
import { CliError } from './errors.js';
import { log } from './log.js';

export interface Session {
  paths: StatePaths;
  config: Config;
  server: string;
  email: string | undefined;
  client: DriveClient;
  tokenSource: TokenSource;
}

export const NOT_SIGNED_IN = 'not signed in: run drivesync login';

export async function newClient(
  server: string,
  token: string | undefined,
  retry: { limit: number; baseDelayMs: number } = { limit: 2, baseDelayMs: 300 },
  timeouts: { request?: number; stall?: number } = clientTimeouts({}),
  bandwidth: BandwidthSettings = {},
): Promise<DriveClient> {
  const { DriveClient } = await import('../api/client.js');
  return new DriveClient({
    origin: server,
    ...(token ? { token } : {}),
    retry,
    timeouts,
    bandwidth,
    onRetry: (event) => log().warn({ endpoint: event.endpoint, attempt: event.attempt, delayMs: event.delayMs, reason: event.reason }, 'retrying'),
  });
}

/** A client for the signed-in account, or the "not signed in" failure. */
export async function openSession(options: { retry?: { limit: number; baseDelayMs: number } } = {}): Promise<Session> {
  const paths = statePaths();
  const config = loadConfig(paths);
  const server = serverOf(config);
  if (!server) throw new CliError(NOT_SIGNED_IN);
  const email = emailFor(config, server);
  const found = await findToken(paths, server, email);
  if (!found) throw new CliError(NOT_SIGNED_IN);
  const client = await newClient(server, found.token, options.retry, clientTimeouts(config), config.bandwidth ?? {});
  return { paths, config, server, email, client, tokenSource: found.source };
}
