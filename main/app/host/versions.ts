/** The host's versions job: a file's earlier versions, and bringing one back (main/api/versions.ts says how). */
import type { DriveClient } from '../../api/client.js';
import type { FileEntry } from '../../api/schemas.js';
import { currentFile, restoreVersion, versionsOf } from '../../api/versions.js';
import type { FileVersions } from '../../contract/index.js';
import type { MirrorEntry } from '../../state/mirror-view.js';
import type { HandlersOf, HostContext } from './context.js';
import { HostError } from './failures.js';
import type { Folders } from './folders.js';

export class VersionsJob {
  constructor(
    private readonly host: HostContext,
    private readonly folders: Folders,
  ) {}

  readonly handlers: HandlersOf<'versions:list' | 'versions:restore'> = {
    'versions:list': async (ref) => {
      const { client, item } = this.folders.resolve(ref);
      const current = await this.currentOf(client, item);
      const versions = await this.versionsOf(client, current);
      return {
        current: { size: current.file_size ?? null, savedAt: current.created_at ?? null },
        versions: versions.map((v, i) => ({ id: v.id, number: i + 1, size: v.file_size ?? null, savedAt: v.created_at ?? null, replacedAt: v.deleted_at ?? null })),
      } satisfies FileVersions;
    },
    'versions:restore': async (arg) => {
      const { client, item } = this.folders.resolve(arg);
      const current = await this.currentOf(client, item);
      const version = (await this.versionsOf(client, current)).find((v) => v.id === arg.versionId);
      if (!version) throw new HostError('not-found', 'That version is no longer in the drive’s trash (deleted for good, or the list is out of date).');
      await restoreVersion(client, current, version, (message) => this.host.notice(arg.root, message));
      this.folders.syncFolder(arg.root);
      return { savedAt: version.created_at ?? null };
    },
  };

  private async currentOf(client: DriveClient, item: MirrorEntry): Promise<FileEntry> {
    if (item.type === 'folder') throw new HostError('invalid-argument', 'Versions are kept for each file, not for folders.');
    const entry = await currentFile(client, { id: item.remoteId, parentId: item.parentId, name: item.remoteName });
    if (!entry) throw new HostError('not-found', `${item.path} is no longer on the drive; it leaves this folder at the next sync.`);
    return entry;
  }

  private versionsOf(client: DriveClient, current: FileEntry): Promise<FileEntry[]> {
    return versionsOf(client, { id: current.id, parentId: current.parent_id ?? null, name: current.name });
  }
}

