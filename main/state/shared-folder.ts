/**
 * Where what others share with the account arrives in a synced folder: a folder at its top, `Shared with me` unless
 * the config names another or none (then nothing shared with the account is synced there).
 */
import { StateError } from './errors.js';
import { isFolderName, loadConfig, saveConfig, type Config } from './config.js';
import type { StatePaths } from './paths.js';

export const DEFAULT_SHARED_FOLDER = 'Shared with me';

/** The name of the folder a synced folder keeps what is shared with the account in; null: none. */
export function sharedFolderOf(config: Config, root: string): string | null {
  const own = config.sharedWithMe?.[root];
  return own === undefined ? DEFAULT_SHARED_FOLDER : own;
}

/** Sets the folder's name (null: off). A running engine follows the config (main/state/folder.ts). */
export function saveSharedFolder(paths: StatePaths, root: string, name: string | null): void {
  if (name !== null && !isFolderName(name)) throw new StateError(`"${name.slice(0, 80)}" cannot be a folder's name`);
  const config = loadConfig(paths);
  const shared = { ...config.sharedWithMe };
  if (name === DEFAULT_SHARED_FOLDER) delete shared[root];
  else shared[root] = name;
  const { sharedWithMe: _, ...rest } = config;
  saveConfig(paths, Object.keys(shared).length > 0 ? { ...rest, sharedWithMe: shared } : rest);
}
