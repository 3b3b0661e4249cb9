/**
 * "Recent files": the latest distinct files the engines touched, each with its state now, in the emblems' words — a
 * conflict kept two versions, an error stopped it, or what the engine says of it (synced, syncing again…). Made from the host's activity, conflicts and errors (newest first).
 */
import type { ActivityItem, ConflictItem, ErrorItem, ItemState, RecentFile } from '../../contract/index.js';

const FILE_KINDS = new Set<ActivityItem['kind']>(['upload', 'download', 'replace-remote', 'conflict', 'move-local', 'move-remote', 'rename-remote']);

/** What takes a path (and what was inside it) off this computer: it is no longer a recent file here. */
const TRASH_KINDS = new Set<ActivityItem['kind']>(['trash-local', 'trash-remote', 'forget', 'drop-local']);

const keyOf = (root: string, path: string) => `${root}\u0000${path}`;
const nameOf = (path: string) => path.slice(path.lastIndexOf('/') + 1) || path;

/** `stateOf`: what the emblems say of a path now (absent: the folder's engine is not open here). */
export function recentFiles(
  activity: readonly ActivityItem[],
  conflicts: readonly ConflictItem[],
  errors: readonly ErrorItem[],
  stateOf: (root: string, path: string) => ItemState | undefined = () => undefined,
  limit = 30,
): RecentFile[] {
  const failed = new Map<string, ErrorItem>();
  for (const error of errors) if (error.path !== '' && !failed.has(keyOf(error.root, error.path))) failed.set(keyOf(error.root, error.path), error);
  const conflicted = new Map<string, ConflictItem>();
  for (const c of conflicts) if (!conflicted.has(keyOf(c.root, c.path))) conflicted.set(keyOf(c.root, c.path), c);

  const out = new Map<string, RecentFile>();
  const add = (file: RecentFile) => {
    const key = keyOf(file.root, file.path);
    const had = out.get(key);
    if (!had || had.at < file.at) out.set(key, file);
  };
  const settled = new Set<string>();
  const trashedFolders: string[] = [];
  for (const item of activity) {
    if (item.path === '' || item.path.startsWith('#')) continue;
    const key = keyOf(item.root, item.path);
    // Only what last happened to a path counts: a file moved to the trash since (itself or its folder) is no longer
    // a recent file.
    if (TRASH_KINDS.has(item.kind)) {
      settled.add(key);
      trashedFolders.push(`${key}/`);
    }
    if (settled.has(key) || !FILE_KINDS.has(item.kind) || trashedFolders.some((folder) => key.startsWith(folder))) continue;
    settled.add(key);
    add({ root: item.root, path: item.path, name: nameOf(item.path), at: item.at, description: item.description, state: stateOf(item.root, item.path) ?? 'synced', problem: null });
  }
  for (const error of failed.values()) {
    add({ root: error.root, path: error.path, name: nameOf(error.path), at: error.at, description: 'Not synced', state: 'error', problem: error.message });
  }
  const files = [...out.values()].map((file) => {
    const key = keyOf(file.root, file.path);
    const error = failed.get(key);
    // An error newer than the last thing that went through is the file's state; an older one was overcome.
    if (error && error.at >= file.at) return { ...file, state: 'error' as const, problem: error.message };
    const conflict = conflicted.get(key);
    if (conflict) {
      return { ...file, state: 'conflict' as const, problem: `Changed here and on the drive: this is the drive’s version, yours is kept as ${nameOf(conflict.copyPath)}.` };
    }
    return file;
  });
  return files.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0)).slice(0, limit);
}
