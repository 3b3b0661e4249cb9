/**
 * What others share with the account, as the window marks it: the topmost entries shared with it (main/state's
 * `sharedWithMe`), listed when the window asks and kept until it asks again, and where each lies in a synced folder
 * (under the folder's shared folder, `Shared with me/` unless the config names another or none).
 */
import type { FileEntry } from '../../api/schemas.js';
import type { SharedBy, SharedWithMeItem } from '../../contract/index.js';
import { isPlacedFolder, sharedWithMe, type SharedWithMe } from '../../state/access.js';
import type { Config } from '../../state/config.js';
import { sharedFolderOf } from '../../state/shared-folder.js';
import { readMirror, type MirrorReader } from '../../state/mirror-view.js';
import type { HostContext } from './context.js';

export type SharedTop = SharedWithMe & { entry: FileEntry };

/** The shared folder of a synced folder holds `path` (or is it). */
export function inSharedFolder(config: Config, root: string, path: string): boolean {
  const name = sharedFolderOf(config, root);
  return name !== null && (path === name || path.startsWith(`${name}/`));
}

export class SharedWithMeList {
  private listed: { account: string; tops: Promise<SharedTop[]> } | null = null;

  constructor(private readonly host: HostContext) {}

  /** The entries shared with the account: as listed last, unless `again` (or nothing was listed for this account). */
  tops(again = false): Promise<SharedTop[]> {
    const client = this.host.requireClient();
    const { server, email } = this.host.account!;
    const account = `${server}\n${email}`;
    if (again || this.listed?.account !== account) {
      const tops = sharedWithMe(client, email);
      this.listed = { account, tops };
      // A listing that failed is not kept: the next question lists again.
      tops.catch(() => {
        if (this.listed?.tops === tops) this.listed = null;
      });
    }
    return this.listed!.tops;
  }

  async items(again: boolean): Promise<SharedWithMeItem[]> {
    return (await this.tops(again)).map(({ entryId, name, type, owner, permissions }) => ({ entryId, name, type, owner, permissions }));
  }
}

/** The folders the engine makes up to hold what is shared (the shared folder, one per owner in it) are not on the drive. */
export const isGroupingFolder = isPlacedFolder;

export interface SharedByPaths {
  /** Who shared each entry with the account: the nearest shared entry it is or lies in. */
  by: Map<string, SharedBy>;
  /** The folders that only group what is shared, each with the owner when all it holds comes from one. */
  grouping: Map<string, string | null>;
  /** Entries in the shared folder that no shared entry listed holds (shared since it was listed). */
  unknown: string[];
}

/** Who shared each of `paths` (in the shared folder of the synced folder whose mirror is in `mirrorFile`) with the account. */
export function sharedByOf(mirrorFile: string, paths: readonly string[], tops: readonly SharedTop[]): SharedByPaths {
  const byId = new Map(tops.map((t) => [t.entryId, t]));
  const found: SharedByPaths = { by: new Map(), grouping: new Map(), unknown: [] };
  readMirror(mirrorFile, (mirror: MirrorReader) => {
    const topPaths = tops.map((t) => ({ path: mirror.itemById(t.entryId)?.path, owner: t.owner })).filter((t): t is { path: string; owner: string | null } => t.path !== undefined);
    for (const path of paths) {
      const item = mirror.itemAt(path);
      const top = nearestTop(mirror, path, byId);
      if (top) found.by.set(path, { owner: top.owner, permissions: top.permissions });
      else if (item && isGroupingFolder(item.remoteId)) {
        const owners = new Set(topPaths.filter((t) => t.path.startsWith(`${path}/`)).map((t) => t.owner));
        found.grouping.set(path, owners.size === 1 ? [...owners][0]! : null);
      } else found.unknown.push(path);
    }
  });
  return found;
}

/** The shared entry `path` is, or the nearest one it lies in; null for a folder that only groups them. */
export function nearestTop(mirror: MirrorReader, path: string, byId: ReadonlyMap<number, SharedTop>): SharedTop | null {
  for (let at = path; at !== ''; at = at.includes('/') ? at.slice(0, at.lastIndexOf('/')) : '') {
    const item = mirror.itemAt(at);
    const top = item ? byId.get(item.remoteId) : undefined;
    if (top) return top;
  }
  return null;
}
