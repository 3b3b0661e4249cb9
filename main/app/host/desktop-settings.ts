/**
 * The window's own settings (the ones the command line has no use for), in `desktop.json` beside the shared
 * `config.json`. Folders and the poll interval stay in `config.json`, shared with `drivesync`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeJsonAtomic } from '../../state/json-file.js';
import type { StatePaths } from '../../state/paths.js';

export interface DesktopSettings {
  concurrency: number;
  bandwidthLimitKBps: number;
  startAtLogin: boolean;
  paused: boolean;
}

export const DEFAULT_DESKTOP_SETTINGS: DesktopSettings = { concurrency: 4, bandwidthLimitKBps: 0, startAtLogin: false, paused: false };

export const desktopSettingsFile = (paths: StatePaths) => join(paths.configDir, 'desktop.json');

export function loadDesktopSettings(paths: StatePaths): DesktopSettings {
  const settings = { ...DEFAULT_DESKTOP_SETTINGS };
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(desktopSettingsFile(paths), 'utf8')) as Record<string, unknown>;
  } catch {
    return settings;
  }
  if (!raw || typeof raw !== 'object') return settings;
  if (Number.isInteger(raw.concurrency) && (raw.concurrency as number) >= 1 && (raw.concurrency as number) <= 16) settings.concurrency = raw.concurrency as number;
  if (typeof raw.bandwidthLimitKBps === 'number' && raw.bandwidthLimitKBps >= 0) settings.bandwidthLimitKBps = raw.bandwidthLimitKBps;
  if (typeof raw.startAtLogin === 'boolean') settings.startAtLogin = raw.startAtLogin;
  if (typeof raw.paused === 'boolean') settings.paused = raw.paused;
  return settings;
}

export function saveDesktopSettings(paths: StatePaths, settings: DesktopSettings): void {
  writeJsonAtomic(desktopSettingsFile(paths), settings, 0o600);
}
