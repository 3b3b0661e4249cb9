import { Type } from '@sinclair/typebox';
import type { App, Context } from '../../context.js';
import { invalid } from '../../errors.js';
import { serializeEntry } from '../../serialize.js';
import { Id, checkName } from '../common.js';
import { destinationFolder } from './targets.js';

const FolderBody = Type.Object({
  name: Type.String({ maxLength: 1000 }),
  parentId: Type.Optional(Type.Union([Id, Type.Null(), Type.Literal(0)])),
});

/** `POST /folders`: a new folder, in the drive of the folder it is made in. */
export function registerNewFolder(app: App, { db, entries, profile }: Context): void {
  app.post('/folders', { schema: { body: FolderBody } }, async (request) => {
    const name = checkName(request.body.name);
    const parent = destinationFolder(entries, request.userId, request.body.parentId, 'parentId');
    const ownerId = parent?.owner_id ?? request.userId;
    const folder = db.transaction(() => {
      if (entries.siblingFolderNamed(parent?.id ?? null, ownerId, name)) {
        throw invalid('name', 'A folder with this name already exists.', { plain: true });
      }
      return entries.insert({ name, fileName: name, size: 0, parent, ownerId, mime: null, type: 'folder' });
    })();
    return { status: 'success', folder: serializeEntry(db, folder, profile) };
  });
}
