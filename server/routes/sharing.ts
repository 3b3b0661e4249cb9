import { Type } from '@sinclair/typebox';
import type { App, Context } from '../context.js';
import { timestamp } from '../clock.js';
import { invalid } from '../errors.js';
import { serializeUser, type UserRow } from '../serialize.js';
import { EntryIdParams, Id } from './common.js';
import type { PermissionInput } from '../profile.js';

const PermissionName = Type.Union([Type.Literal('view'), Type.Literal('edit'), Type.Literal('download')]);
/** The document sends a list of names; deployed versions an object of flags. What each grants is the profile's. */
const Permissions = Type.Union([
  Type.Array(PermissionName, { maxItems: 3 }),
  Type.Object({
    view: Type.Optional(Type.Boolean()),
    edit: Type.Optional(Type.Boolean()),
    download: Type.Optional(Type.Boolean()),
  }),
]);
const ShareBody = Type.Object({
  emails: Type.Array(Type.String({ minLength: 3, maxLength: 320, pattern: '^[^\\s@]+@[^\\s@]+$' }), {
    minItems: 1,
    maxItems: 500,
  }),
  permissions: Permissions,
});
const ChangeBody = Type.Object({ userId: Id, permissions: Permissions });
const UnshareBody = Type.Object({ userId: Id });

export function sharingRoutes(app: App, { db, entries, profile }: Context): void {
  const flags = (input: PermissionInput) => {
    const granted = profile.sharePermissions(input);
    return { view: granted.view ? 1 : 0, edit: granted.edit ? 1 : 0, download: granted.download ? 1 : 0 };
  };
  const sharedUsers = (entryId: number) =>
    db
      .prepare<[number], UserRow & { can_view: number; can_edit: number; can_download: number }>(
        `SELECT u.*, s.can_view, s.can_edit, s.can_download FROM shares s JOIN users u ON u.id = s.user_id
         WHERE s.entry_id = ? ORDER BY s.created_at, u.id`,
      )
      .all(entryId)
      .map((row) => ({
        ...serializeUser(row),
        entry_permissions: { view: row.can_view === 1, edit: row.can_edit === 1, download: row.can_download === 1 },
        owns_entry: false,
      }));
  const upsert = db.prepare(
    `INSERT INTO shares (entry_id, user_id, can_view, can_edit, can_download, created_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (entry_id, user_id) DO UPDATE SET can_view = excluded.can_view, can_edit = excluded.can_edit,
       can_download = excluded.can_download`,
  );

  app.post('/file-entries/:entryId/share', { schema: { params: EntryIdParams, body: ShareBody } }, async (request) => {
    const entry = entries.require(request.params.entryId);
    entries.authorize(request.userId, entry, 'owner');
    const p = flags(request.body.permissions);
    const byEmail = db.prepare<[string], UserRow>('SELECT * FROM users WHERE email = ?');
    db.transaction(() => {
      for (const email of new Set(request.body.emails.map((e) => e.trim()))) {
        const user = byEmail.get(email);
        // Only existing accounts are attached, as the service does; the owner is never a recipient.
        if (!user || user.id === entry.owner_id) continue;
        upsert.run(entry.id, user.id, p.view, p.edit, p.download, timestamp());
      }
    })();
    return { status: 'success', users: sharedUsers(entry.id) };
  });

  app.put(
    '/file-entries/:entryId/change-permissions',
    { schema: { params: EntryIdParams, body: ChangeBody } },
    async (request) => {
      const entry = entries.require(request.params.entryId);
      entries.authorize(request.userId, entry, 'owner');
      const p = flags(request.body.permissions);
      const info = db
        .prepare('UPDATE shares SET can_view = ?, can_edit = ?, can_download = ? WHERE entry_id = ? AND user_id = ?')
        .run(p.view, p.edit, p.download, entry.id, request.body.userId);
      if (info.changes === 0) throw invalid('userId', 'The entry is not shared with this user.');
      return { status: 'success', users: sharedUsers(entry.id) };
    },
  );

  const unshare = async (request: { params: { entryId: number }; body: { userId: number }; userId: number }) => {
    const entry = entries.require(request.params.entryId);
    entries.authorize(request.userId, entry, 'owner');
    db.prepare('DELETE FROM shares WHERE entry_id = ? AND user_id = ?').run(entry.id, request.body.userId);
    return { status: 'success', users: sharedUsers(entry.id) };
  };
  const schema = { params: EntryIdParams, body: UnshareBody };
  app.delete('/file-entries/:entryId/unshare', { schema }, unshare);
  // Some deployments take unshare as POST.
  app.post('/file-entries/:entryId/unshare', { schema }, unshare);
}
