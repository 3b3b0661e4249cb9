import { Type } from '@sinclair/typebox';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { App, Context } from '../../context.js';
import { timestamp } from '../../clock.js';
import type { EntryRow } from '../../entries.js';
import { Flag, IdList, IdsBody, flag, toIds } from '../common.js';
import { requireAll } from './targets.js';

const DeleteBody = Type.Object({ entryIds: IdList, deleteForever: Type.Optional(Type.Union([Flag, Type.Null()])) });

/** `DELETE /file-entries` (to the trash, or for good) and `POST /file-entries/restore`. */
export function registerTrash(app: App, ctx: Context): void {
  app.delete('/file-entries', { schema: { body: DeleteBody } }, async (request) => {
    const given = request.body.deleteForever;
    // Without the flag, what happens is the profile's: deployed versions delete for good.
    const forever =
      given === undefined || given === null ? ctx.profile.deleteWithoutFlag === 'forever' : flag(given, 'deleteForever');
    const targets = requireAll(ctx.entries, toIds(request.body.entryIds));
    for (const entry of targets) ctx.entries.authorize(request.userId, entry, forever ? 'owner' : 'edit');
    const blobs = removeSubtrees(ctx, targets, forever);
    for (const name of blobs) rmSync(join(ctx.blobDir, name), { force: true });
    return { status: 'success' };
  });

  app.post('/file-entries/restore', { schema: { body: IdsBody } }, async (request) => {
    const targets = requireAll(ctx.entries, toIds(request.body.entryIds));
    for (const entry of targets) ctx.entries.authorize(request.userId, entry, 'edit');
    ctx.db.transaction(() => targets.forEach((target) => restore(ctx, target)))();
    return { status: 'success' };
  });
}

/** Trashes the targets' subtrees or removes them for good; answers the stored bytes that are no longer wanted. */
function removeSubtrees({ db, entries }: Context, targets: EntryRow[], forever: boolean): string[] {
  const blobs: string[] = [];
  db.transaction(() => {
    const now = timestamp();
    for (const target of targets) {
      const fresh = entries.get(target.id);
      if (!fresh) continue; // already removed as part of an earlier target's subtree
      const subtree = entries.subtree(fresh);
      if (forever) {
        for (const e of subtree) if (e.type !== 'folder' && e.file_name) blobs.push(e.file_name);
        entries.removeRows(subtree);
      } else {
        entries.setDeleted(subtree.filter((e) => !e.deleted_at), now);
      }
    }
  })();
  return blobs;
}

/** Back into its folder, or to the root when that folder is itself in the trash. */
function restore({ entries }: Context, target: EntryRow): void {
  const entry = entries.require(target.id);
  if (!entry.deleted_at) return;
  const parent = entry.parent_id ? entries.get(entry.parent_id) : undefined;
  const restored = parent && parent.deleted_at ? entries.move(entry, null) : entry;
  entries.setDeleted(entries.subtree(restored).filter((e) => e.deleted_at), null);
}
