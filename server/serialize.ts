import type { Profile } from './profile.js';
import type { Db } from './db.js';
import { entryHash, type EntryRow } from './entries.js';

interface ShareRow {
  entry_id: number;
  id: number;
  email: string;
  can_view: number;
  can_edit: number;
  can_download: number;
}

function baseFields(row: EntryRow) {
  return {
    id: row.id,
    name: row.name,
    file_name: row.file_name,
    file_size: row.file_size,
    parent_id: row.parent_id,
    thumbnail: null,
    mime: row.mime,
    url: row.type === 'folder' ? null : `api/v1/file-entries/${row.id}`,
    hash: entryHash(row.id),
    type: row.type,
    description: row.description,
    deleted_at: row.deleted_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
    path: row.path,
    workspace_id: row.workspace_id,
  };
}

/** Entries as the service answers them, with their parent and the users they are shared with (two queries a batch). */
export function serializeEntries(db: Db, rows: readonly EntryRow[], profile?: Pick<Profile, 'usersListOwner'>) {
  if (rows.length === 0) return [];
  const ids = JSON.stringify(rows.map((r) => r.id));
  const parentIds = JSON.stringify([...new Set(rows.map((r) => r.parent_id).filter((p) => p !== null))]);
  const shares = db
    .prepare<[string], ShareRow>(
      `SELECT s.entry_id, u.id, u.email, s.can_view, s.can_edit, s.can_download
       FROM shares s JOIN users u ON u.id = s.user_id
       WHERE s.entry_id IN (SELECT value FROM json_each(?)) ORDER BY s.created_at, u.id`,
    )
    .all(ids);
  const parents = new Map(
    db
      .prepare<[string], EntryRow>('SELECT * FROM entries WHERE id IN (SELECT value FROM json_each(?))')
      .all(parentIds)
      .map((p) => [p.id, p]),
  );
  const owners = profile?.usersListOwner
    ? new Map(
        db
          .prepare<[string], { id: number; email: string }>('SELECT id, email FROM users WHERE id IN (SELECT value FROM json_each(?))')
          .all(JSON.stringify([...new Set(rows.map((r) => r.owner_id))]))
          .map((u) => [u.id, u.email]),
      )
    : null;
  const usersByEntry = new Map<number, ShareRow[]>();
  for (const share of shares) {
    const list = usersByEntry.get(share.entry_id) ?? [];
    list.push(share);
    usersByEntry.set(share.entry_id, list);
  }
  return rows.map((row) => {
    const parent = row.parent_id === null ? undefined : parents.get(row.parent_id);
    return {
      ...baseFields(row),
      parent: parent ? baseFields(parent) : null,
      users: [
        ...(owners?.has(row.owner_id)
          ? [{ id: row.owner_id, email: owners.get(row.owner_id)!, entry_permissions: { view: true, edit: true, download: true }, owns_entry: true }]
          : []),
        ...(usersByEntry.get(row.id) ?? []).map((s) => ({
          id: s.id,
          email: s.email,
          entry_permissions: { view: s.can_view === 1, edit: s.can_edit === 1, download: s.can_download === 1 },
          owns_entry: false,
        })),
      ],
    };
  });
}

export function serializeEntry(db: Db, row: EntryRow, profile?: Pick<Profile, 'usersListOwner'>) {
  return serializeEntries(db, [row], profile)[0]!;
}

export interface UserRow {
  id: number;
  email: string;
  password_hash: string;
  display_name: string | null;
  first_name: string | null;
  last_name: string | null;
  created_at: string;
  updated_at: string;
}

export function serializeUser(user: UserRow, accessToken?: string) {
  return {
    id: user.id,
    ...(accessToken ? { access_token: accessToken } : {}),
    display_name: user.display_name,
    first_name: user.first_name,
    last_name: user.last_name,
    email: user.email,
    created_at: user.created_at,
    updated_at: user.updated_at,
  };
}
