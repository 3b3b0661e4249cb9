/**
 * The shared configuration (the command line's and the window's): one JSON file under the state dir holding the
 * server, the account's e-mail, the sync roots and the poll interval. It never holds a token or a password.
 */
import { readFileSync } from 'node:fs';
import { StateError } from './errors.js';
import { writeJsonAtomic } from './json-file.js';
import type { StatePaths } from './paths.js';

export interface Config {
  /** Origin of the service, e.g. `http://127.0.0.1:8080`. */
  server?: string;
  email?: string;
  /** Absolute paths of the synced folders (`drivesync sync DIR` adds one; the window's settings set them). */
  roots: string[];
  /** How often a running `sync` polls the service for remote changes. */
  pollIntervalSeconds: number;
}

export const DEFAULT_POLL_SECONDS = 15;

const defaults = (): Config => ({ roots: [], pollIntervalSeconds: DEFAULT_POLL_SECONDS });

export function loadConfig(paths: StatePaths): Config {
  let text: string;
  try {
    text = readFileSync(paths.configFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return defaults();
    throw new StateError(`cannot read ${paths.configFile}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new StateError(`${paths.configFile} is not valid JSON; fix it or remove it`);
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new StateError(`${paths.configFile} does not hold a JSON object; fix it or remove it`);
  }
  const r = raw as Record<string, unknown>;
  const config = defaults();
  if (typeof r.server === 'string' && r.server !== '') config.server = r.server;
  if (typeof r.email === 'string' && r.email !== '') config.email = r.email;
  if (Array.isArray(r.roots)) config.roots = r.roots.filter((x): x is string => typeof x === 'string' && x !== '');
  if (typeof r.pollIntervalSeconds === 'number' && Number.isFinite(r.pollIntervalSeconds) && r.pollIntervalSeconds > 0) {
    config.pollIntervalSeconds = r.pollIntervalSeconds;
  }
  return config;
}

/** Writes the whole file atomically (temp file + rename). */
export function saveConfig(paths: StatePaths, config: Config): void {
  writeJsonAtomic(paths.configFile, config, 0o600);
}
