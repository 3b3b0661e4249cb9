/** The address of the service: one normal form (its origin) for the config, the keychain entry and the mirrors. */
import type { ApiError } from '../api/errors.js';
import type { Config } from './config.js';
import { ServerAddressError } from './errors.js';

/** An http(s) origin, or ServerAddressError. */
export function normaliseServer(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new ServerAddressError('not-a-url', text);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ServerAddressError('not-http', text);
  return url.origin;
}

/** The server to use: `DRIVESYNC_SERVER` overrides the config's. */
export function serverOf(config: Config, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const fromEnv = env.DRIVESYNC_SERVER?.trim();
  return fromEnv ? normaliseServer(fromEnv) : config.server;
}

/** The account the state names: the config's e-mail belongs to the config's server only. */
export function emailFor(config: Config, server: string | undefined): string | undefined {
  return config.server === server ? config.email : undefined;
}

/**
 * Whether a failed sign-in shows the address is not a drive at all: a web server without the service's routes
 * answers them 404, 405 or 501, or with something that is not the service's JSON. A drive that is down answers 500
 * or 502–504, and is still a drive.
 */
export function notADrive(error: ApiError): boolean {
  if (error.kind === 'bad-response' || error.kind === 'not-found') return true;
  return error.status !== undefined && [405, 501].includes(error.status);
}
