/**
 * A dry run: what one pass over a synced folder would do, changing nothing — not the folder, not the drive, not the
 * mirror. The folder is scanned and the drive listed as a pass does, on a copy of the mirror and through a file
 * system port that refuses every write; then the planner's first plan for the whole folder is taken, with what a
 * new folder holds counted in (a pass plans a new folder's contents once the folder is made, one step later).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DriveClient } from '../../api/client.js';
import { planPass } from '../plan/pass-plan.js';
import { NO_SELECTION, type Selection, type SelectedPlan } from '../plan/selective.js';
import { RemoteChangeCheck } from '../remote/changes.js';
import { listRemote } from '../remote/listing.js';
import { nodeFileSystem, systemClock, type FileSystem } from '../local/ports.js';
import { isWithin } from '../model/names.js';
import type { SharedPlace } from '../model/shared-area.js';
import type { BaseItem, Operation, RelPath, RemoteId } from '../model/types.js';
import { Mirror } from '../trees/mirror.js';
import { DisappearanceHold } from './hold.js';
import { FolderState } from './folder-state.js';
import { deletionNeedsConsent } from './pass/guard.js';

/** What one item of a dry run is, in the words people use for it. */
export type DryRunKind =
  | 'upload'
  | 'upload-new-version'
  | 'download'
  | 'create-folder-on-drive'
  | 'create-folder-here'
  | 'move-on-drive'
  | 'rename-on-drive'
  | 'move-here'
  | 'delete-on-drive'
  | 'delete-here'
  | 'conflict'
  | 'compare';

export interface DryRunItem {
  kind: DryRunKind;
  path: RelPath;
  /** Where a move or rename takes it. */
  to?: RelPath;
  /** Bytes a transfer moves; what a deletion takes along. */
  bytes: number;
  /** Items a deletion takes along (a folder counts its subtree). */
  count: number;
}

export interface DryRunReport {
  items: DryRunItem[];
  /** Count and bytes per kind. */
  totals: Partial<Record<DryRunKind, { count: number; bytes: number }>>;
  /** Items synced now. */
  synced: number;
  /** The deletions would wait for an answer (the mass-delete guard): how many. */
  deletionsAsked: number | null;
  /** What the pass would leave out or refuse, with why. */
  skipped: Array<{ path: RelPath; reason: string }>;
  /** What could not be read here. */
  unreadable: Array<{ path: RelPath; message: string }>;
}

export interface DryRunOptions {
  root: string;
  client: DriveClient;
  /** The folder's mirror; it is copied, never opened for writing. Absent or missing: a first sync. */
  mirrorPath: string | null;
  selection?: () => Selection;
  sharedPlace?: () => SharedPlace | null;
  signal?: AbortSignal;
}

/** The node file system with every write refused: a dry run that tried one would be a bug, said as such. */
function readOnly(fs: FileSystem): FileSystem {
  const refuse = async (): Promise<never> => {
    throw new Error('a dry run changes nothing on the disk');
  };
  const { volume: _volume, ...reads } = fs;
  return { ...reads, mkdir: refuse, rename: refuse, utimes: refuse, rm: refuse, rmdir: refuse, chmod: refuse };
}

export async function dryRun(options: DryRunOptions): Promise<DryRunReport> {
  const scratch = mkdtempSync(join(tmpdir(), 'drivesync-dry-run-'));
  const copy = join(scratch, 'mirror.sqlite');
  try {
    if (options.mirrorPath) Mirror.copy(options.mirrorPath, copy);
    const mirror = new Mirror(copy);
    try {
      return await planOnce(options, mirror);
    } finally {
      mirror.close();
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function planOnce(options: DryRunOptions, mirror: Mirror): Promise<DryRunReport> {
  const signal = options.signal ?? new AbortController().signal;
  const passOptions = {
    root: options.root,
    client: options.client,
    trash: async () => {
      throw new Error('a dry run deletes nothing');
    },
    hostname: 'dry-run',
    ...(options.selection ? { selection: options.selection } : {}),
    ...(options.sharedPlace ? { sharedPlace: options.sharedPlace } : {}),
  };
  const ports = { tell: () => undefined, signal, pollMs: 15_000 };
  const folder = new FolderState(passOptions, systemClock, readOnly(nodeFileSystem), mirror, new DisappearanceHold(), new RemoteChangeCheck(options.client, null), ports);
  folder.restoreTrees();
  const unreadable = await folder.local.scan(true);
  const base = folder.trees.base;
  folder.replaceRemote(await listRemote(options.client, null, (id) => base.has(id), signal, base));
  folder.shared.put(await folder.shared.list());
  const selection = options.selection?.() ?? NO_SELECTION;
  const shared = { area: folder.shared.area, place: folder.shared.place(), inPlay: folder.shared.inPlay };
  const { plan } = planPass({ trees: folder.trees, scope: null, selection, shared, names: folder.local.names, isIgnored: folder.local.isIgnored, whole: true });
  const items = describePlan(plan, folder);
  const totals: DryRunReport['totals'] = {};
  for (const item of items) {
    const total = (totals[item.kind] ??= { count: 0, bytes: 0 });
    total.count += item.count;
    total.bytes += item.bytes;
  }
  return {
    items,
    totals,
    synced: base.size,
    deletionsAsked: plan.deletions > 0 && deletionNeedsConsent(plan.deletions, base.size) ? plan.deletions : null,
    skipped: plan.skipped.map((s) => ({ path: s.path, reason: s.reason })),
    unreadable,
  };
}

/** What one plan's items are measured with: the trees, and what base holds by path. */
class PlanReader {
  private basePaths: Set<RelPath> | null = null;
  private children: Map<RemoteId, RemoteId[]> | null = null;
  readonly out: DryRunItem[] = [];

  constructor(private readonly trees: FolderState['trees']) {}

  one(kind: DryRunKind, path: RelPath, bytes = 0, extra: Partial<DryRunItem> = {}): void {
    this.out.push({ kind, path, bytes, count: 1, ...extra });
  }

  pathOf(id: RemoteId): RelPath {
    return this.trees.base.get(id)?.path ?? `#${id}`;
  }

  localBytes(path: RelPath): number {
    const item = this.trees.local.get(path);
    return item?.type === 'file' ? item.size : 0;
  }

  remoteBytes(id: RemoteId): number {
    const item = this.trees.remote.get(id);
    return item?.type === 'file' ? item.size : 0;
  }

  /** What a deletion takes along: the file, or the files under the folder here. */
  subtreeBytes(item: BaseItem | undefined, path: RelPath): number {
    if (item?.type === 'file') return item.size;
    let sum = 0;
    for (const l of this.trees.local.values()) if (l.type === 'file' && isWithin(l.path, path)) sum += l.size;
    return sum;
  }

  /** A folder new here is made on the drive first, then filled: what is new inside goes up with it. */
  newHere(folder: RelPath): void {
    this.basePaths ??= new Set([...this.trees.base.values()].map((b) => b.path));
    for (const l of this.trees.local.values()) {
      if (l.path === folder || !isWithin(l.path, folder) || this.basePaths.has(l.path)) continue;
      if (l.type === 'file') this.one('upload', l.path, l.size);
      else this.one('create-folder-on-drive', l.path);
    }
  }

  /** A folder new on the drive is made here first, then filled: what is inside comes down with it. */
  newThere(id: RemoteId, folder: RelPath): void {
    const { remote, base } = this.trees;
    if (!this.children) {
      this.children = new Map();
      for (const r of remote.values()) if (r.parentId !== null) this.children.set(r.parentId, [...(this.children.get(r.parentId) ?? []), r.id]);
    }
    const stack = (this.children.get(id) ?? []).map((child) => ({ id: child, path: `${folder}/${remote.get(child)!.name}` }));
    while (stack.length > 0) {
      const { id: cur, path } = stack.pop()!;
      const r = remote.get(cur)!;
      if (base.has(cur)) continue;
      if (r.type === 'file') this.one('download', path, r.size);
      else {
        this.one('create-folder-here', path);
        for (const child of this.children.get(cur) ?? []) stack.push({ id: child, path: `${path}/${remote.get(child)!.name}` });
      }
    }
  }
}

/** The plan's operations as items a person reads, with what new folders hold counted in. */
function describePlan(plan: SelectedPlan, folder: FolderState): DryRunItem[] {
  const read = new PlanReader(folder.trees);
  for (const op of plan.operations as Operation[]) describe(op, read, folder.trees.base);
  return read.out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function describe(op: Operation, read: PlanReader, base: FolderState['trees']['base']): void {
  switch (op.kind) {
    case 'upload':
      return read.one('upload', op.path, read.localBytes(op.path));
    case 'replace-remote':
      return read.one('upload-new-version', op.path, read.localBytes(op.path));
    case 'create-remote-folder':
      read.one('create-folder-on-drive', op.path);
      return read.newHere(op.path);
    case 'download':
      return read.one('download', op.path, read.remoteBytes(op.remoteId));
    case 'create-local-folder':
      read.one('create-folder-here', op.path);
      return read.newThere(op.remoteId, op.path);
    case 'rename-remote':
      return read.one('rename-on-drive', read.pathOf(op.remoteId), 0, { to: op.path });
    case 'move-remote':
      return read.one('move-on-drive', read.pathOf(op.remoteId), 0, { to: op.path });
    case 'move-local':
      return read.one('move-here', op.from, 0, { to: op.to });
    case 'trash-remote': {
      const path = read.pathOf(op.remoteId);
      read.out.push({ kind: 'delete-on-drive', path, bytes: read.subtreeBytes(base.get(op.remoteId), path), count: op.count });
      return;
    }
    case 'trash-local':
      read.out.push({ kind: 'delete-here', path: op.path, bytes: read.subtreeBytes(undefined, op.path), count: op.count });
      return;
    case 'conflict':
      return read.one('conflict', op.path, read.remoteBytes(op.remoteId));
    case 'merge':
      // The same path new on both sides: the bytes are compared, and a copy kept when they differ.
      return read.one('compare', op.path, read.remoteBytes(op.remoteId));
    default:
      // record, forget, resolve-twin, drop-local: bookkeeping and selective sync's own, not a change a person makes.
      return;
  }
}
