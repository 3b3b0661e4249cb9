/**
 * A synced folder as the file manager's socket serves it (file-manager-socket.ts): its states from the engine's
 * memory, and the right-click menu's actions — copy the link (made when there is none), share…, version history…,
 * star or unstar — made against the drive. Where a window runs, "Share…" and "Version history…" open it; otherwise
 * they say the command to use.
 */
import type { DriveClient } from '../api/client.js';
import type { SyncedFolder } from './folder.js';
import type { MenuItem, SocketFolder } from './file-manager-socket.js';
import { syncedItemAt, type MirrorEntry } from './mirror-view.js';

export interface FolderActions {
  /** Opens the window's share dialog on the item (absent: no window; the command is said instead). */
  share?(root: string, path: string): Promise<void>;
  /** Opens the window's version history of a file. */
  versions?(root: string, path: string): Promise<void>;
}

/** Said beside a file's link: the service cannot replace a file's content, so a save makes a new entry. */
export const FILE_LINK_CHANGES = 'changes when the file is saved';

const quoted = (path: string) => (/[\s'"\\$`]/.test(path) ? `'${path.replace(/'/g, "'\\''")}'` : path);

export function socketFolderOf(folder: SyncedFolder, client: DriveClient, actions: FolderActions = {}): SocketFolder {
  const { root } = folder;
  const abs = (path: string) => (path === '' ? root : `${root}/${path}`);
  const synced = (path: string): MirrorEntry => {
    const item = syncedItemAt(folder.mirror, path);
    if (!item) throw new Error('not on the drive yet: it is synced first');
    const place = folder.status.shared?.folder;
    if (item.remoteId < 0 || (place && (path === place || path.startsWith(`${place}/`)))) {
      throw new Error('shared with you: only its owner can share it or make its link');
    }
    return item;
  };
  const linkOf = async (item: MirrorEntry): Promise<string> => {
    const links = client.links;
    const existing = await links.get(item.remoteId);
    return links.publicUrl(existing?.link ?? (await links.create(item.remoteId, { allowDownload: true, allowEdit: false, expiresAt: null })));
  };
  const starred = async (id: number): Promise<boolean> => {
    for await (const entry of client.entries.list({ starredOnly: true, perPage: 200 })) if (entry.id === id) return true;
    return false;
  };
  const parentFolder = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf('/')));
  return {
    root,
    stateOf: (path) => folder.pathState(path),
    onChange: (listener) => folder.onPathStates(listener),
    link: async (path) => linkOf(synced(path)),
    async menu(path): Promise<MenuItem[]> {
      let item: MirrorEntry;
      try {
        item = synced(path);
      } catch (error) {
        return [{ action: 'copy-link', enabled: false, label: `Copy link (${(error as Error).message})` }];
      }
      const file = item.type === 'file';
      const parent = parentFolder(path);
      const items: MenuItem[] = [{ action: 'copy-link', enabled: true, label: file ? `Copy link (${FILE_LINK_CHANGES})` : 'Copy link' }];
      if (file && parent !== '') items.push({ action: 'copy-folder-link', enabled: true, label: "Copy the folder's link (stays the same)" });
      items.push({ action: 'share', enabled: true, label: 'Share…' });
      if (file) items.push({ action: 'versions', enabled: true, label: 'Version history…' });
      const star = await starred(item.remoteId).catch(() => null);
      if (star !== null) items.push(star ? { action: 'unstar', enabled: true, label: 'Unstar' } : { action: 'star', enabled: true, label: 'Star' });
      return items;
    },
    async run(action, path): Promise<string> {
      const item = synced(path);
      switch (action) {
        case 'copy-link':
          return linkOf(item);
        case 'copy-folder-link':
          return linkOf(synced(parentFolder(path)));
        case 'share':
          if (actions.share) return actions.share(root, path).then(() => 'the share dialog is open');
          return `share it with: drivesync share ${quoted(abs(path))} --email ADDRESS`;
        case 'versions':
          if (actions.versions) return actions.versions(root, path).then(() => 'the version history is open');
          return `its versions: drivesync versions ${quoted(abs(path))}`;
        case 'star':
          await client.entries.star([item.remoteId]);
          return `starred ${item.remoteName}`;
        case 'unstar':
          await client.entries.unstar([item.remoteId]);
          return `unstarred ${item.remoteName}`;
        default:
          throw new Error(`no action ${action}`);
      }
    },
  };
}
