/**
 * The shared configuration (the command line's and the window's): one JSON file under the state dir holding the
 * server, the account's e-mail, the sync roots, the poll interval and the request deadlines. It never holds a token or a
 * password.
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
  /** Overall deadline of each metadata request (listings, JSON calls); the client's default is 60. */
  requestTimeoutSeconds?: number;
  /** A transfer fails when no byte has moved for this long; the client's default is 60. */
  stallTimeoutSeconds?: number;
  /**
   * Earlier versions of files (what a saved edit replaced, kept in the drive's trash) are deleted for good this many
   * days after; absent, they are kept until the trash is emptied.
   */
  keepVersionsDays?: number;
  /**
   * Transfer limits in bytes per second, for every transfer of the account (`sync --limit-up/--limit-down`, the
   * window's Settings); absent or 0: no limit. A running sync and the window follow a change at once.
   */
  bandwidth?: { upBytesPerSecond?: number; downBytesPerSecond?: number };
  /**
   * Synced folders paused by `drivesync pause` (or the window), by path: until when (ISO), or null until resumed.
   * Whoever syncs the folder follows it (main/state/control.ts).
   */
  paused?: Record<string, { until: string | null }>;
  /**
   * Answers given by `drivesync deletions --delete|--keep` (or the window) to the deletions a synced folder holds for
   * an answer, by path: the answer and the count of deletions it was given for. Whoever syncs the folder takes it up,
   * and removes it, when its question is still that count (main/state/control.ts).
   */
  deletionAnswers?: Record<string, DeletionAnswer>;
  /** Selective sync, by synced folder (path): what each leaves out of the drive (main/state/selection.ts). */
  selective?: Record<string, FolderSelection>;
  /**
   * Where what others share with the account arrives, by synced folder (path): the name of a folder at its top, or
   * null for nowhere (not synced). Absent: `Shared with me` (main/state/shared-folder.ts).
   */
  sharedWithMe?: Record<string, string | null>;
}

/** An answer to a folder's deletion question: delete them, or keep them; given for `count` deletions. */
export interface DeletionAnswer {
  answer: 'delete' | 'keep';
  count: number;
}

/** One synced folder's selection. */
export interface FolderSelection {
  /** Folders of the drive left out, by entry id (an exclusion follows its folder wherever it is moved). */
  excluded: number[];
  /** New top-level folders made elsewhere are left out until included. */
  newFolders?: 'exclude';
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
  if (isTimeout(r.requestTimeoutSeconds)) config.requestTimeoutSeconds = r.requestTimeoutSeconds;
  if (isTimeout(r.stallTimeoutSeconds)) config.stallTimeoutSeconds = r.stallTimeoutSeconds;
  if (isKeepDays(r.keepVersionsDays)) config.keepVersionsDays = r.keepVersionsDays;
  if (r.paused && typeof r.paused === 'object' && !Array.isArray(r.paused)) {
    const paused: Record<string, { until: string | null }> = {};
    for (const [root, value] of Object.entries(r.paused as Record<string, unknown>)) {
      const until = (value as { until?: unknown } | null)?.until;
      if (typeof until === 'string' && !Number.isNaN(Date.parse(until))) paused[root] = { until };
      else if (until === null) paused[root] = { until: null };
    }
    if (Object.keys(paused).length > 0) config.paused = paused;
  }
  if (r.bandwidth && typeof r.bandwidth === 'object' && !Array.isArray(r.bandwidth)) {
    const own = r.bandwidth as { upBytesPerSecond?: unknown; downBytesPerSecond?: unknown };
    const rate = (value: unknown) => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined);
    const up = rate(own.upBytesPerSecond);
    const down = rate(own.downBytesPerSecond);
    if (up !== undefined || down !== undefined) config.bandwidth = { ...(up !== undefined ? { upBytesPerSecond: up } : {}), ...(down !== undefined ? { downBytesPerSecond: down } : {}) };
  }
  if (r.deletionAnswers && typeof r.deletionAnswers === 'object' && !Array.isArray(r.deletionAnswers)) {
    const answers: Record<string, DeletionAnswer> = {};
    for (const [root, value] of Object.entries(r.deletionAnswers as Record<string, unknown>)) {
      const own = value as { answer?: unknown; count?: unknown } | null;
      if ((own?.answer === 'delete' || own?.answer === 'keep') && Number.isSafeInteger(own.count) && (own.count as number) > 0) {
        answers[root] = { answer: own.answer, count: own.count as number };
      }
    }
    if (Object.keys(answers).length > 0) config.deletionAnswers = answers;
  }
  if (r.selective && typeof r.selective === 'object' && !Array.isArray(r.selective)) {
    const selective: Record<string, FolderSelection> = {};
    for (const [root, value] of Object.entries(r.selective as Record<string, unknown>)) {
      const own = value as { excluded?: unknown; newFolders?: unknown } | null;
      const excluded = Array.isArray(own?.excluded) ? own.excluded.filter((id): id is number => Number.isSafeInteger(id) && id > 0) : [];
      const newFolders = own?.newFolders === 'exclude';
      if (excluded.length > 0 || newFolders) selective[root] = { excluded, ...(newFolders ? { newFolders: 'exclude' as const } : {}) };
    }
    if (Object.keys(selective).length > 0) config.selective = selective;
  }
  if (r.sharedWithMe && typeof r.sharedWithMe === 'object' && !Array.isArray(r.sharedWithMe)) {
    const shared: Record<string, string | null> = {};
    for (const [root, value] of Object.entries(r.sharedWithMe as Record<string, unknown>)) {
      if (value === null || (typeof value === 'string' && isFolderName(value))) shared[root] = value;
    }
    if (Object.keys(shared).length > 0) config.sharedWithMe = shared;
  }
  return config;
}

/** A name one folder can have on every volume: no separator, not `.` or `..`, not drivesync's own, not too long. */
export const isFolderName = (name: string): boolean =>
  name.trim() === name && name !== '' && name.length <= 200 && !/[/\\\0:*?"<>|]/.test(name) && name !== '.' && name !== '..' && name !== '.drivesync';

/** Whole days, at least one: a version replaced a moment ago is never due. */
export const isKeepDays = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 36_500;

/** Up to a day: longer is no deadline at all, and beyond 24.8 days a timer would fire at once. */
const MAX_TIMEOUT_SECONDS = 86_400;
const isTimeout = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 && value <= MAX_TIMEOUT_SECONDS;

/**
 * The API client's deadlines in milliseconds: `DRIVESYNC_REQUEST_TIMEOUT` and `DRIVESYNC_STALL_TIMEOUT` (seconds)
 * override the config's keys; what neither sets keeps the client's default.
 */
export function clientTimeouts(
  config: Pick<Config, 'requestTimeoutSeconds' | 'stallTimeoutSeconds'>,
  env: NodeJS.ProcessEnv = process.env,
): { request?: number; stall?: number } {
  const seconds = (name: string, fromConfig: number | undefined): number | undefined => {
    const text = env[name]?.trim();
    if (!text) return fromConfig;
    const value = Number(text);
    if (!isTimeout(value)) throw new StateError(`${name} must be a number of seconds from above 0 to ${MAX_TIMEOUT_SECONDS} (got ${text.slice(0, 40)})`);
    return value;
  };
  const request = seconds('DRIVESYNC_REQUEST_TIMEOUT', config.requestTimeoutSeconds);
  const stall = seconds('DRIVESYNC_STALL_TIMEOUT', config.stallTimeoutSeconds);
  return { ...(request !== undefined ? { request: request * 1000 } : {}), ...(stall !== undefined ? { stall: stall * 1000 } : {}) };
}

/** Writes the whole file atomically (temp file + rename). */
export function saveConfig(paths: StatePaths, config: Config): void {
  writeJsonAtomic(paths.configFile, config, 0o600);
}

/** The config with these transfer limits (bytes per second; 0 for none), and nothing of a limit set to none. */
export function withBandwidth(config: Config, limits: { up?: number; down?: number }): Config {
  const current = { ...config.bandwidth };
  if (limits.up !== undefined) current.upBytesPerSecond = limits.up;
  if (limits.down !== undefined) current.downBytesPerSecond = limits.down;
  const kept = {
    ...(current.upBytesPerSecond ? { upBytesPerSecond: current.upBytesPerSecond } : {}),
    ...(current.downBytesPerSecond ? { downBytesPerSecond: current.downBytesPerSecond } : {}),
  };
  const { bandwidth: _, ...rest } = config;
  return Object.keys(kept).length > 0 ? { ...rest, bandwidth: kept } : rest;
}
