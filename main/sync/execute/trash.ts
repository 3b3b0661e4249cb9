/**
 * The OS trash (freedesktop Trash on Linux, the Recycle Bin, the macOS Trash) through the `trash` package. An item
 * reaches it from `.drivesync/trashing/ID/` (aside.ts), so the record the package writes names that hidden place.
 * Where the package writes the record itself (freedesktop), it is corrected to name the place the item had in the
 * synced folder, and the item takes back its own name; the Recycle Bin and the macOS Trash keep their own records.
 */
import { randomUUID } from 'node:crypto';
import { lstat, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { numberedName } from '../model/names.js';
import type { TrashOptions } from '../local/ports.js';

/** Where the package put an item in a freedesktop trash: `files/ID`, and its record `info/ID.trashinfo`. */
interface TrashRecord {
  path: string;
  info: string;
}

export async function moveToOsTrash(path: string, { originalPath }: TrashOptions): Promise<void> {
  const { default: trash } = await import('trash');
  // Names are literal: a file called `*.txt` must not be read as a pattern.
  const placed: unknown = await trash(path, { glob: false });
  for (const record of freedesktopRecords(placed)) {
    const info = withPath(await readFile(record.info, 'utf8'), originalPath);
    await replaceFile(record.info, info);
    await takeOwnName(record, basename(originalPath), info);
  }
}

/**
 * On Linux the package answers where it put each item and its record (its own tests read them), though its types say
 * it answers nothing; elsewhere there is none.
 */
function freedesktopRecords(placed: unknown): TrashRecord[] {
  if (!Array.isArray(placed)) return [];
  return placed.filter((r): r is TrashRecord => typeof r?.path === 'string' && typeof r?.info === 'string');
}

/** The record with its `Path=` naming `place`. */
function withPath(info: string, place: string): string {
  return info.replace(/^Path=.*$/m, () => `Path=${escapedPath(place)}`);
}

/** A path as the Trash spec stores it: escaped as in URLs (RFC 2396), each '/' kept. */
function escapedPath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** Written whole or not at all: a file manager watching the trash never reads half a record. */
async function replaceFile(path: string, content: string): Promise<void> {
  // Not named `*.trashinfo`, so that nothing takes it for a record meanwhile.
  const temp = join(dirname(path), `.${randomUUID()}.tmp`);
  try {
    await writeFile(temp, content);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * The package names what it trashes by a made-up id; the item takes its own name back (`Docs`, or `Docs (2)` when
 * taken), the way the spec has a name taken: its record first, created only if none is there (O_EXCL), then the item.
 * A name too long to carry `.trashinfo` keeps the id: its record names its place all the same.
 */
async function takeOwnName(record: TrashRecord, name: string, info: string): Promise<void> {
  const files = dirname(record.path);
  for (let n = 1; ; n++) {
    const candidate = numberedName(name, n);
    if (await exists(join(files, candidate))) continue;
    const reserved = join(dirname(record.info), `${candidate}.trashinfo`);
    try {
      await writeFile(reserved, info, { flag: 'wx' });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue;
      if (code === 'ENAMETOOLONG') return;
      throw error;
    }
    try {
      await rename(record.path, join(files, candidate));
    } catch (error) {
      await rm(reserved, { force: true });
      throw error;
    }
    await rm(record.info, { force: true });
    return;
  }
}

/** Whether anything is at `path` (a dangling link too). */
async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}
