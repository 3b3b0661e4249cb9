/** The address of the service: one normal form (its origin) for the config, the keychain entry and the mirrors. */
import type { ApiError } from '../api/errors.js';
import type { Config } from './config.js';
import { ServerAddressError } from './errors.js';

/**
 * The scheme an address without one gets: plain http on this computer (a server of one's own, as `drivesync server`
 * starts), https everywhere else. Null when the address names its scheme.
 */
export function assumedScheme(text: string): 'http' | 'https' | null {
  const trimmed = text.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) return null;
  const host = trimmed.replace(/^\[/, '').split(/[\]/:?#]/)[0]!.toLowerCase();
  const loopback = host === 'localhost' || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host) || trimmed.startsWith('[::1]');
  return loopback ? 'http' : 'https';
}

/** An http(s) origin, or ServerAddressError. An address without a scheme gets the one `assumedScheme` says. */
export function normaliseServer(text: string): string {
  const scheme = assumedScheme(text);
  const withScheme = scheme ? `${scheme}://${text.trim()}` : text.trim();
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new ServerAddressError('not-a-url', text);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ServerAddressError('not-http', text);
  if (!url.hostname || url.username || url.password) throw new ServerAddressError('not-a-url', text);
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
