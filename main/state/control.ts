/**
 * Pausing, resuming and removing a synced folder, from any process: the command is written to the config, and
 * whoever syncs the folder (a running `drivesync sync`, the window's engines) follows the config as it changes.
 * A pause may end at a time; a removed folder's engine stops, and what drivesync kept about the folder goes.
 */
import { existsSync, readdirSync, rmSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { loadConfig, saveConfig, type Config, type DeletionAnswer } from './config.js';
import type { StatePaths } from './paths.js';
import { rootOfAccount } from './roots.js';
import { readStatus } from './status-file.js';
import { isAlive } from './lock.js';

export interface FolderControl {
  /** Paused now: until `until` (ISO), or until resumed when null. */
  paused: { until: string | null } | null;
  /** No longer among the synced folders. */
  removed: boolean;
}

/** What the config says a folder should do now (a pause whose time has come is over). */
export function controlOf(config: Config, root: string, now = Date.now()): FolderControl {
  const pause = config.paused?.[root] ?? null;
  const over = pause?.until != null && Date.parse(pause.until) <= now;
  return { paused: pause && !over ? pause : null, removed: !config.roots.includes(root) };
}

/** Pauses these folders until a time, or until resumed. */
export function pauseFolders(paths: StatePaths, roots: readonly string[], until: Date | null): void {
  const config = loadConfig(paths);
  const paused = { ...config.paused };
  for (const root of roots) paused[root] = { until: until ? until.toISOString() : null };
  saveConfig(paths, { ...config, paused });
}

/** The config without these folders' pauses (no `paused` key once none is left). */
function withoutPauses(config: Config, roots: readonly string[]): Config {
  const paused = { ...config.paused };
  for (const root of roots) delete paused[root];
  const { paused: _, ...rest } = config;
  return Object.keys(paused).length > 0 ? { ...rest, paused } : rest;
}

/** Resumes these folders; answers those that were paused. */
export function resumeFolders(paths: StatePaths, roots: readonly string[]): string[] {
  const config = loadConfig(paths);
  const resumed = roots.filter((root) => config.paused?.[root] !== undefined);
  saveConfig(paths, withoutPauses(config, resumed));
  return resumed;
}

/** Answers a folder's deletion question, given for `count` deletions: whoever syncs the folder takes it up. */
export function answerDeletions(paths: StatePaths, root: string, answer: DeletionAnswer): void {
  const config = loadConfig(paths);
  saveConfig(paths, { ...config, deletionAnswers: { ...config.deletionAnswers, [root]: answer } });
}

/** Removes a folder's answer (taken up, or no longer for the question the folder holds). */
export function clearDeletionAnswer(paths: StatePaths, root: string): void {
  const config = loadConfig(paths);
  if (!config.deletionAnswers?.[root]) return;
  const answers = { ...config.deletionAnswers };
  delete answers[root];
  const { deletionAnswers: _, ...rest } = config;
  saveConfig(paths, Object.keys(answers).length > 0 ? { ...rest, deletionAnswers: answers } : rest);
}

/** Takes a folder off the synced folders (its engine, wherever it runs, stops). */
export function unlistFolder(paths: StatePaths, root: string): void {
  const { selective, deletionAnswers, ...config } = withoutPauses(loadConfig(paths), [root]);
  const answers = { ...deletionAnswers };
  delete answers[root];
  const kept = { ...selective };
  delete kept[root];
  saveConfig(paths, {
    ...config,
    roots: config.roots.filter((r) => r !== root),
    ...(Object.keys(kept).length > 0 ? { selective: kept } : {}),
    ...(Object.keys(answers).length > 0 ? { deletionAnswers: answers } : {}),
  });
}

/** The process that syncs a folder now, on this computer, as its status file says; null when none does. */
export function runningSync(paths: StatePaths, root: string, server: string, email: string | undefined): number | null {
  const status = readStatus(paths, rootOfAccount(paths, root, server, email).key);
  return status && status.state !== 'stopped' && status.pid !== process.pid && isAlive(status.pid) ? status.pid : null;
}

/**
 * Forgets what drivesync kept about a folder it no longer syncs: its mirror and status, and `.drivesync/` inside it.
 * Its files stay; a later sync of it merges it with the drive afresh, which deletes nothing. Items waiting in
 * `.drivesync/trashing/` (on their way to the OS trash when the engine stopped) are never deleted: the folder is kept
 * then, and its path answered.
 */
export function forgetFolder(paths: StatePaths, root: string, server: string, email: string | undefined): { kept: string | null } {
  const { mirror, key } = rootOfAccount(paths, root, server, email);
  for (const file of [mirror, `${mirror}-wal`, `${mirror}-shm`, `${mirror}.lock`, join(paths.statusDir, `${key}.json`)]) rmSync(file, { force: true });
  const own = join(root, '.drivesync');
  const trashing = join(own, 'trashing');
  if (existsSync(trashing) && readdirSync(trashing).length > 0) return { kept: trashing };
  rmSync(own, { recursive: true, force: true });
  return { kept: null };
}

/**
 * Calls `onChange` with the config each time it changes on disk (written by this process or another), and when a timed
 * pause it holds comes to its end, until the answered function is called. The folder holding the config is watched,
 * since the config is replaced, not written.
 */
export function followConfig(paths: StatePaths, onChange: (config: Config) => void): () => void {
  const dir = dirname(paths.configFile);
  const name = basename(paths.configFile);
  let timer: NodeJS.Timeout | null = null;
  let pauseEnds: NodeJS.Timeout | null = null;
  let watcher: FSWatcher | null = null;
  /** Wakes when the earliest pause still to end does, whether or not anything writes the config again. */
  const wakeAtPauseEnd = (config: Config) => {
    if (pauseEnds) clearTimeout(pauseEnds);
    pauseEnds = null;
    const now = Date.now();
    const ends = Object.values(config.paused ?? {})
      .map((p) => (p.until ? Date.parse(p.until) : NaN))
      .filter((at) => at > now);
    if (ends.length === 0) return;
    pauseEnds = setTimeout(read, Math.min(...ends) - now + 50);
    pauseEnds.unref();
  };
  const read = () => {
    try {
      const config = loadConfig(paths);
      wakeAtPauseEnd(config);
      onChange(config);
    } catch {
      // Half-written or damaged: the next change is read again; commands say what is wrong with it.
    }
  };
  const changed = () => {
    if (timer) clearTimeout(timer);
    // A burst of events for one replacement is read once.
    timer = setTimeout(() => {
      timer = null;
      read();
    }, 100);
    timer.unref();
  };
  try {
    wakeAtPauseEnd(loadConfig(paths));
  } catch {
    // Read again at its next change.
  }
  try {
    watcher = watch(dir, { persistent: false }, (_event, file) => {
      if (file === null || file === name) changed();
    });
    watcher.on('error', () => undefined);
  } catch {
    // The folder cannot be watched: nothing follows the config, as before.
  }
  return () => {
    if (timer) clearTimeout(timer);
    if (pauseEnds) clearTimeout(pauseEnds);
    watcher?.close();
  };
}
