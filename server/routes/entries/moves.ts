import { Type } from '@sinclair/typebox';
import { copyFileSync, constants as fsConstants } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { App, Context } from '../../context.js';
import type { Entries, EntryRow } from '../../entries.js';
import { forbidden, invalid } from '../../errors.js';
import { serializeEntries } from '../../serialize.js';
import { Id, IdList, toIds } from '../common.js';
import { destinationFolder, requireAll } from './targets.js';

const MAX_MOVE = 30;

const MoveBody = Type.Object({
  entryIds: IdList,
  destinationId: Type.Optional(Type.Union([Id, Type.Null(), Type.Literal(0)])),
});

/** `POST /file-entries/move`: entries into a folder of the same drive, or to the root. */
export function registerMove(app: App, { db, entries, profile }: Context): void {
  app.post('/file-entries/move', { schema: { body: MoveBody } }, async (request) => {
    const ids = toIds(request.body.entryIds);
    if (ids.length > MAX_MOVE) throw invalid('entryIds', `At most ${MAX_MOVE} entries can be moved at once.`);
    const destination = destinationFolder(entries, request.userId, request.body.destinationId, 'destinationId');
    const targets = requireAll(entries, ids);
    for (const entry of targets) {
      entries.authorize(request.userId, entry, destination ? 'edit' : 'owner');
      if (destination && entries.isWithin(destination, entry)) {
        throw invalid('destinationId', 'A folder cannot be moved into itself or one of its descendants.');
      }
      if (destination && destination.owner_id !== entry.owner_id) {
        throw forbidden('Entries can only be moved within the same drive.');
      }
    }
    const moved = db.transaction(() => targets.map((entry) => entries.move(entries.require(entry.id), destination)))();
    return { status: 'success', entries: profile.moveAnswersEntries ? serializeEntries(db, moved, profile) : [] };
  });
}

/** Stored bytes to copy once the copied rows exist: [from, to] blob names. */
type BlobCopies = Array<[string, string]>;

/**
 * `POST /file-entries/duplicate`: copies of entries (folders with everything in them) in `destinationId`, or each
 * beside its original.
 */
export function registerDuplicate(app: App, ctx: Context): void {
  const { db, entries } = ctx;
  app.post('/file-entries/duplicate', { schema: { body: MoveBody } }, async (request) => {
    const ids = toIds(request.body.entryIds);
    const explicit = request.body.destinationId
      ? destinationFolder(entries, request.userId, request.body.destinationId, 'destinationId')
      : undefined;
    const targets = requireAll(entries, ids);
    for (const entry of targets) entries.authorize(request.userId, entry, 'download');
    const copies = db.transaction(() => {
      const blobs: BlobCopies = [];
      const tops: EntryRow[] = [];
      for (const target of targets) {
        const parent = copyParent(entries, request.userId, target, explicit);
        const top = copyTree(entries, request.userId, target, parent, blobs);
        if (top) tops.push(top);
      }
      for (const [from, to] of blobs) {
        copyFileSync(join(ctx.blobDir, from), join(ctx.blobDir, to), fsConstants.COPYFILE_FICLONE);
      }
      return tops;
    })();
    return { status: 'success', entries: serializeEntries(db, copies, ctx.profile) };
  });
}

/** Where a copy goes: the destination asked for, else the original's own folder, if the caller may add to it. */
function copyParent(
  entries: Entries,
  userId: number,
  target: EntryRow,
  explicit: EntryRow | null | undefined,
): EntryRow | null {
  const parent = explicit !== undefined ? explicit : target.parent_id ? entries.require(target.parent_id) : null;
  if (!explicit && parent) entries.authorize(userId, parent, 'edit');
  if (!parent && target.owner_id !== userId) throw forbidden('You cannot copy into this drive.');
  return parent;
}

/**
 * Copies the active part of the target's subtree into `parent`, adding the bytes to copy to `blobs`. Answers the copy
 * of the target itself, none when the target is in the trash.
 */
function copyTree(
  entries: Entries,
  userId: number,
  target: EntryRow,
  parent: EntryRow | null,
  blobs: BlobCopies,
): EntryRow | undefined {
  const ownerId = parent?.owner_id ?? userId;
  const newIds = new Map<number, EntryRow>();
  let top: EntryRow | undefined;
  for (const source of entries.subtree(target).filter((e) => !e.deleted_at)) {
    const isTop = source.id === target.id;
    const into = isTop ? parent : newIds.get(source.parent_id!);
    if (!isTop && !into) continue;
    const name =
      isTop && source.type === 'folder' ? freeFolderName(entries, source.name, into?.id ?? null, ownerId) : source.name;
    const fileName = source.type === 'folder' ? name : randomUUID();
    if (source.type !== 'folder' && source.file_name) blobs.push([source.file_name, fileName]);
    const copy = entries.insert({
      name,
      fileName,
      size: source.file_size,
      parent: into ?? null,
      ownerId,
      mime: source.mime,
      type: source.type,
      description: source.description,
    });
    newIds.set(source.id, copy);
    if (isTop) top = copy;
  }
  return top;
}

/** A copied folder whose name is taken becomes `name (copy)`, then `name (copy 2)`… */
function freeFolderName(entries: Entries, name: string, parentId: number | null, ownerId: number): string {
  let free = name;
  for (let n = 1; entries.siblingFolderNamed(parentId, ownerId, free); n++) {
    free = n === 1 ? `${name} (copy)` : `${name} (copy ${n})`;
  }
  return free;
}
