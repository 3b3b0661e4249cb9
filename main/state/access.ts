/**
 * Who has access to an entry, and what is shared: what both front ends show (`share ls`, `shared`, the share dialog).
 * The drive lists the people an entry is shared with (its `users`) and its link; it does not list the mailing lists an
 * entry was shared with (a list's members are shared with one by one), so those are the ones this computer remembers.
 */
import type { DriveClient } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import type { EntryUser, FileEntry, Permission } from '../api/schemas.js';
import { listSharedTops, mineIn } from '../sync/remote/shared.js';

/** A folder drivesync made up to hold what others share with the account (not on the drive). */

export { isPlacedFolder } from '../sync/model/types.js';
/**
 * The engine's own reading of what is shared with the account and what it may do with it, so that a front end says
 * what the engine will do.
 */
export { listSharedTops, mayDo } from '../sync/remote/shared.js';

export const PERMISSIONS: readonly Permission[] = ['view', 'edit', 'download'];

export interface Person {
  userId: number;
  email: string;
  /** The permissions the drive says the person has; null when it does not say. */
  permissions: Permission[] | null;
}

export interface LinkAccess {
  url: string;
  hasPassword: boolean;
  expiresAt: string | null;
  allowDownload: boolean;
  allowEdit: boolean;
}

export interface Access {
  entryId: number;
  name: string;
  type: 'file' | 'folder';
  /** The owner, when the drive says (some deployments list the owner among the users); null otherwise. */
  owner: string | null;
  people: Person[];
  /** The shareable link; null when there is none, or when the caller may not see it (shared with them). */
  link: LinkAccess | null;
  /** Mailing lists this computer shared the entry with. */
  lists: Array<{ id: string; name: string }>;
}

export interface SharedWithMe {
  entryId: number;
  name: string;
  type: 'file' | 'folder';
  owner: string | null;
  /** What the drive says this account may do; null when it does not say. */
  permissions: Permission[] | null;
}

export interface SharedByMe {
  entryId: number;
  name: string;
  type: 'file' | 'folder';
  people: Person[];
}

const permissionsOf = (user: EntryUser): Permission[] | null =>
  user.entry_permissions ? PERMISSIONS.filter((p) => user.entry_permissions![p]) : null;

export const ownerOf = (entry: FileEntry): string | null => entry.users?.find((u) => u.owns_entry === true)?.email ?? null;

/** The people an entry is shared with (the owner, where the drive lists them, is not one). */
export const peopleOf = (entry: FileEntry): Person[] =>
  (entry.users ?? []).filter((u) => u.owns_entry !== true).map((u) => ({ userId: u.id, email: u.email, permissions: permissionsOf(u) }));

/** This account's permissions on an entry shared with it, as the drive lists them; null when it does not say. */
export function myPermissions(entry: FileEntry, me: string | undefined): Permission[] | null {
  const mine = mineIn(entry, me);
  return mine ? permissionsOf(mine) : null;
}

/** Who has access to `entry` (as listed now): its people and owner, its link, the lists this computer shared it with. */
export async function accessOf(client: DriveClient, entry: FileEntry, lists: Array<{ id: string; name: string }>): Promise<Access> {
  const info = await client.links.get(entry.id).catch((error: unknown) => {
    // A link of an entry shared with the caller is the owner's to show.
    if (error instanceof ApiError && (error.kind === 'forbidden' || error.kind === 'not-found')) return null;
    throw error;
  });
  const link = info?.link;
  return {
    entryId: entry.id,
    name: entry.name,
    type: entry.type === 'folder' ? 'folder' : 'file',
    owner: ownerOf(entry),
    people: peopleOf(entry),
    link: link
      ? {
          url: client.links.publicUrl(link),
          hasPassword: typeof link.password === 'string' && link.password !== '',
          expiresAt: link.expires_at ?? null,
          allowDownload: link.allow_download ?? true,
          allowEdit: link.allow_edit ?? false,
        }
      : null,
    lists,
  };
}

/** The entries shared with this account, each once (the engine's own reading of the drive's `sharedOnly` listing). */
export async function sharedWithMe(client: DriveClient, me: string | undefined, signal?: AbortSignal): Promise<Array<SharedWithMe & { entry: FileEntry }>> {
  return (await listSharedTops(client, me, signal)).map((entry) => ({
    entryId: entry.id,
    name: entry.name,
    type: entry.type === 'folder' ? 'folder' : 'file',
    owner: ownerOf(entry),
    permissions: myPermissions(entry, me),
    entry,
  }));
}

/** The entries of this account's drive shared with someone: one listing of the whole drive. */
export async function sharedByMe(client: DriveClient, signal?: AbortSignal): Promise<SharedByMe[]> {
  const shared: SharedByMe[] = [];
  for await (const entry of client.entries.tree({ perPage: 1000, ...(signal ? { signal } : {}) })) {
    if (entry.deleted_at) continue;
    const people = peopleOf(entry);
    if (people.length === 0) continue;
    shared.push({ entryId: entry.id, name: entry.name, type: entry.type === 'folder' ? 'folder' : 'file', people });
  }
  return shared;
}
