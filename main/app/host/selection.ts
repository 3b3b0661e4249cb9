/**
 * The host's selection job: "Choose folders…" — the drive's folder tree with sizes, what a change to the folders a
 * synced folder leaves out would do, and writing it (main/state/selection.ts). The window never talks to the engine
 * for this: an open folder follows the config (main/state/folder.ts), so writing it is all it takes.
 *
 * Changes come as the person made them, one folder at a time, and are applied in that order with `withExcluded` and
 * `withIncluded` to the folders left out as the config says at that moment: what the command line excluded while the
 * dialog was open stays excluded, and including a folder inside a folder left out brings the way down to it.
 */
import type { DriveClient } from '../../api/client.js';
import type { DriveFolderTree, DriveFolderView, NewFolders, SelectionChanges, SelectionPlan, SelectionSide } from '../../contract/index.js';
import { loadConfig } from '../../state/config.js';
import { loadDriveTree, saveSelection, selectionOf, withExcluded, withIncluded, type DriveFolder, type DriveTree, type Selection } from '../../state/selection.js';
import type { HandlersOf, HostContext } from './context.js';
import { HostError } from './failures.js';
import type { Folders } from './folders.js';

export class SelectionJob {
  /**
   * The tree listed when the dialog last opened, for its previews (a preview on every tick must not list the whole
   * drive again); applying lists the drive afresh.
   */
  private last: { root: string; tree: DriveTree } | null = null;

  constructor(
    private readonly host: HostContext,
    private readonly folders: Folders,
  ) {}

  readonly handlers: HandlersOf<'selection:tree' | 'selection:preview' | 'selection:apply'> = {
    'selection:tree': async ({ root }) => {
      const client = this.clientFor(root);
      const own = this.selection(root);
      const tree = await loadDriveTree(client, own.excluded);
      this.last = { root, tree };
      return treeView(root, tree, own);
    },
    'selection:preview': async (arg) => {
      const client = this.clientFor(arg.root);
      const tree = this.last?.root === arg.root ? this.last.tree : await this.list(arg.root, client);
      return planOf(arg.root, tree, this.selection(arg.root), arg);
    },
    'selection:apply': async (arg) => {
      const client = this.clientFor(arg.root);
      // Against the drive as it is now, and the config as it is now (the command line may have changed either).
      const tree = await this.list(arg.root, client);
      let plan: SelectionPlan | null = null;
      // In the host's queue: a settings change reads the config, awaits, and writes it back whole.
      await this.host.exclusive(async () => {
        saveSelection(this.host.paths, arg.root, (own) => {
          plan = planOf(arg.root, tree, { excluded: new Set(own.excluded), newFolders: own.newFolders ?? 'sync' }, arg);
          return { excluded: plan.excluded, ...(plan.newFolders === 'exclude' ? { newFolders: 'exclude' as const } : {}) };
        });
      });
      return plan!;
    },
  };

  /** The client, once the root is one of the account's synced folders. */
  private clientFor(root: string): DriveClient {
    const client = this.host.requireClient();
    this.folders.require(root);
    return client;
  }

  private selection(root: string): Selection {
    try {
      return selectionOf(loadConfig(this.host.paths), root);
    } catch (error) {
      throw new HostError('failed', `The settings file cannot be read, so the folders left out are not known: ${(error as Error).message.split('\n')[0]}`);
    }
  }

  private async list(root: string, client: DriveClient): Promise<DriveTree> {
    const tree = await loadDriveTree(client, new Set());
    this.last = { root, tree };
    return tree;
  }
}

/** The tree as the window gets it: every folder after its parent, with whether it is left out. */
function treeView(root: string, tree: DriveTree, own: Selection): DriveFolderTree {
  const folders: DriveFolderView[] = [];
  const out = leftOut(tree, own.excluded);
  walk(tree, (f) => {
    folders.push({ id: f.id, parentId: f.parentId, name: f.name, path: f.path, bytes: f.bytes, files: f.files, excluded: out.has(f.id), excludedHere: own.excluded.has(f.id) });
  });
  return { root, folders, excluded: [...own.excluded].sort((a, b) => a - b), newFolders: own.newFolders === 'exclude' ? 'exclude' : 'sync' };
}

/** Visits every folder of the tree, each after its parent. */
function walk(tree: DriveTree, visit: (folder: DriveFolder) => void): void {
  const stack = [...tree.childrenOf(null)].reverse();
  while (stack.length > 0) {
    const folder = stack.pop()!;
    visit(folder);
    stack.push(...[...tree.childrenOf(folder.id)].reverse());
  }
}

/** The folders left out by these exclusions: each excluded one and everything below it. */
function leftOut(tree: DriveTree, excluded: ReadonlySet<number>): Set<number> {
  const out = new Set<number>();
  walk(tree, (f) => {
    if (excluded.has(f.id) || (f.parentId !== null && out.has(f.parentId))) out.add(f.id);
  });
  return out;
}

/** The changes applied in order to what the folder leaves out now, and what they would do. */
export function planOf(root: string, tree: DriveTree, before: Selection, arg: Pick<SelectionChanges, 'changes' | 'newFolders'>): SelectionPlan {
  let after = new Set(before.excluded);
  for (const change of arg.changes) {
    if (!tree.folders.has(change.id)) {
      throw new HostError('not-found', 'A folder you chose is no longer on the drive (deleted or moved away): open Choose folders… again.');
    }
    after = change.include ? withIncluded(tree, after, change.id) : withExcluded(tree, after, change.id);
  }
  const newFolders: NewFolders = arg.newFolders ?? (before.newFolders === 'exclude' ? 'exclude' : 'sync');
  const outBefore = leftOut(tree, before.excluded);
  const outAfter = leftOut(tree, after);
  const excluded = [...after].sort((a, b) => a - b);
  const same = excluded.length === before.excluded.size && excluded.every((id) => before.excluded.has(id));
  return {
    root,
    excluded,
    newFolders,
    download: side(tree, (id) => outBefore.has(id) && !outAfter.has(id)),
    remove: side(tree, (id) => !outBefore.has(id) && outAfter.has(id)),
    changed: !same || newFolders !== (before.newFolders === 'exclude' ? 'exclude' : 'sync'),
  };
}

/**
 * The folders that change side, each counted by what it holds itself (its files, not its subfolders'), and listed by
 * the topmost of each part that changes.
 */
function side(tree: DriveTree, changes: (id: number) => boolean): SelectionSide {
  const result: SelectionSide = { folders: [], bytes: 0, files: 0 };
  const listed = new Map<number, SelectionSide['folders'][number]>();
  walk(tree, (f) => {
    if (!changes(f.id)) return;
    const kids = tree.childrenOf(f.id);
    const bytes = f.bytes - kids.reduce((sum, k) => sum + k.bytes, 0);
    const files = f.files - kids.reduce((sum, k) => sum + k.files, 0);
    result.bytes += bytes;
    result.files += files;
    // Counted in the topmost folder of its part.
    let top = f;
    for (let up = f.parentId === null ? undefined : tree.folders.get(f.parentId); up && changes(up.id); up = up.parentId === null ? undefined : tree.folders.get(up.parentId)) top = up;
    let entry = listed.get(top.id);
    if (!entry) {
      entry = { id: top.id, path: top.path, bytes: 0, files: 0 };
      listed.set(top.id, entry);
      result.folders.push(entry);
    }
    entry.bytes += bytes;
    entry.files += files;
  });
  return result;
}
