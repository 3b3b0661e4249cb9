/**
 * Crash safety for uploads: an upload whose answer was lost (a crash, a dropped connection) is found in the listing
 * — same parent, name and size, created after its intent — and adopted instead of sent again. Every other intent
 * left in the journal is cleared: its operation is planned afresh from the trees.
 */
import { join } from 'node:path';
import type { DriveClient } from '../api/client.js';
import { commitOutcome, type MutableTrees } from './apply.js';
import type { Mirror } from './mirror.js';
import type { FileSystem } from './ports.js';
import type { BaseTree } from './trees.js';
import type { Operation, RemoteId } from './types.js';

type IntentPayload = Partial<Operation> & { path?: string; parentId?: RemoteId | null; name?: string; remoteId?: RemoteId };

/** Adopts what it can; returns the local paths of the uploads adopted. */
export async function adoptLostUploads(
  root: string,
  trees: MutableTrees & { base: BaseTree },
  mirror: Mirror,
  client: DriveClient,
  fs: FileSystem,
): Promise<string[]> {
  const adopted: string[] = [];
  for (const intent of mirror.intents()) {
    const p = intent.payload as IntentPayload;
    if (intent.kind !== 'upload' && intent.kind !== 'replace-remote') {
      mirror.clearIntent(intent.id);
      continue;
    }
    const path = p.path;
    const local = path ? trees.local.get(path) : undefined;
    const old = intent.kind === 'replace-remote' && p.remoteId !== undefined ? trees.remote.get(p.remoteId) : undefined;
    const parentId = intent.kind === 'upload' ? (p.parentId ?? null) : (old?.parentId ?? trees.base.get(p.remoteId!)?.parentId ?? null);
    const name = intent.kind === 'upload' ? p.name : (old?.name ?? trees.base.get(p.remoteId!)?.remoteName);
    const since = Date.parse(intent.startedAt) - 60_000;
    const match =
      local && name !== undefined
        ? [...trees.remote.values()].find(
            (r) =>
              !trees.base.has(r.id) &&
              r.type === 'file' &&
              r.parentId === parentId &&
              r.name === name &&
              r.size === local.size &&
              (r.createdAt === undefined || Date.parse(r.createdAt) >= since),
          )
        : undefined;
    if (!match || !local || !path) {
      mirror.clearIntent(intent.id);
      continue;
    }
    const hashed = { ...local, hash: await fs.hash(join(root, ...path.split('/'))) };
    if (intent.kind === 'replace-remote' && p.remoteId !== undefined && trees.remote.has(p.remoteId)) {
      await client.entries.trash([p.remoteId]);
    }
    commitOutcome(trees, mirror, intent.id, [
      {
        kind: 'synced',
        remote: match,
        local: hashed,
        madeHere: true,
        ...(intent.kind === 'replace-remote' && p.remoteId !== undefined ? { replaces: p.remoteId } : {}),
      },
    ]);
    adopted.push(path);
  }
  return adopted;
}
