/**
 * Where drivesync keeps its state (the command line's and the window's alike): everything under `$DRIVESYNC_HOME` when it is set, else the XDG
 * directories (through env-paths). Nothing here touches the disk.
 */
import { createHash } from 'node:crypto';
import { basename, join } from 'node:path';
import envPaths from 'env-paths';

export interface StatePaths {
  /** Set when the state lives under `$DRIVESYNC_HOME`. */
  home: string | null;
  configDir: string;
  dataDir: string;
  logDir: string;
  /** Server URL, e-mail, sync roots, poll interval (no secrets). */
  configFile: string;
  /** The token, only where no OS keychain answers (mode 0600). */
  tokenFile: string;
  logFile: string;
  mirrorsDir: string;
  statusDir: string;
  demoDir: string;
}

export function statePaths(env: NodeJS.ProcessEnv = process.env): StatePaths {
  const home = env.DRIVESYNC_HOME?.trim() ? env.DRIVESYNC_HOME : null;
  let configDir: string;
  let dataDir: string;
  let logDir: string;
  if (home) {
    configDir = home;
    dataDir = home;
    logDir = join(home, 'logs');
  } else {
    const xdg = envPaths('drivesync', { suffix: '' });
    configDir = xdg.config;
    dataDir = xdg.data;
    logDir = xdg.log;
  }
  return {
    home,
    configDir,
    dataDir,
    logDir,
    configFile: join(configDir, 'config.json'),
    tokenFile: join(configDir, 'token.json'),
    logFile: join(logDir, 'drivesync.log'),
    mirrorsDir: join(dataDir, 'mirrors'),
    statusDir: join(dataDir, 'status'),
    demoDir: join(dataDir, 'demo'),
  };
}

/**
 * The key of one sync root of one account: its mirror database and its status file are named after it, so the same
 * folder synced with another account never reuses the other account's mirror.
 */
export function rootKey(root: string, server: string, email: string | undefined): string {
  const digest = createHash('sha256').update(`${server}\n${email ?? ''}\n${root}`).digest('hex').slice(0, 16);
  const label = basename(root).replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 40) || 'root';
  return `${label}-${digest}`;
}

export function mirrorFile(paths: StatePaths, key: string): string {
  return join(paths.mirrorsDir, `${key}.sqlite`);
}

export function statusFile(paths: StatePaths, key: string): string {
  return join(paths.statusDir, `${key}.json`);
}
