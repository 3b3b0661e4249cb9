import type { Entries, EntryRow } from '../../entries.js';
import { invalid } from '../../errors.js';

/** Every entry a request names, or a 404 for the first one that does not exist. */
export const requireAll = (entries: Entries, ids: number[]) => ids.map((id) => entries.require(id));

/** The folder a new, moved or copied entry goes into; root (null) belongs to the caller. */
export function destinationFolder(
  entries: Entries,
  userId: number,
  id: number | null | undefined,
  field: string,
): EntryRow | null {
  if (!id) return null;
  const folder = entries.get(id);
  if (!folder || folder.deleted_at) throw invalid(field, `The selected ${field} is invalid.`);
  if (folder.type !== 'folder') throw invalid(field, `The ${field} must be a folder.`);
  entries.authorize(userId, folder, 'edit');
  return folder;
}
