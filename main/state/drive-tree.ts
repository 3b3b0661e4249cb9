/**
 * The drive's folder tree below a synced folder, with each folder's size and its path in this computer's names: what
 * `drivesync exclude`, `include`, `excluded` and the window's folder chooser work on. One listing of the drive (the
 * engine's listing module is loaded only when it is needed).
 */
import type { DriveClient } from '../api/client.js';
import { givenNames, nameRules, type NameRules } from '../sync/model/names.js';
import type { SharedPlace } from '../sync/model/shared-area.js';
import type { RemoteId, RemoteItem } from '../sync/model/types.js';

/** One folder of the drive, as the chooser and `drivesync excluded` show it. */
export interface DriveFolder {
  id: RemoteId;
  parentId: RemoteId | null;
  name: string;
  /** Its path from the synced folder, by the names this computer gives the drive's entries. */
  path: string;
  bytes: number;
  files: number;
  /** Left out: excluded itself, or inside an excluded folder. */
  excluded: boolean;
  /** Excluded itself (not only inside an excluded folder). */
  excludedHere: boolean;
}

/** The names this computer's volumes give where the volume is not asked: Windows refuses Win32's names on all of them. */
const THIS_COMPUTER = nameRules({ windowsNames: process.platform === 'win32' });

/** The drive's folders below a synced folder, with their sizes and paths: one listing of the drive. */
export class DriveTree {
  readonly folders = new Map<RemoteId, DriveFolder>();
  private readonly children = new Map<RemoteId | null, DriveFolder[]>();

  constructor(
    readonly remote: ReadonlyMap<RemoteId, RemoteItem>,
    excluded: ReadonlySet<RemoteId>,
    names: NameRules = THIS_COMPUTER,
  ) {
    const sizes = folderSizes(remote);
    const byParent = new Map<RemoteId | null, RemoteItem[]>();
    for (const r of remote.values()) {
      const list = byParent.get(r.parentId) ?? [];
      list.push(r);
      byParent.set(r.parentId, list);
    }
    const visit = (parentId: RemoteId | null, parentPath: string, outside: boolean) => {
      const entries = byParent.get(parentId) ?? [];
      const given = givenNames(entries, names);
      const folders: DriveFolder[] = [];
      for (const r of entries) {
        if (r.type !== 'folder') continue;
        const name = given.get(r.id) ?? r.name;
        const path = parentPath === '' ? name : `${parentPath}/${name}`;
        const size = sizes.get(r.id) ?? { bytes: 0, files: 0 };
        const excludedHere = excluded.has(r.id);
        const folder: DriveFolder = { id: r.id, parentId, name: r.name, path, bytes: size.bytes, files: size.files, excluded: outside || excludedHere, excludedHere };
        folders.push(folder);
        this.folders.set(r.id, folder);
      }
      folders.sort((a, b) => a.name.localeCompare(b.name));
      this.children.set(parentId, folders);
      for (const f of folders) visit(f.id, f.path, f.excluded);
    };
    visit(null, '', false);
  }

  /** The folders directly inside a folder (null: the synced folder), by name. */
  childrenOf(id: RemoteId | null): DriveFolder[] {
    return this.children.get(id) ?? [];
  }

  /** The folder at a path given in this computer's names (or the drive's own), if there is one. */
  at(path: string): DriveFolder | undefined {
    let parent: RemoteId | null = null;
    let found: DriveFolder | undefined;
    for (const segment of path.split('/').filter((s) => s !== '')) {
      const kids = this.childrenOf(parent);
      found = kids.find((f) => baseOf(f.path) === segment) ?? kids.find((f) => f.name === segment);
      if (!found) return undefined;
      parent = found.id;
    }
    return found;
  }

  /** The folders from the top down to this one. */
  ancestry(id: RemoteId): DriveFolder[] {
    const out: DriveFolder[] = [];
    for (let cur = this.folders.get(id); cur; cur = cur.parentId === null ? undefined : this.folders.get(cur.parentId)) out.unshift(cur);
    return out;
  }
}

const baseOf = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** Lists the drive below the synced folder's remote root and builds its folder tree. */
export async function loadDriveTree(
  client: DriveClient,
  excluded: ReadonlySet<RemoteId>,
  signal = new AbortController().signal,
  /** Where what others share with the account arrives: its folders are in the tree too (a shared folder can be left out). */
  shared?: SharedPlace | null,
): Promise<DriveTree> {
  const { listRemote } = await import('../sync/remote/listing.js');
  const remote = await listRemote(client, null, () => true, signal);
  if (shared) {
    const { listSharedArea } = await import('../sync/remote/shared.js');
    for (const r of (await listSharedArea(client, shared, { signal })).items) remote.set(r.id, r);
  }
  return new DriveTree(remote, excluded);
}

/**
 * The exclusions after leaving a folder out: it is added, and exclusions inside it go (it covers them). Answers
 * whether anything changed.
 */
export function withExcluded(tree: DriveTree, excluded: ReadonlySet<RemoteId>, id: RemoteId): Set<RemoteId> {
  const out = new Set([...excluded].filter((other) => !tree.ancestry(other).some((f) => f.id === id)));
  out.add(id);
  return out;
}

/**
 * The exclusions after including a folder: its own exclusion and those inside it go; if it lies inside an excluded
 * folder, that folder is included down to it and its other folders stay excluded (so including `Photos/2019` of an
 * excluded `Photos` brings `Photos` with only `2019` in it, as other clients do).
 */
export function withIncluded(tree: DriveTree, excluded: ReadonlySet<RemoteId>, id: RemoteId): Set<RemoteId> {
  const out = new Set([...excluded].filter((other) => !tree.ancestry(other).some((f) => f.id === id)));
  const line = tree.ancestry(id);
  for (let i = 0; i < line.length - 1; i++) {
    if (!out.delete(line[i]!.id)) continue;
    // The other folders on the way down stay out, level by level.
    for (let j = i; j < line.length - 1; j++) {
      for (const sibling of tree.childrenOf(line[j]!.id)) if (sibling.id !== line[j + 1]!.id) out.add(sibling.id);
    }
  }
  return out;
}

/** Sizes of remote folders (bytes and files of their subtrees), for the folder chooser and `drivesync excluded`. */
export function folderSizes(remote: ReadonlyMap<RemoteId, RemoteItem>): Map<RemoteId, { bytes: number; files: number }> {
  const sizes = new Map<RemoteId, { bytes: number; files: number }>();
  for (const r of remote.values()) if (r.type === 'folder') sizes.set(r.id, { bytes: 0, files: 0 });
  for (const r of remote.values()) {
    if (r.type !== 'file') continue;
    let cur = r.parentId === null ? undefined : remote.get(r.parentId);
    for (let hops = 0; cur && hops < 10_000; hops++) {
      const size = sizes.get(cur.id);
      if (size) {
        size.bytes += r.size;
        size.files++;
      }
      cur = cur.parentId === null ? undefined : remote.get(cur.parentId);
    }
  }
  return sizes;
}
