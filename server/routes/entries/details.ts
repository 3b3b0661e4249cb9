import { Type } from '@sinclair/typebox';
import type { App, Context } from '../../context.js';
import { serializeEntry } from '../../serialize.js';
import { DESCRIPTION_MAX, EntryIdParams, checkName } from '../common.js';

const UpdateBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 1000 })),
  // Null first: with type coercion on, a string branch tried first would turn null into "" and never clear.
  description: Type.Optional(Type.Union([Type.Null(), Type.String({ maxLength: DESCRIPTION_MAX })])),
});

/** `PUT /file-entries/{id}`: renames an entry or changes its description. */
export function registerDetailChanges(app: App, { db, entries, profile }: Context): void {
  app.put('/file-entries/:entryId', { schema: { params: EntryIdParams, body: UpdateBody } }, async (request) => {
    const entry = entries.require(request.params.entryId);
    entries.authorize(request.userId, entry, 'edit');
    const { name, description } = request.body ?? {};
    if (name !== undefined) checkName(name);
    const updated = entries.update(entry.id, { name, description });
    return { status: 'success', fileEntry: serializeEntry(db, updated, profile) };
  });
}
