/**
 * The background service: `drivesync run` syncs every configured folder in one process, started at login by a
 * systemd user unit (restarted on failure, its output in the journal), or, where there is no systemd user manager,
 * by an XDG autostart entry. One runs per state folder: `run.pid` says which process it is.
 */
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { isAlive } from './lock.js';
import type { StatePaths } from './paths.js';

export const UNIT_NAME = 'drivesync.service';
export const AUTOSTART_NAME = 'drivesync-service.desktop';

const stateDirOf = (paths: StatePaths) => paths.home ?? paths.dataDir;
export const servicePidFile = (paths: StatePaths) => join(stateDirOf(paths), 'run.pid');

/** The process `drivesync run` runs in for this state folder, or null. */
export function runningService(paths: StatePaths): number | null {
  try {
    const { pid } = JSON.parse(readFileSync(servicePidFile(paths), 'utf8')) as { pid?: unknown };
    return typeof pid === 'number' && pid !== process.pid && isAlive(pid) ? pid : null;
  } catch {
    return null;
  }
}

/** Marks this process as the service; null when another one runs (its pid is returned instead). */
export function takeService(paths: StatePaths): { release: () => void } | { runningAs: number } {
  const other = runningService(paths);
  if (other !== null) return { runningAs: other };
  const file = servicePidFile(paths);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() })}\n`);
  return {
    release: () => {
      if (runningService(paths) === null) rmSync(file, { force: true });
    },
  };
}

const configHome = (env: NodeJS.ProcessEnv) => env.XDG_CONFIG_HOME?.trim() || join(homedir(), '.config');
export const unitFile = (env: NodeJS.ProcessEnv = process.env) => join(configHome(env), 'systemd', 'user', UNIT_NAME);
export const serviceAutostartFile = (env: NodeJS.ProcessEnv = process.env) => join(configHome(env), 'autostart', AUTOSTART_NAME);

/** A value systemd reads as one word: quoted, with its quotes, backslashes and specifiers escaped. */
const systemdWord = (word: string) => `"${word.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%')}"`;
/** A word of a desktop entry's Exec key. */
const desktopWord = (word: string) => `"${word.replace(/(["`$\\])/g, '\\$1')}"`;

/** What the service runs: this Node and the drivesync this command was started as (`bin/drivesync.js`), `run`. */
export function serviceCommand(script = process.argv[1] ?? 'drivesync'): string[] {
  let bin = script;
  try {
    bin = realpathSync(script);
  } catch {
    // As given.
  }
  return [process.execPath, bin, 'run'];
}

/** The systemd user unit: started at login, restarted on failure, its output in the journal. */
export function unitText(command: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
  const kept = ['DRIVESYNC_HOME', 'DRIVESYNC_SERVER', 'DRIVESYNC_LOG_LEVEL'].filter((name) => env[name]);
  return [
    '[Unit]',
    'Description=drivesync: keeps your folders in sync with your drive',
    'After=network-online.target',
    'Wants=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${command.map(systemdWord).join(' ')}`,
    ...kept.map((name) => `Environment=${systemdWord(`${name}=${env[name]}`)}`),
    'Restart=on-failure',
    'RestartSec=10',
    // A stop lets transfers under way end cleanly before the engine exits.
    'TimeoutStopSec=30',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

/** The XDG autostart entry, where no systemd user manager runs. */
export function serviceAutostartText(command: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
  const home = env.DRIVESYNC_HOME ? ['env', `DRIVESYNC_HOME=${env.DRIVESYNC_HOME}`] : [];
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=drivesync service',
    'Comment=Keeps your folders in sync with your drive, in the background',
    `Exec=${[...home, ...command].map(desktopWord).join(' ')}`,
    'Terminal=false',
    'NoDisplay=true',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}
