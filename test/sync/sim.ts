/**
 * A simulator of the sync engine's world for the planner's tests: the three trees plus the content of every file
 * (per local path and per remote id), a local disk a user can change, a remote drive another client can change,
 * and an executor that carries out an Operation "as if it succeeded": it builds the Outcome the real executor
 * would produce (new ids, new inodes) and hands it to the engine's own `applyOutcome`.
 *
 * The executor is strict: an operation whose prerequisites do not hold when it runs (a missing parent, an occupied
 * target, a cycle) throws a SimError. Operations of one pass are applied in any order, so a plan whose operations
 * depend on each other's order fails here.
 *
 * Everything is deterministic: ids, inodes, mtimes and timestamps come from counters.
 */
import { createHash } from 'node:crypto';
import { applyOutcome, type MutableTrees, type Outcome } from '../../main/sync/trees/apply.js';
import { BaseTree, LocalTree, RemoteTree } from '../../main/sync/trees/trees.js';
import {
  baseName,
  conflictedCopyName,
  givenNames,
  isGivenName,
  isWithin,
  joinPath,
  LINUX_NAMES,
  nameKey,
  nameRules,
  type NameRules,
  numberedName,
  parentOf,
  rebase,
  safeLocalName,
} from '../../main/sync/model/names.js';
import { plan, type PlanOptions } from '../../main/sync/plan/plan.js';
import { entriesOutside, planSelected, selectView, type Selection } from '../../main/sync/plan/selective.js';
import type { ItemType, LocalItem, Operation, Plan, RelPath, RemoteId, RemoteItem, Trees } from '../../main/sync/model/types.js';

export const sha = (content: string): string => createHash('sha256').update(content).digest('hex');
const sizeOf = (content: string): number => Buffer.byteLength(content);

export class SimError extends Error {
  override name = 'SimError';
}

/** Content that went to a trash (OS trash for local items, remote trash for entries): recoverable, not lost. */
export interface TrashEntry {
  side: 'local' | 'remote';
  /** Local path or remote name at the time it was trashed. */
  name: string;
  content: string;
}

export interface SimConfig {
  /** The local volume folds case (names that differ only by case are one name). */
  caseInsensitive?: boolean;
  /** The local volume has Win32's name rules (Windows, FAT, exFAT, NTFS); else Linux's. */
  windowsNames?: boolean;
  /** The local volume holds NFC and NFD spellings as one name, and the scan lists names in NFC (macOS). */
  normalisesUnicode?: boolean;
  /** Host name used in conflicted-copy names. */
  host?: string;
  /** The volume records birth times (a new file gets its own; a rename or an in-place write keeps it). */
  birthTimes?: boolean;
}

/** The fixed origin of the simulator's clock. */
const EPOCH = Date.UTC(2024, 0, 2, 3, 4, 5);

export class Sim {
  /** The engine's own compact stores, so the property runs exercise them under applyOutcome too. */
  readonly trees: MutableTrees = { base: new BaseTree(), local: new LocalTree(), remote: new RemoteTree() };
  /** Content of each local file, by path. */
  /** What is left out (selective sync), when the run has a selection: a remote trash counts only the rest. */
  selection?: Selection;
  readonly localContent = new Map<RelPath, string>();
  /** Content of each remote file, by id. */
  readonly remoteContent = new Map<RemoteId, string>();
  readonly trash: TrashEntry[] = [];
  /** Every operation applied, in order, for failure reports. */
  readonly log: string[] = [];
  readonly caseInsensitive: boolean;
  /** How the local volume names items (what the planner is to be told: `names` of the plan's options). */
  readonly names: NameRules;
  readonly birthTimes: boolean;
  readonly host: string;
  private lastId = 0;
  private lastInode = 0;
  private ticks = 0;

  constructor(config: SimConfig = {}) {
    this.caseInsensitive = config.caseInsensitive ?? false;
    this.names = nameRules(config);
    this.birthTimes = config.birthTimes ?? false;
    this.host = config.host ?? 'simhost';
  }

  // --- counters -------------------------------------------------------------------------------------------------
  newId(): RemoteId {
    return ++this.lastId;
  }
  newInode(): number {
    return ++this.lastInode;
  }
  /** A strictly increasing time, as ms since the epoch. */
  tick(): number {
    return EPOCH + ++this.ticks * 1000;
  }
  stamp(): string {
    return new Date(this.tick()).toISOString();
  }

  /** A copy of the three trees, as the planner sees them. */
  snapshot(): Trees {
    return { base: new Map(this.trees.base), local: new Map(this.trees.local), remote: new Map(this.trees.remote) };
  }

  // --- queries --------------------------------------------------------------------------------------------------
  /** Ids of the remote subtree below `id` (not `id` itself). */
  remoteDescendants(id: RemoteId): RemoteId[] {
    const out: RemoteId[] = [];
    const frontier = [id];
    while (frontier.length > 0) {
      const cur = frontier.pop()!;
      for (const r of this.trees.remote.values()) {
        if (r.parentId === cur && !out.includes(r.id)) {
          out.push(r.id);
          frontier.push(r.id);
        }
      }
    }
    return out;
  }
  /** Local paths within `path` (including `path`). */
  localWithin(path: RelPath): RelPath[] {
    return [...this.trees.local.keys()].filter((p) => isWithin(p, path));
  }
  /** The remote path of an entry ('/'-joined names from the root), or undefined when it is unreachable. */
  remotePath(id: RemoteId): string | undefined {
    const names: string[] = [];
    const seen = new Set<RemoteId>();
    for (let cur: RemoteId | null = id; cur !== null; ) {
      if (seen.has(cur)) return undefined;
      seen.add(cur);
      const item = this.trees.remote.get(cur);
      if (!item) return undefined;
      names.unshift(item.name);
      cur = item.parentId;
    }
    return names.join('/');
  }
  remoteChildren(parentId: RemoteId | null): RemoteItem[] {
    return [...this.trees.remote.values()].filter((r) => r.parentId === parentId);
  }
  /** The service refuses to create a folder whose name a sibling folder has (exact comparison). */
  remoteFolderNamed(parentId: RemoteId | null, name: string): boolean {
    return this.remoteChildren(parentId).some((r) => r.type === 'folder' && r.name === name);
  }
  /** True when a local item other than `self` has the same name (as the volume compares names) at `path`. */
  localTaken(path: RelPath, self?: RelPath): boolean {
    const key = (p: RelPath) => `${nameKey(parentOf(p), this.names)}\u0000${nameKey(baseName(p), this.names)}`;
    const wanted = key(path);
    for (const p of this.trees.local.keys()) if (p !== self && key(p) === wanted) return true;
    return false;
  }
  private localFolderExists(path: RelPath): boolean {
    return path === '' || this.trees.local.get(path)?.type === 'folder';
  }

  // --- building a synced tree -----------------------------------------------------------------------------------
  /**
   * Adds an item that is in sync on both sides: local at `path`, remote named `remoteName` (default: the local
   * name) in the remote folder synced with the local parent, and its base row.
   */
  addSynced(path: RelPath, type: ItemType, content = '', remoteName = baseName(path)): RemoteId {
    const parent = parentOf(path);
    let parentId: RemoteId | null = null;
    if (parent !== '') {
      const p = [...this.trees.base.values()].find((b) => b.path === parent && b.type === 'folder');
      if (!p) throw new SimError(`addSynced ${path}: parent ${parent} is not a synced folder`);
      parentId = p.remoteId;
    }
    if (this.trees.local.has(path)) throw new SimError(`addSynced ${path}: path taken`);
    const local = this.makeLocal(path, type, content);
    const remote: RemoteItem = {
      id: this.newId(),
      parentId,
      name: remoteName,
      type,
      size: type === 'file' ? sizeOf(content) : 0,
      updatedAt: this.stamp(),
    };
    if (type === 'file') this.remoteContent.set(remote.id, content);
    applyOutcome(this.trees, { kind: 'synced', remote, local });
    return remote.id;
  }

  /** `born`: the birth time of the file written in place (kept); a new file is born now, where births are recorded. */
  private makeLocal(path: RelPath, type: ItemType, content: string, inode = this.newInode(), born?: number): LocalItem {
    const mtimeMs = this.tick();
    const birth = this.birthTimes ? { birthtimeMs: born ?? mtimeMs } : {};
    if (type === 'folder') {
      this.localContent.delete(path);
      return { path, type, inode, size: 0, mtimeMs, ...birth };
    }
    this.localContent.set(path, content);
    return { path, type, inode, size: sizeOf(content), mtimeMs, hash: sha(content), ...birth };
  }

  // --- the user, on the local disk ------------------------------------------------------------------------------
  /**
   * Creates a file or writes new content into one (in place: same inode; `atomic`: a new inode, as editors do).
   * `reusedInode`: the inode number a file system handed out again (freed by a file deleted or saved over).
   */
  localWrite(path: RelPath, content: string, atomic = false, reusedInode?: number): void {
    const existing = this.trees.local.get(path);
    if (existing && existing.type !== 'file') throw new SimError(`localWrite ${path}: a folder`);
    if (!existing && this.localTaken(path)) throw new SimError(`localWrite ${path}: name taken`);
    if (!this.localFolderExists(parentOf(path))) throw new SimError(`localWrite ${path}: no parent`);
    const inPlace = existing && !atomic && reusedInode === undefined;
    const inode = reusedInode ?? (inPlace ? existing.inode : this.newInode());
    this.trees.local.set(path, this.makeLocal(path, 'file', content, inode, inPlace ? existing.birthtimeMs : undefined));
  }
  localMkdir(path: RelPath): void {
    if (this.localTaken(path)) throw new SimError(`localMkdir ${path}: name taken`);
    if (!this.localFolderExists(parentOf(path))) throw new SimError(`localMkdir ${path}: no parent`);
    this.trees.local.set(path, this.makeLocal(path, 'folder', ''));
  }
  /** A new mtime, same content (C4's "touched"). */
  localTouch(path: RelPath): void {
    const item = this.trees.local.get(path);
    if (!item || item.type !== 'file') throw new SimError(`localTouch ${path}: no file`);
    // A scan hashes a synced file whose mtime changed (the local tree keeps no hash of a file as recorded).
    this.trees.local.set(path, { ...item, mtimeMs: this.tick(), hash: sha(this.localContent.get(path) ?? '') });
  }
  /** Deleted by the user (permanently: this content is not in any trash). */
  localDelete(path: RelPath): void {
    if (!this.trees.local.has(path)) throw new SimError(`localDelete ${path}: nothing there`);
    for (const p of this.localWithin(path)) {
      this.trees.local.delete(p);
      this.localContent.delete(p);
    }
  }
  /** A rename or move by the user: the subtree keeps its inodes, sizes and mtimes. */
  localMove(from: RelPath, to: RelPath): void {
    if (!this.trees.local.has(from)) throw new SimError(`localMove ${from}: nothing there`);
    if (isWithin(to, from)) throw new SimError(`localMove ${from} → ${to}: into itself`);
    if (this.localTaken(to, from)) throw new SimError(`localMove ${from} → ${to}: name taken`);
    if (!this.localFolderExists(parentOf(to))) throw new SimError(`localMove ${from} → ${to}: no parent`);
    this.moveLocal(from, to);
  }
  private moveLocal(from: RelPath, to: RelPath): void {
    const items = this.localWithin(from).map((p) => this.trees.local.get(p)!);
    for (const item of items) this.trees.local.delete(item.path);
    for (const item of items) {
      const path = rebase(item.path, from, to);
      this.trees.local.set(path, { ...item, path });
    }
    this.moveContent(from, to);
  }

  // --- another client, on the remote drive ----------------------------------------------------------------------
  remoteCreate(parentId: RemoteId | null, name: string, type: ItemType, content = ''): RemoteId {
    this.mustRemoteFolder(parentId, `remoteCreate ${name}`);
    if (type === 'folder' && this.remoteFolderNamed(parentId, name)) {
      throw new SimError(`remoteCreate ${name}: a folder of that name exists in the parent (422)`);
    }
    const id = this.newId();
    this.trees.remote.set(id, { id, parentId, name, type, size: type === 'file' ? sizeOf(content) : 0, updatedAt: this.stamp() });
    if (type === 'file') this.remoteContent.set(id, content);
    return id;
  }
  /** New content under the same id (updated_at moves). */
  remoteEdit(id: RemoteId, content: string): void {
    const item = this.trees.remote.get(id);
    if (!item || item.type !== 'file') throw new SimError(`remoteEdit ${id}: no file`);
    this.trees.remote.set(id, { ...item, size: sizeOf(content), updatedAt: this.stamp() });
    this.remoteContent.set(id, content);
  }
  /** What another drivesync client does with an edit: a new entry in the same folder, the old one trashed. */
  remoteReplace(id: RemoteId, content: string): RemoteId {
    const item = this.trees.remote.get(id);
    if (!item || item.type !== 'file') throw new SimError(`remoteReplace ${id}: no file`);
    const newId = this.remoteCreate(item.parentId, item.name, 'file', content);
    this.remoteDelete(id);
    return newId;
  }
  /** Deleted by another client (from this client's point of view, simply gone). */
  remoteDelete(id: RemoteId): void {
    if (!this.trees.remote.has(id)) throw new SimError(`remoteDelete ${id}: no entry`);
    for (const doomed of [id, ...this.remoteDescendants(id)]) {
      this.trees.remote.delete(doomed);
      this.remoteContent.delete(doomed);
    }
  }
  /** A rename or move by another client (updated_at moves too). */
  remoteMove(id: RemoteId, parentId: RemoteId | null, name: string): void {
    const item = this.trees.remote.get(id);
    if (!item) throw new SimError(`remoteMove ${id}: no entry`);
    this.mustRemoteFolder(parentId, `remoteMove ${id}`);
    if (parentId !== null && (parentId === id || this.remoteDescendants(id).includes(parentId))) {
      throw new SimError(`remoteMove ${id}: into itself`);
    }
    this.trees.remote.set(id, { ...item, parentId, name, updatedAt: this.stamp() });
  }

  // --- the executor ---------------------------------------------------------------------------------------------
  /** Carries out one operation as if it succeeded. */
  apply(op: Operation): void {
    this.log.push(describeOp(op));
    const outcome = this.outcomeOf(op);
    for (const each of Array.isArray(outcome) ? outcome : [outcome]) applyOutcome(this.trees, each);
  }

  private fail(op: Operation, why: string): never {
    throw new SimError(`${describeOp(op)}: ${why}`);
  }
  private mustRemoteFolder(id: RemoteId | null, what: string): void {
    if (id === null) return;
    const item = this.trees.remote.get(id);
    if (!item || item.type !== 'folder') throw new SimError(`${what}: remote parent ${id} is not a folder`);
  }
  private mustLocal(op: Operation, path: RelPath, type?: ItemType): LocalItem {
    const item = this.trees.local.get(path);
    if (!item) this.fail(op, `no local item at ${path}`);
    if (type && item.type !== type) this.fail(op, `local ${path} is a ${item.type}, not a ${type}`);
    return item;
  }
  private mustRemote(op: Operation, id: RemoteId, type?: ItemType): RemoteItem {
    const item = this.trees.remote.get(id);
    if (!item) this.fail(op, `no remote entry ${id}`);
    if (type && item.type !== type) this.fail(op, `remote ${id} is a ${item.type}, not a ${type}`);
    return item;
  }
  private mustLocalParent(op: Operation, path: RelPath): void {
    if (!this.localFolderExists(parentOf(path))) this.fail(op, `local parent of ${path} is missing`);
  }
  /** An upload of an item that is already synced (same path, type and inode as a base row) would duplicate it. */
  private notSyncedElsewhere(op: Operation, path: RelPath): void {
    const item = this.trees.local.get(path);
    for (const b of this.trees.base.values()) {
      if (b.path === path && item && b.type === item.type && b.inode === item.inode) this.fail(op, `${path} is already synced as ${b.remoteId}`);
    }
  }
  private checkRemoteName(op: Operation, name: string): void {
    const length = [...name].length;
    if (length < 3 || length > 200) this.fail(op, `the service refuses the name "${name}" (422)`);
  }

  /** The new local file a download leaves at `path`: a temp file renamed into place (a new inode). */
  private downloaded(path: RelPath, remote: RemoteItem): LocalItem {
    if (remote.type === 'folder') return this.makeLocal(path, 'folder', '');
    const content = this.remoteContent.get(remote.id);
    if (content === undefined) throw new SimError(`remote ${remote.id} has no content`);
    return this.makeLocal(path, 'file', content);
  }

  private trashLocal(path: RelPath): void {
    for (const p of this.localWithin(path)) {
      const content = this.localContent.get(p);
      if (content !== undefined) this.trash.push({ side: 'local', name: p, content });
      this.localContent.delete(p);
    }
  }
  private trashRemote(id: RemoteId): void {
    for (const doomed of [id, ...this.remoteDescendants(id)]) {
      const content = this.remoteContent.get(doomed);
      if (content !== undefined) this.trash.push({ side: 'remote', name: this.trees.remote.get(doomed)?.name ?? '?', content });
      this.remoteContent.delete(doomed);
    }
  }

  /**
   * An upload whose relativePath makes the folders on its way (any name; a folder of that name already in the parent
   * is used, as the service does), then the file in the last of them.
   */
  private uploadWithFolders(op: Extract<Operation, { kind: 'upload' }>): Outcome[] {
    this.mustRemoteFolder(op.parentId, describeOp(op));
    const outcomes: Outcome[] = [];
    let parentId = op.parentId;
    for (const folder of op.folders!) {
      const local = this.mustLocal(op, folder.path, 'folder');
      const existing = [...this.trees.remote.values()].find((r) => r.parentId === parentId && r.type === 'folder' && r.name === folder.name);
      const remote: RemoteItem = existing ?? { id: this.newId(), parentId, name: folder.name, type: 'folder', size: 0, updatedAt: this.stamp() };
      outcomes.push({ kind: 'synced', remote, local });
      parentId = remote.id;
    }
    const local = this.mustLocal(op, op.path, 'file');
    this.notSyncedElsewhere(op, op.path);
    const remote: RemoteItem = { id: this.newId(), parentId, name: op.name, type: 'file', size: local.size, updatedAt: this.stamp(), createdAt: this.stamp() };
    this.remoteContent.set(remote.id, this.localContent.get(op.path)!);
    outcomes.push({ kind: 'synced', remote, local, madeHere: true });
    return outcomes;
  }

  /** The content side map follows a local move (applyOutcome moves the tree itself). */
  private moveContent(from: RelPath, to: RelPath): void {
    const moved: Array<[RelPath, string]> = [];
    for (const [p, content] of this.localContent) if (isWithin(p, from)) moved.push([p, content]);
    for (const [p] of moved) this.localContent.delete(p);
    for (const [p, content] of moved) this.localContent.set(rebase(p, from, to), content);
  }

  /** The local item moved aside to its conflicted-copy name, then the remote version put at `path`. */
  private conflicted(op: Operation, path: RelPath, remote: RemoteItem): Outcome {
    const item = this.mustLocal(op, path);
    const copyName = conflictedCopyName(baseName(path), new Date(this.tick()), this.host);
    let copyPath = joinPath(parentOf(path), copyName);
    for (let n = 2; this.localTaken(copyPath); n++) copyPath = joinPath(parentOf(path), numberedName(copyName, n));
    this.moveContent(path, copyPath);
    const local = this.downloaded(path, remote);
    return { kind: 'conflicted', copy: { ...item, path: copyPath }, movedFrom: path, remote, local };
  }

  private outcomeOf(op: Operation): Outcome | Outcome[] {
    const t = this.trees;
    switch (op.kind) {
      case 'upload':
      case 'create-remote-folder': {
        if (op.kind === 'upload' && op.folders && op.folders.length > 0) return this.uploadWithFolders(op);
        const type: ItemType = op.kind === 'upload' ? 'file' : 'folder';
        const local = this.mustLocal(op, op.path, type);
        this.notSyncedElsewhere(op, op.path);
        this.mustRemoteFolder(op.parentId, describeOp(op));
        if (type === 'folder') {
          this.checkRemoteName(op, op.name);
          if (this.remoteFolderNamed(op.parentId, op.name)) {
            this.fail(op, `a folder of that name exists in the parent (422)`);
          }
        }
        const remote: RemoteItem = {
          id: this.newId(),
          parentId: op.parentId,
          name: op.name,
          type,
          size: local.size,
          updatedAt: this.stamp(),
          createdAt: this.stamp(),
        };
        if (type === 'file') this.remoteContent.set(remote.id, this.localContent.get(op.path)!);
        return { kind: 'synced', remote, local, madeHere: true };
      }
      case 'replace-remote': {
        const local = this.mustLocal(op, op.path, 'file');
        const old = this.mustRemote(op, op.remoteId, 'file');
        if (!t.base.has(op.remoteId)) this.fail(op, `${op.remoteId} is not synced`);
        const remote: RemoteItem = {
          id: this.newId(),
          parentId: old.parentId,
          name: old.name,
          type: 'file',
          size: local.size,
          updatedAt: this.stamp(),
        };
        this.remoteContent.set(remote.id, this.localContent.get(op.path)!);
        this.trashRemote(old.id);
        return { kind: 'synced', remote, local, replaces: old.id, madeHere: true };
      }
      case 'download':
      case 'create-local-folder': {
        const type: ItemType = op.kind === 'download' ? 'file' : 'folder';
        const remote = this.mustRemote(op, op.remoteId, type);
        this.mustLocalParent(op, op.path);
        const existing = t.local.get(op.path);
        if (existing || this.localTaken(op.path)) {
          // Only a download may overwrite, and only its own synced file.
          const own = t.base.get((op.kind === 'download' ? op.replaces : undefined) ?? op.remoteId);
          const isOwn = own !== undefined && existing !== undefined && (own.path === op.path || own.inode === existing.inode);
          if (!(type === 'file' && existing?.type === 'file' && isOwn)) this.fail(op, `local ${op.path} is taken`);
        }
        const replaces = op.kind === 'download' ? op.replaces : undefined;
        if (replaces !== undefined && !t.base.has(replaces)) this.fail(op, `replaces ${replaces}, which is not synced`);
        return { kind: 'synced', remote, local: this.downloaded(op.path, remote), ...(replaces !== undefined ? { replaces } : {}) };
      }
      case 'rename-remote':
      case 'move-remote': {
        const before = this.mustRemote(op, op.remoteId);
        const local = this.mustLocal(op, op.path, before.type);
        this.checkRemoteName(op, op.name);
        const parentId = op.kind === 'move-remote' ? op.parentId : before.parentId;
        this.mustRemoteFolder(parentId, describeOp(op));
        if (parentId !== null && (parentId === op.remoteId || this.remoteDescendants(op.remoteId).includes(parentId))) {
          this.fail(op, 'a folder cannot move into itself');
        }
        const remote: RemoteItem = { ...before, parentId, name: op.name, updatedAt: this.stamp() };
        return { kind: 'remote-moved', remote, local };
      }
      case 'move-local': {
        const remote = this.mustRemote(op, op.remoteId);
        this.mustLocal(op, op.from, remote.type);
        if (isWithin(op.to, op.from)) this.fail(op, 'a folder cannot move into itself');
        this.mustLocalParent(op, op.to);
        if (this.localTaken(op.to, op.from)) this.fail(op, `local ${op.to} is taken`);
        this.moveContent(op.from, op.to);
        return { kind: 'local-moved', from: op.from, to: op.to, remote };
      }
      case 'trash-remote': {
        this.mustRemote(op, op.remoteId);
        // What is inside excluded folders is not this computer's to count (the engine asks before it goes): with a
        // selection, the count is at most the subtree's.
        const count = 1 + this.remoteDescendants(op.remoteId).length;
        if (this.selection ? op.count > count : count !== op.count) this.fail(op, `count ${op.count}, but the subtree has ${count} entries`);
        this.trashRemote(op.remoteId);
        return { kind: 'remote-trashed', remoteId: op.remoteId };
      }
      case 'trash-local': {
        this.mustLocal(op, op.path);
        const count = this.localWithin(op.path).length;
        if (count !== op.count) this.fail(op, `count ${op.count}, but the subtree has ${count} items`);
        this.trashLocal(op.path);
        return { kind: 'local-trashed', path: op.path, remoteId: op.remoteId };
      }
      case 'drop-local': {
        // Only synced items go (the drive holds them); anything else stays where it is, no longer synced.
        const members = [...t.base.values()].filter((b) => isWithin(b.path, op.path));
        if (members.length !== op.count) this.fail(op, `count ${op.count}, but ${members.length} synced items are there`);
        for (const b of members) {
          const l = t.local.get(b.path);
          // Gone already (deleted here): nothing of it to remove.
          if (l && l.inode !== b.inode) this.fail(op, `${b.path} is not the synced item`);
        }
        const kept: RelPath[] = [];
        for (const b of members.sort((x, y) => y.path.length - x.path.length)) {
          if (b.type === 'folder' && this.localWithin(b.path).some((p) => p !== b.path && !members.some((m) => m.path === p))) {
            kept.push(b.path);
            continue;
          }
          this.localContent.delete(b.path);
        }
        return { kind: 'dropped', path: op.path, remoteIds: members.map((b) => b.remoteId), kept, freed: 0 };
      }
      case 'forget':
        // Forgetting a row another operation of the pass already dropped is harmless (the mirror's delete is
        // idempotent), so it is not an error here; a forget of a row that still has both sides would be.
        // (With a selection, an entry moved on the drive into an excluded folder is gone from what this computer syncs.)
        const outside = this.selection ? entriesOutside(t.remote, this.selection.excluded) : new Set<RemoteId>();
        if (t.base.has(op.remoteId) && t.remote.has(op.remoteId) && !outside.has(op.remoteId) && t.local.has(t.base.get(op.remoteId)!.path)) {
          const b = t.base.get(op.remoteId)!;
          if (t.local.get(b.path)!.inode === b.inode) this.fail(op, 'forgets an item present on both sides');
        }
        return { kind: 'forgotten', remoteId: op.remoteId };
      case 'record': {
        const remote = this.mustRemote(op, op.remoteId);
        const local = this.mustLocal(op, op.path, remote.type);
        return { kind: 'synced', remote, local };
      }
      case 'merge':
      case 'conflict': {
        const remote = this.mustRemote(op, op.remoteId);
        const local = this.mustLocal(op, op.path);
        if (op.kind === 'merge' && (local.type !== 'file' || remote.type !== 'file')) this.fail(op, 'merge of a folder');
        const replaces = op.kind === 'conflict' ? op.replaces : undefined;
        if (local.type === 'file' && remote.type === 'file' && this.localContent.get(op.path) === this.remoteContent.get(remote.id)) {
          // identical content: recorded, nothing transferred
          return { kind: 'synced', remote, local, ...(replaces !== undefined ? { replaces } : {}) };
        }
        return { ...this.conflicted(op, op.path, remote), ...(replaces !== undefined ? { replaces } : {}) } as Outcome;
      }
      case 'resolve-twin': {
        const ours = this.mustRemote(op, op.remoteId, 'file');
        const twin = this.mustRemote(op, op.twinId, 'file');
        const local = this.mustLocal(op, op.path, 'file');
        if (twin.parentId !== ours.parentId || twin.name !== ours.name || twin.id >= ours.id) this.fail(op, 'not an older twin');
        if (!t.base.get(op.remoteId)?.madeHere) this.fail(op, 'not made here');
        if (!t.base.has(op.twinId) && this.remoteContent.get(twin.id) === this.localContent.get(op.path)) {
          this.trashRemote(ours.id);
          return { kind: 'synced', remote: twin, local, replaces: ours.id };
        }
        const name = conflictedCopyName(ours.name, new Date(Date.parse(ours.updatedAt)), this.host);
        const renamed: RemoteItem = { ...ours, name, updatedAt: this.stamp() };
        let target = joinPath(parentOf(op.path), safeLocalName(name, this.names));
        for (let n = 2; this.localTaken(target); n++) target = joinPath(parentOf(op.path), numberedName(safeLocalName(name, this.names), n));
        this.moveContent(op.path, target);
        return [
          { kind: 'remote-moved', remote: renamed, local },
          { kind: 'local-moved', from: op.path, to: target, remote: renamed },
        ];
      }
    }
  }

  // --- reports --------------------------------------------------------------------------------------------------
  /** The three trees and contents, one line each, for failure messages. */
  dump(): string {
    const lines: string[] = [];
    for (const b of [...this.trees.base.values()].sort((x, y) => x.remoteId - y.remoteId)) {
      lines.push(
        `base ${b.remoteId} ${b.type} path=${b.path} parent=${b.parentId} name=${b.remoteName} inode=${b.inode} size=${b.size} mtime=${b.mtimeMs} rsize=${b.remoteSize} rupd=${b.remoteUpdatedAt}`,
      );
    }
    for (const l of [...this.trees.local.values()].sort((x, y) => (x.path < y.path ? -1 : 1))) {
      lines.push(`local ${l.path} ${l.type} inode=${l.inode} size=${l.size} mtime=${l.mtimeMs} content=${JSON.stringify(this.localContent.get(l.path))}`);
    }
    for (const r of [...this.trees.remote.values()].sort((x, y) => x.id - y.id)) {
      lines.push(
        `remote ${r.id} ${r.type} parent=${r.parentId} name=${r.name} size=${r.size} upd=${r.updatedAt} content=${JSON.stringify(this.remoteContent.get(r.id))}`,
      );
    }
    return lines.join('\n');
  }
}

export function describeOp(op: Operation): string {
  const { kind, rule, ...rest } = op;
  return `${kind}[${rule}] ${JSON.stringify(rest)}`;
}

/**
 * Is `localName` a name the planner may give a local copy of a remote entry named `remoteName`? The same name, its
 * safe form, or that numbered, compared as the volume compares names; or the local name numbered (a new folder
 * whose name a remote sibling folder has).
 */
export function localNameFits(localName: string, remoteName: string, names: NameRules = LINUX_NAMES): boolean {
  const key = (name: string) => nameKey(name, names);
  if (key(localName) === key(remoteName)) return true;
  const safe = safeLocalName(remoteName, names);
  for (let n = 1; n <= 50; n++) if (key(numberedName(safe, n)) === key(localName)) return true;
  // A new folder whose name a remote sibling folder already has is created remotely with a numbered name.
  for (let n = 2; n <= 50; n++) if (numberedName(localName, n) === remoteName) return true;
  return false;
}

/**
 * What is wrong with a finished sync, as a list of messages (empty: converged). Local and remote trees must be
 * equal item by item (path/name, type, size, content), every item on either side must be in base, and base must
 * agree with both; the remote tree must have no orphans or cycles.
 */
export function convergenceProblems(sim: Sim, isIgnored: (path: RelPath, type: ItemType) => boolean = () => false, selection?: Selection): string[] {
  const problems: string[] = [];
  const { base, local, remote } = sim.trees;
  // With a selection: what is excluded is on the drive only, a local folder at an excluded folder's place is left out,
  // and an item held here (E4, told as a failure) stays as it is.
  const view = selection ? selectView(sim.snapshot(), selection, sim.names, isIgnored) : null;
  const outside = view?.outside ?? new Set<RemoteId>();
  const held = (path: RelPath) => view?.skipped.some((s) => s.fails && isWithin(path, s.path)) ?? false;
  const leftOut = (path: RelPath) => view?.leftOut(path) ?? false;
  // Remote tree: every entry reachable from the root through folders.
  for (const r of remote.values()) {
    if (sim.remotePath(r.id) === undefined) problems.push(`remote ${r.id} (${r.name}) is an orphan or in a cycle`);
    else if (r.parentId !== null && remote.get(r.parentId)?.type !== 'folder') problems.push(`remote ${r.id} has a file as parent`);
  }
  const basePaths = new Map<RelPath, number>();
  for (const b of base.values()) {
    if (outside.has(b.remoteId)) {
      if (!held(b.path)) problems.push(`base ${b.remoteId} (${b.path}) is inside an excluded folder and still here`);
      continue;
    }
    if (basePaths.has(b.path)) problems.push(`base ${b.remoteId} and ${basePaths.get(b.path)} share the path ${b.path}`);
    basePaths.set(b.path, b.remoteId);
    const l = local.get(b.path);
    const r = remote.get(b.remoteId);
    if (!l) problems.push(`base ${b.remoteId} (${b.path}): nothing local`);
    if (!r) problems.push(`base ${b.remoteId} (${b.path}): nothing remote`);
    if (!l || !r) continue;
    if (l.type !== b.type || r.type !== b.type) problems.push(`base ${b.remoteId} (${b.path}): types ${b.type}/${l.type}/${r.type}`);
    if (l.inode !== b.inode || l.size !== b.size || l.mtimeMs !== b.mtimeMs) problems.push(`base ${b.remoteId} (${b.path}): local stat differs from base`);
    if (r.parentId !== b.parentId || r.name !== b.remoteName) problems.push(`base ${b.remoteId} (${b.path}): remote place differs from base`);
    // A folder's updated_at means nothing to the planner; a file's is its change marker.
    if (r.size !== b.remoteSize || (b.type === 'file' && r.updatedAt !== b.remoteUpdatedAt)) problems.push(`base ${b.remoteId} (${b.path}): remote stat differs from base`);
    if (!localNameFits(baseName(b.path), r.name, sim.names)) problems.push(`base ${b.remoteId}: local name ${b.path} does not fit remote name ${r.name}`);
    else if (!givenNameKept(sim, b.path, r, isIgnored)) {
      problems.push(`base ${b.remoteId}: local name ${b.path} is not the name the drive gives ${r.name} (${givenNamesIn(sim, r.parentId).get(r.id)})`);
    }
    const parent = parentOf(b.path);
    const parentBase = r.parentId === null ? undefined : base.get(r.parentId);
    if (r.parentId === null ? parent !== '' : parentBase?.path !== parent) {
      problems.push(`base ${b.remoteId} (${b.path}): local parent does not match remote parent ${r.parentId}`);
    }
    if (b.type === 'file') {
      const lc = sim.localContent.get(b.path);
      const rc = sim.remoteContent.get(b.remoteId);
      if (lc !== rc) problems.push(`base ${b.remoteId} (${b.path}): local content ${JSON.stringify(lc)} ≠ remote ${JSON.stringify(rc)}`);
      if (l.size !== r.size) problems.push(`base ${b.remoteId} (${b.path}): sizes ${l.size}/${r.size}`);
      if (b.hash !== null && lc !== undefined && b.hash !== sha(lc)) problems.push(`base ${b.remoteId} (${b.path}): base hash is stale`);
    }
  }
  const synced = new Set([...base.values()].map((b) => b.path));
  for (const l of local.values()) {
    if (!synced.has(l.path) && !isIgnored(l.path, l.type) && !leftOut(l.path) && !held(l.path)) problems.push(`local ${l.path} is not synced`);
  }
  for (const r of remote.values()) if (!base.has(r.id) && !outside.has(r.id)) problems.push(`remote ${r.id} (${sim.remotePath(r.id)}) is not synced`);
  return problems;
}

/** The local names the drive's names give the entries of a remote folder (the same on every computer). */
function givenNamesIn(sim: Sim, parentId: RemoteId | null): Map<RemoteId, string> {
  return givenNames(sim.remoteChildren(parentId), sim.names);
}

/**
 * A converged item has the name the drive's names give it — unless it is a name the user chose that the drive
 * refused (not a given name at all), or its given place is kept by an ignored local item (then a spare number).
 */
function givenNameKept(sim: Sim, path: RelPath, r: RemoteItem, isIgnored: (path: RelPath, type: ItemType) => boolean): boolean {
  const name = baseName(path);
  if (!isGivenName(name, r.name, sim.names)) return true;
  const given = givenNamesIn(sim, r.parentId).get(r.id)!;
  if (nameKey(given, sim.names) === nameKey(name, sim.names)) return true;
  const there = [...sim.trees.local.values()].find((l) => sim.localTaken(joinPath(parentOf(path), given)) && l.path !== path && nameKey(baseName(l.path), sim.names) === nameKey(given, sim.names) && parentOf(l.path) === parentOf(path));
  return there !== undefined && isIgnored(there.path, there.type);
}

/** Every file content anywhere in the simulation: both trees and the trashes. */
export function contentsKept(sim: Sim): Set<string> {
  return new Set([...sim.localContent.values(), ...sim.remoteContent.values(), ...sim.trash.map((t) => t.content)]);
}

/**
 * The engine's loop: plan, apply every operation (in the planner's order, or reversed), until a plan is empty.
 * Returns the non-empty plans, one per pass; throws after `maxPasses`.
 */
export function syncUntilQuiet(
  sim: Sim,
  options: PlanOptions & { selection?: () => Selection } = {},
  order: 'forward' | 'reverse' | ((ops: Operation[], pass: number) => Operation[]) = 'forward',
  maxPasses = 50,
): Plan[] {
  const plans: Plan[] = [];
  for (;;) {
    if (options.selection) sim.selection = options.selection();
    const p = options.selection ? planSelected(sim.snapshot(), options.selection(), options) : plan(sim.snapshot(), options);
    if (p.operations.length === 0) return plans;
    if (plans.length >= maxPasses) throw new Error(`no convergence after ${maxPasses} passes: ${p.operations.map(describeOp).join('; ')}`);
    plans.push(p);
    const ops =
      order === 'forward' ? p.operations : order === 'reverse' ? [...p.operations].reverse() : order(p.operations, plans.length - 1);
    for (const op of ops) sim.apply(op);
  }
}

/** Every order of a list (for small lists). */
export function permutations<T>(list: readonly T[]): T[][] {
  if (list.length <= 1) return [[...list]];
  return list.flatMap((item, i) => permutations([...list.slice(0, i), ...list.slice(i + 1)]).map((rest) => [item, ...rest]));
}
