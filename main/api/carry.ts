/**
 * The service has no call that replaces a file's content: a new version is a new entry. What people set on the old
 * entry — its description, shares, star and link settings — is read from it and set again on the new one.
 */
import type { DriveClient } from './client.js';
import { ApiError } from './errors.js';
import type { EntryId } from './entries.js';
import type { FileEntry } from './schemas.js';

/** What an entry carries that a new version of it must carry too. */
export interface Carried {
  entry: FileEntry | undefined;
  starred: boolean;
  link: Awaited<ReturnType<DriveClient['links']['get']>>;
}

/**
 * The entries of a folder as the drive lists them; at the drive's root, those whose names hold `name` (without
 * `parentIds` a listing is the whole drive on some servers: the name narrows it).
 */
function inFolder(client: Pick<DriveClient, 'entries'>, parentId: EntryId | null, name: string): AsyncGenerator<FileEntry> {
  return client.entries.list(parentId === null ? { query: name, perPage: 1000 } : { parentIds: [parentId], perPage: 1000 });
}

/** An entry as the drive lists it now: among its folder's children, or at the drive's root by its name. */
export async function findEntry(client: Pick<DriveClient, 'entries'>, id: EntryId, parentId: EntryId | null, name: string): Promise<FileEntry | undefined> {
  for await (const e of inFolder(client, parentId, name)) if (e.id === id) return e;
  return undefined;
}

/** The newest file named `name` in a folder (at the root, found by its name), other than `except`. */
export async function findByName(client: Pick<DriveClient, 'entries'>, parentId: EntryId | null, name: string, except: EntryId): Promise<FileEntry | undefined> {
  let found: FileEntry | undefined;
  for await (const e of inFolder(client, parentId, name)) {
    const here = (e.parent_id ?? null) === parentId && e.name === name && e.type !== 'folder' && e.id !== except;
    if (here && (!found || e.id > found.id)) found = e;
  }
  return found;
}

/**
 * An entry as the drive has it now, wherever another client put it meanwhile: in its folder (renamed there, maybe),
 * else among the account's most recently changed files (a move changes `updated_at`, so one just made is on the first
 * page). Undefined when neither holds it: trashed, deleted, or moved long ago.
 */
export async function locateEntry(client: Pick<DriveClient, 'entries'>, id: EntryId, parentId: EntryId | null, name: string): Promise<FileEntry | undefined> {
  const there = await findEntry(client, id, parentId, name);
  if (there) return there;
  const recent = await client.entries.page({ recentOnly: true, perPage: RECENT_LOOKED_AT }, 1);
  return recent.entries.find((e) => e.id === id);
}

/** How many of the most recently changed files `locateEntry` reads (deployed versions answer 50 a page whatever is asked). */
const RECENT_LOOKED_AT = 50;

async function isStarred(client: DriveClient, id: EntryId): Promise<boolean> {
  for await (const e of client.entries.list({ starredOnly: true })) if (e.id === id) return true;
  return false;
}

/** Reads what `oldId` carries; `entry` when the caller has it as listed already. */
export async function readCarried(client: DriveClient, oldId: EntryId, parentId: EntryId | null, name: string, entry?: FileEntry): Promise<Carried> {
  return carriedBy(client, oldId, entry ?? (await findEntry(client, oldId, parentId, name)));
}

/** What `oldId` carries, its entry as the caller found it (undefined: not on the drive as listed). */
export async function carriedBy(client: DriveClient, oldId: EntryId, old: FileEntry | undefined): Promise<Carried> {
  const link = await client.links.get(oldId).catch((error: unknown) => {
    if (error instanceof ApiError && (error.kind === 'forbidden' || error.kind === 'not-found')) return null;
    throw error;
  });
  return { entry: old, starred: await isStarred(client, oldId), link };
}

/**
 * Sets what was carried on `entry`. A link cannot keep its address (it belongs to the entry): the new one is told
 * through `notice`, and a password-protected link, whose password the service keeps only as a hash, is not made again.
 */
export async function carryOver(
  client: DriveClient,
  { entry: old, starred, link }: Carried,
  entry: FileEntry,
  path: string,
  notice: (message: string) => void = () => undefined,
): Promise<void> {
  if (old?.description) await client.entries.update(entry.id, { description: old.description });
  for (const user of (old?.users ?? []).filter((u) => u.owns_entry !== true)) {
    const p = user.entry_permissions;
    const permissions = p ? (['view', 'edit', 'download'] as const).filter((k) => p[k]) : (['view'] as const);
    await client.sharing.share(entry.id, [user.email], [...permissions]);
  }
  if (starred) await client.entries.star([entry.id]);
  if (link) {
    if (link.link.password) {
      notice(`${path} was replaced; its link was password-protected and was not carried over`);
    } else {
      const created = await client.links.create(entry.id, {
        expiresAt: link.link.expires_at ?? null,
        allowEdit: link.link.allow_edit ?? false,
        allowDownload: link.link.allow_download ?? true,
      });
      notice(`${path} has a new link: ${client.links.publicUrl(created)}`);
    }
  }
}
