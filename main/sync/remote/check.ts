/**
 * The ground truth of a synced folder: each file the mirror records as synced is compared, byte for byte, with the
 * drive's entry it is synced with. The drive's content is streamed and compared as it arrives, and the transfer stops
 * at the first byte that differs; nothing is written. A file gone from one side since the last pass is said too.
 * What was never synced (new on either side) is the next pass's business, not a difference.
 */
import { join } from 'node:path';
import { isApiError } from '../../api/errors.js';
import type { DriveClient } from '../../api/client.js';
import type { TransferProgress } from '../../api/transfers.js';
import type { FileSystem } from '../local/ports.js';
import type { RelPath, RemoteId } from '../model/types.js';

/** A synced file as the mirror records it. */
export interface CheckedFile {
  remoteId: RemoteId;
  path: RelPath;
  size: number;
  mtimeMs: number;
}

export type CheckFindingKind = 'different' | 'only-here' | 'only-on-drive';

export interface CheckFinding {
  kind: CheckFindingKind;
  path: RelPath;
  remoteId: RemoteId;
  /** One line: what differs, in plain words. */
  detail: string;
}

export interface CheckPorts {
  root: string;
  client: DriveClient;
  fs: Pick<FileSystem, 'stat'> & Partial<Pick<FileSystem, 'storedPath'>>;
  signal?: AbortSignal;
  onProgress?: (progress: TransferProgress) => void;
}

/** Compares one synced file with its entry on the drive; null when both hold the same bytes. */
export async function checkFile(file: CheckedFile, ports: CheckPorts): Promise<CheckFinding | null> {
  const abs = join(ports.root, ...file.path.split('/'));
  const finding = (kind: CheckFindingKind, detail: string): CheckFinding => ({ kind, path: file.path, remoteId: file.remoteId, detail });
  const here = await ports.fs.stat(abs).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
    throw error;
  });
  if (!here) return finding('only-on-drive', 'gone from this computer since it was last synced');
  if (here.isDirectory()) return finding('only-on-drive', 'a folder on this computer now');
  let same: boolean;
  try {
    same = await ports.client.transfers.sameBytes({ id: file.remoteId, url: null }, ports.fs.storedPath?.(abs) ?? abs, {
      ...(ports.signal ? { signal: ports.signal } : {}),
      ...(ports.onProgress ? { onProgress: ports.onProgress } : {}),
    });
  } catch (error) {
    if (isApiError(error) && error.kind === 'not-found') return finding('only-here', 'no longer on the drive');
    if (isApiError(error) && error.kind === 'forbidden') return finding('only-here', 'the drive no longer lets this account read it');
    throw error;
  }
  if (same) return null;
  const editedHere = here.size !== file.size || here.mtimeMs !== file.mtimeMs;
  return finding('different', editedHere ? 'changed on this computer since it was last synced' : 'the bytes here are not the drive\'s');
}
