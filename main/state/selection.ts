/**
 * Selective sync as the front ends keep it: which folders of the drive each synced folder leaves out, by entry id, in
 * the config (so `drivesync exclude` works while nothing runs, and a running engine follows the config). The drive's
 * folder tree they choose from is drive-tree.ts.
 */
import type { Selection } from '../sync/plan/selective.js';
import type { RemoteId } from '../sync/model/types.js';
import { loadConfig, saveConfig, type Config, type FolderSelection } from './config.js';
import type { StatePaths } from './paths.js';

export type { Selection } from '../sync/plan/selective.js';

/** What the engine of a synced folder is to leave out, as the config says. */
export function selectionOf(config: Config, root: string): Selection {
  const own = config.selective?.[root];
  return { excluded: new Set(own?.excluded ?? []), newFolders: own?.newFolders === 'exclude' ? 'exclude' : 'sync' };
}

/** A short key that changes when the selection does (to tell a running engine only then). */
export const selectionKey = (selection: Selection): string =>
  `${[...selection.excluded].sort((a, b) => a - b).join(',')}|${selection.newFolders ?? 'sync'}`;

/** Writes one folder's selection (no key left for a folder that leaves nothing out). */
export function saveSelection(paths: StatePaths, root: string, change: (own: FolderSelection) => FolderSelection): FolderSelection {
  const config = loadConfig(paths);
  const before: FolderSelection = { excluded: [...(config.selective?.[root]?.excluded ?? [])], ...(config.selective?.[root]?.newFolders ? { newFolders: 'exclude' } : {}) };
  const after = change(before);
  const excluded = [...new Set(after.excluded)].sort((a, b) => a - b);
  const selective = { ...config.selective };
  if (excluded.length === 0 && after.newFolders !== 'exclude') delete selective[root];
  else selective[root] = { excluded, ...(after.newFolders === 'exclude' ? { newFolders: 'exclude' as const } : {}) };
  const { selective: _, ...rest } = config;
  // Unchanged, the config is not written (a running engine would look at its selection again for nothing).
  if (JSON.stringify(selective[root] ?? null) !== JSON.stringify(config.selective?.[root] ?? null)) {
    saveConfig(paths, Object.keys(selective).length > 0 ? { ...rest, selective } : rest);
  }
  return { excluded, ...(after.newFolders === 'exclude' ? { newFolders: 'exclude' } : {}) };
}

/** Adds exclusions (the engine's new-folders setting, the command line, the window). */
export function addExclusions(paths: StatePaths, root: string, ids: readonly RemoteId[]): void {
  saveSelection(paths, root, (own) => ({ ...own, excluded: [...own.excluded, ...ids] }));
}

export { DriveTree, folderSizes, loadDriveTree, withExcluded, withIncluded, type DriveFolder } from './drive-tree.js';
