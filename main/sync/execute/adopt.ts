/**
 * Crash safety for uploads: an upload left in the journal (a crash, a dropped connection) is adopted from the listing
 * instead of sent again, but only on proof that the entry holds this computer's bytes. Every other intent left in the
 * journal is cleared: its operation is planned afresh from the trees.
 *
 * What proves it:
 * - the drive answered the upload before a later step failed: the intent names the entry, and the hash of the bytes
 *   sent was computed here as they went;
 * - otherwise the listing only nominates candidates (same folder, name and size, not synced), and each is compared
 *   with the local file byte for byte, streamed, stopping at the first difference. No time is asked of a candidate:
 *   a clock set differently here, or set by hand since the upload, must not hide this computer's own upload. Another computer may have
 *   saved an edit of the same size under the same name meanwhile: that entry is theirs, and stays theirs.
 */
import { join } from 'node:path';
import type { DriveClient } from '../../api/client.js';
import type { FileEntry } from '../../api/schemas.js';
import { commitOutcome, type MutableTrees } from '../trees/apply.js';
import { changedSince, itemOfStats } from './aside.js';
import { toRemoteItem } from '../remote/entry.js';
import type { Intent, Mirror } from '../trees/mirror.js';
import type { FileSystem } from '../local/ports.js';
import type { BaseTree } from '../trees/trees.js';
import type { LocalItem, Operation, RemoteId, RemoteItem } from '../model/types.js';

type IntentPayload = Partial<Operation> & {
  path?: string;
  parentId?: RemoteId | null;
  name?: string;
  remoteId?: RemoteId;
  /** Set when the drive answered the upload and a later step of the operation failed. */
  uploaded?: { entry: FileEntry; local: LocalItem };
};

export interface AdoptContext {
  root: string;
  trees: MutableTrees & { base: BaseTree };
  mirror: Mirror;
  client: DriveClient;
  fs: FileSystem;
  /** The drive's id of the synced folder (null: the drive's root), to read the answer's parent against. */
  rootId: RemoteId | null;
  signal?: AbortSignal;
}

/** Adopts what it can; returns the local paths of the uploads adopted. */
export async function adoptLostUploads(context: AdoptContext): Promise<string[]> {
  const { mirror } = context;
  const adopted: string[] = [];
  for (const intent of mirror.intents()) {
    if (intent.kind !== 'upload' && intent.kind !== 'replace-remote') {
      mirror.clearIntent(intent.id);
      continue;
    }
    const found = await provenUpload(context, intent);
    if (!found) {
      mirror.clearIntent(intent.id);
      continue;
    }
    const p = intent.payload as IntentPayload;
    if (intent.kind === 'replace-remote' && p.remoteId !== undefined && context.trees.remote.has(p.remoteId)) {
      await context.client.entries.trash([p.remoteId]);
    }
    commitOutcome(context.trees, mirror, intent.id, [
      {
        kind: 'synced',
        remote: found.remote,
        local: found.local,
        madeHere: true,
        ...(intent.kind === 'replace-remote' && p.remoteId !== undefined ? { replaces: p.remoteId } : {}),
      },
    ]);
    adopted.push(found.local.path);
  }
  return adopted;
}

/** The entry an intent's upload made and the local item it holds, when the drive's bytes or its answer prove it. */
async function provenUpload(context: AdoptContext, intent: Intent): Promise<{ remote: RemoteItem; local: LocalItem } | null> {
  const { trees } = context;
  const p = intent.payload as IntentPayload;
  const place = intendedPlace(trees, intent.kind, p);
  if (!place || p.path === undefined) return null;
  if (p.uploaded) {
    // The drive named the entry in its answer: it is this computer's, holding the bytes hashed as they were sent. It
    // is recorded with the local item as it was then, so a change made here since is still a change.
    const listed = trees.remote.get(p.uploaded.entry.id);
    const answered = toRemoteItem(p.uploaded.entry, context.rootId);
    if (!listed || trees.base.has(listed.id) || answered.parentId !== place.parentId) return null;
    return { remote: listed, local: p.uploaded.local };
  }
  const local = trees.local.get(p.path);
  if (!local || local.type !== 'file') return null;
  const abs = join(context.root, ...p.path.split('/'));
  let hash: string | undefined;
  for (const candidate of trees.remote.values()) {
    const nominated =
      !trees.base.has(candidate.id) &&
      candidate.type === 'file' &&
      candidate.parentId === place.parentId &&
      candidate.name === place.name &&
      candidate.size === local.size;
    if (!nominated) continue;
    hash ??= await context.fs.hash(abs);
    const same = await context.client.transfers.sameBytes({ id: candidate.id, url: null }, context.fs.storedPath?.(abs) ?? abs, {
      expectedSize: candidate.size,
      ...(context.signal ? { signal: context.signal } : {}),
    });
    if (!same) continue;
    // The bytes compared are the ones hashed only while the file is still as the scan saw it.
    const now = itemOfStats(p.path, await context.fs.stat(abs));
    return changedSince(local, now) ? null : { remote: candidate, local: { ...local, hash } };
  }
  return null;
}

/** The folder and name an intent's upload went to: the op's own for a new file, the old entry's for a new version. */
function intendedPlace(trees: AdoptContext['trees'], kind: string, p: IntentPayload): { parentId: RemoteId | null; name: string } | null {
  if (kind === 'upload') return p.name === undefined ? null : { parentId: p.parentId ?? null, name: p.name };
  if (p.remoteId === undefined) return null;
  const old = trees.remote.get(p.remoteId);
  const synced = trees.base.get(p.remoteId);
  const parentId = old?.parentId ?? synced?.parentId;
  const name = old?.name ?? synced?.remoteName;
  return parentId === undefined || name === undefined ? null : { parentId, name };
}
