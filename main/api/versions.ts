/**
 * Versions on a service that has none. A saved edit is a new entry and the old one goes to the drive's trash, so the
 * trash holds two kinds of entry:
 *   - earlier versions: a trashed file with the same name in the same folder as a file that is there (the current
 *     version), or as a later trashed file (the last version of a file that was deleted);
 *   - deletions: everything else — a trashed folder, a deleted file's last version.
 * Only what the drive holds is used, so every computer and client finds the same versions. A version is found by
 * the name and folder it had when it was replaced: after a rename, the versions saved under the old name are the
 * versions of a deleted file of that name.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { carryOver, readCarried } from './carry.js';
import type { DriveClient } from './client.js';
import type { EntryId } from './entries.js';
import type { FileEntry } from './schemas.js';

/** How many parents one listing names (the same batch the tree walk uses). */
const PARENT_BATCH = 50;

export interface TrashedVersion {
  entry: FileEntry;
  /** The file it is an earlier version of: the current entry, or the last version of a deleted file. */
  of: FileEntry;
  /** `of` is on the drive (not in its trash). */
  current: boolean;
}

export interface SortedTrash {
  deletions: FileEntry[];
  versions: TrashedVersion[];
}

const parentOf = (entry: FileEntry): EntryId | null => entry.parent_id ?? null;
const keyOf = (parentId: EntryId | null, name: string): string => `${parentId ?? ''}/${name.normalize('NFC')}`;
const isFile = (entry: FileEntry): boolean => entry.type !== 'folder';

/** Newest first: the later upload, then the later id. */
export function newestFirst(a: FileEntry, b: FileEntry): number {
  const at = a.created_at ?? '';
  const bt = b.created_at ?? '';
  if (at !== bt) return at < bt ? 1 : -1;
  return b.id - a.id;
}

/** The drive's trash as its listing shows it: what is inside a trashed folder goes and comes back with the folder. */
export async function listTrash(client: Pick<DriveClient, 'entries'>, signal?: AbortSignal): Promise<FileEntry[]> {
  const out: FileEntry[] = [];
  for await (const entry of client.entries.list({ deletedOnly: true, perPage: 1000 }, signal)) out.push(entry);
  return out;
}

/** The files on the drive named as `trashed` files, in the same folders: key → the newest such file. */
async function namesakesOnDrive(client: Pick<DriveClient, 'entries'>, trashed: readonly FileEntry[], signal?: AbortSignal): Promise<Map<string, FileEntry>> {
  const wanted = new Set(trashed.filter(isFile).map((e) => keyOf(parentOf(e), e.name)));
  const found = new Map<string, FileEntry>();
  const keep = (entry: FileEntry) => {
    const key = keyOf(parentOf(entry), entry.name);
    if (!isFile(entry) || entry.deleted_at || !wanted.has(key)) return;
    const had = found.get(key);
    if (!had || newestFirst(entry, had) < 0) found.set(key, entry);
  };
  const parents = [...new Set(trashed.filter(isFile).map(parentOf).filter((id): id is EntryId => id !== null))];
  for (let i = 0; i < parents.length; i += PARENT_BATCH) {
    for await (const entry of client.entries.list({ parentIds: parents.slice(i, i + PARENT_BATCH), perPage: 1000 }, signal)) keep(entry);
  }
  // At the root there is no folder id to list by: a plain listing is the whole drive on some servers, the name narrows it.
  const rootNames = [...new Set(trashed.filter((e) => isFile(e) && parentOf(e) === null).map((e) => e.name))];
  for (const name of rootNames) {
    for await (const entry of client.entries.list({ query: name, perPage: 1000 }, signal)) if (parentOf(entry) === null) keep(entry);
  }
  return found;
}

/** Splits the trash into deletions and earlier versions of files (see the module's comment). */
export async function sortTrash(client: Pick<DriveClient, 'entries'>, trashed?: readonly FileEntry[], signal?: AbortSignal): Promise<SortedTrash> {
  const entries = trashed ?? (await listTrash(client, signal));
  const onDrive = await namesakesOnDrive(client, entries, signal);
  const groups = new Map<string, FileEntry[]>();
  const deletions: FileEntry[] = [];
  for (const entry of entries) {
    if (!isFile(entry)) deletions.push(entry);
    else {
      const key = keyOf(parentOf(entry), entry.name);
      groups.set(key, [...(groups.get(key) ?? []), entry]);
    }
  }
  const versions: TrashedVersion[] = [];
  for (const [key, group] of groups) {
    const current = onDrive.get(key);
    const sorted = [...group].sort(newestFirst);
    const of = current ?? sorted[0]!;
    if (!current) deletions.push(of);
    for (const entry of sorted) if (entry !== of) versions.push({ entry, of, current: current !== undefined });
  }
  const order = new Map(entries.map((e, i) => [e.id, i]));
  deletions.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  return { deletions, versions };
}

/** A file's earlier versions, newest first (the drive's trash, read now). */
export async function versionsOf(
  client: Pick<DriveClient, 'entries'>,
  file: { id: EntryId; parentId: EntryId | null; name: string },
  signal?: AbortSignal,
): Promise<FileEntry[]> {
  const key = keyOf(file.parentId, file.name);
  const trashed = await listTrash(client, signal);
  return trashed.filter((e) => isFile(e) && e.id !== file.id && keyOf(parentOf(e), e.name) === key).sort(newestFirst);
}

/**
 * A file as the drive lists it now: the entry `id`, or — when a newer version replaced it since the caller last
 * looked (a sync a poll behind) — the newest file of its name in its folder; undefined when neither is there.
 */
export async function currentFile(client: Pick<DriveClient, 'entries'>, file: { id: EntryId; parentId: EntryId | null; name: string }): Promise<FileEntry | undefined> {
  let named: FileEntry | undefined;
  const key = keyOf(file.parentId, file.name);
  for await (const e of client.entries.list(file.parentId === null ? { query: file.name } : { parentIds: [file.parentId] })) {
    if (e.id === file.id) return e;
    if (isFile(e) && !e.deleted_at && keyOf(parentOf(e), e.name) === key && (!named || newestFirst(e, named) < 0)) named = e;
  }
  return named;
}

/**
 * Makes `version` the current content of `current`, as a saved edit does: the version's bytes become a new entry
 * under the current name, which gets the current entry's description, shares, star and link settings; the current
 * entry then goes to the trash, where it is the newest earlier version. The version itself stays where it is.
 */
export async function restoreVersion(
  client: DriveClient,
  current: FileEntry,
  version: FileEntry,
  notice: (message: string) => void = () => undefined,
): Promise<FileEntry> {
  const parentId = parentOf(current);
  const dir = await mkdtemp(join(tmpdir(), 'drivesync-version-'));
  try {
    const file = join(dir, 'content');
    await client.transfers.download(version, file, { ...(version.file_size !== undefined && version.file_size !== null ? { expectedSize: version.file_size } : {}), retries: 2 });
    const carried = await readCarried(client, current.id, parentId, current.name, current.users ? current : undefined);
    const entry = await client.transfers.upload(file, { name: current.name, parentId });
    if (!current.deleted_at) await client.entries.trash([current.id]);
    await carryOver(client, carried, entry, current.name, notice);
    return entry;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Restores entries from the trash. A folder comes back as it was when it was deleted: a service that brings back
 * everything ever trashed inside it brings earlier versions too, as files of the same name in the same folder; all
 * but the newest of each name go back to the trash, where they are that file's earlier versions again.
 */
export async function restoreEntries(client: Pick<DriveClient, 'entries'>, entries: ReadonlyArray<{ id: EntryId; type: string }>, signal?: AbortSignal): Promise<{ retrashed: FileEntry[] }> {
  if (entries.length === 0) return { retrashed: [] };
  await client.entries.restore(entries.map((e) => e.id));
  const retrashed: FileEntry[] = [];
  for (const folder of entries.filter((e) => e.type === 'folder')) {
    const byName = new Map<string, FileEntry[]>();
    for await (const entry of client.entries.tree({ rootId: folder.id, perPage: 1000, ...(signal ? { signal } : {}) })) {
      if (!isFile(entry) || entry.deleted_at) continue;
      const key = keyOf(parentOf(entry), entry.name);
      byName.set(key, [...(byName.get(key) ?? []), entry]);
    }
    for (const group of byName.values()) if (group.length > 1) retrashed.push(...group.sort(newestFirst).slice(1));
  }
  if (retrashed.length > 0) await client.entries.trash(retrashed.map((e) => e.id));
  return { retrashed };
}

/**
 * Deletes for good the earlier versions that were replaced more than `days` days before `now`. Only an earlier
 * version goes — a newer version of the same file is always kept — so neither a file's only copy nor a deleted file's
 * last version is ever deleted. `within` limits it to versions in the folders it accepts.
 */
export async function pruneVersions(
  client: Pick<DriveClient, 'entries'>,
  days: number,
  now: Date,
  within: (parentId: EntryId | null) => boolean = () => true,
  signal?: AbortSignal,
): Promise<FileEntry[]> {
  const before = now.getTime() - days * 86_400_000;
  const { versions } = await sortTrash(client, undefined, signal);
  const old = versions
    .map((v) => v.entry)
    .filter((e) => within(parentOf(e)) && e.deleted_at && Date.parse(e.deleted_at) < before);
  if (old.length > 0) await client.entries.deleteForever(old.map((e) => e.id));
  return old;
}
