/**
 * The synced folder's identity, checked before every pass (as Syncthing checks its folder marker): a folder that is
 * gone, or another folder at the same path (deleted and made again, restored from a backup, an empty mount point
 * of a disk that is not mounted), is never read as "everything in it was deleted".
 *
 * What identifies it: a marker inside it (`.drivesync/folder.json`, holding an id the mirror records too), and the
 * folder's device, inode and birth time, recorded in the mirror. Either one matching is the same folder (a folder
 * moved to another disk and back keeps its marker; one whose `.drivesync` the user removed keeps its inode); neither
 * matching, while the mirror holds synced items, is another folder.
 */
import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { birthTimeOf } from '../model/birth.js';
import type { FileStats, FileSystem } from './ports.js';
import { STATE_DIR } from './state-dir.js';

export const MARKER_FILE = 'folder.json';
const META_KEY = 'folder';

interface Recorded {
  id: string;
  dev: number;
  ino: number;
  birthtimeMs: number;
}

/** Where the identity is kept between runs (the folder's mirror). */
export interface IdentityStore {
  getMeta(key: string): string | undefined;
  setMeta(key: string, value: string): void;
}

export type FolderProblem =
  | { kind: 'gone'; message: string }
  | { kind: 'not-a-folder'; message: string }
  | { kind: 'replaced'; message: string; empty: boolean };

function parse<T>(text: string | undefined): T | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

async function readMarker(root: string): Promise<string | undefined> {
  const text = await readFile(join(root, STATE_DIR, MARKER_FILE), 'utf8').catch(() => undefined);
  const id = parse<{ id?: unknown }>(text)?.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

const sameInode = (recorded: Recorded, now: FileStats): boolean => {
  if (now.ino !== recorded.ino || (now.dev ?? 0) !== recorded.dev) return false;
  const born = birthTimeOf(now) ?? 0;
  return recorded.birthtimeMs === 0 || born === 0 || born === recorded.birthtimeMs;
};

/**
 * Checks that `root` is the folder this mirror synced, and records (or refreshes) what identifies it. `synced`: how
 * many items the mirror holds; with none, any folder at the path is taken as the synced folder.
 */
export async function checkFolderIdentity(root: string, fs: FileSystem, store: IdentityStore, synced: number): Promise<FolderProblem | null> {
  let stats: FileStats;
  try {
    stats = await fs.stat(root);
  } catch {
    return {
      kind: 'gone',
      message: `the synced folder ${root} is gone (deleted, moved, or on a disk that is not mounted); nothing is synced, and nothing is deleted on the drive, until it is back. If you moved it, sync it where it is now: drivesync sync NEW-PATH`,
    };
  }
  if (!stats.isDirectory()) return { kind: 'not-a-folder', message: `${root} is not a folder` };
  const recorded = parse<Recorded>(store.getMeta(META_KEY));
  const marker = await readMarker(root);
  const record = async (id: string) => {
    const now: Recorded = { id, dev: stats.dev ?? 0, ino: stats.ino, birthtimeMs: birthTimeOf(stats) ?? 0 };
    if (marker !== id) await writeMarker(root, fs, id);
    if (JSON.stringify(now) !== JSON.stringify(recorded)) store.setMeta(META_KEY, JSON.stringify(now));
  };
  if (recorded === undefined || synced === 0) {
    // A first sync (or a mirror from before the identity was recorded): this folder is the synced folder.
    await record(marker ?? recorded?.id ?? randomUUID());
    return null;
  }
  if (marker === recorded.id || sameInode(recorded, stats)) {
    await record(recorded.id);
    return null;
  }
  const empty = fs.readDir(root).every((name) => name === STATE_DIR);
  return { kind: 'replaced', empty, message: replacedMessage(root, empty) };
}

/** What happened to a replaced folder, and the two ways on: sync it afresh, or put the synced folder back. */
function replacedMessage(root: string, empty: boolean): string {
  const what = empty ? 'emptied and made again, or its disk is not mounted' : 'deleted and made again, or replaced by another folder';
  const afresh = empty
    ? 'everything on the drive is downloaded into it, and nothing on the drive is deleted'
    : "the files here are uploaded and what is on the drive is downloaded here (a file that differs from the drive's is kept beside it as a conflicted copy), and nothing is deleted on either side";
  return (
    `${root} is not the folder that was synced here (it was ${what}): nothing is synced, and nothing is deleted on the drive. ` +
    `To sync it as a new folder, run drivesync sync ${root} --afresh: ${afresh}. ` +
    `Or put the original folder back at ${root}${empty ? ' (or mount its disk)' : ''} and sync again.`
  );
}

async function writeMarker(root: string, fs: FileSystem, id: string): Promise<void> {
  await fs.mkdir(join(root, STATE_DIR), { recursive: true });
  await writeFile(join(root, STATE_DIR, MARKER_FILE), `${JSON.stringify({ id, note: 'identifies this folder to drivesync; keep it with the folder' })}\n`);
}
