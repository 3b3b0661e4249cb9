/**
 * Compact stores for the three trees. Each is a Map to its users (the planner and `applyOutcome` read and write
 * plain maps, and the simulation tests hand them plain maps), but keeps its items as columns — typed arrays for
 * numbers and flags, arrays for strings — and makes an item object only when one is read. An item object with its
 * own strings costs ~200–300 bytes of heap; a row costs ~60–200, about half of it in typed arrays, which the
 * collector does not trace.
 *
 * Read items are fresh objects: changing one does not change the store (`set` does).
 */
import { birthField, birthMatch, known, sameItem } from '../model/birth.js';
import type { BaseItem, ItemType, LocalItem, RelPath, RemoteId, RemoteItem } from '../model/types.js';
import { ColumnMap, FOLDER, HashColumn, MADE_HERE, MapShape, StampColumn, grownF64, grownU8, lastSegment, typeCode, typeOf } from './columns.js';


/**
 * The synced tree (base), keyed by remote id. It remembers which rows were set or deleted since the last `drain`,
 * so only those are written back to the mirror.
 */
export class BaseTree extends ColumnMap<RemoteId, BaseItem> {
  readonly touched = new Set<RemoteId>();
  private parentId = new Float64Array(0);

  /** Items at the drive's root, counted from the parent column (no item is decoded: asked at every poll). */
  rootChildren(): number {
    let n = 0;
    for (const row of this.rows.values()) if (Number.isNaN(this.parentId[row]!)) n++;
    return n;
  }

  /** Each item as the local tree holds it, read from the columns it needs (no hash or time stamp decoded). */
  *localItems(): IterableIterator<LocalItem> {
    for (const row of this.rows.values()) {
      const path = this.path[row]!;
      yield { path, type: typeOf(this.type[row]! & FOLDER), inode: this.inode[row]!, size: this.bytes[row]!, mtimeMs: this.mtimeMs[row]!, ...birthField(this.birthtimeMs[row]) };
    }
  }

  /**
   * Each synced item, and whether the local and remote trees hold it as synced (`localAsSynced`, `remoteAsSynced`),
   * read from the columns where they are compact trees: only the path and the remote name are read. One record,
   * reused from one item to the next.
   */
  *syncedRows(local: ReadonlyMap<RelPath, LocalItem>, remote: ReadonlyMap<RemoteId, RemoteItem>): IterableIterator<SyncedRow> {
    const compact = local instanceof LocalTree && (remote instanceof RemoteTree || remote instanceof RemoteView);
    const out: SyncedRow = { id: 0, parentId: null, path: '', folder: false, remoteName: '', localSame: false, remoteSame: false };
    for (const [id, row] of this.rows) {
      const path = this.path[row]!;
      const folder = (this.type[row]! & FOLDER) === FOLDER;
      out.id = id;
      out.parentId = this.parentAt(row);
      out.path = path;
      out.folder = folder;
      out.remoteName = this.remoteName[row] ?? lastSegment(path);
      if (compact) {
        out.localSame = local.holdsSynced(path, folder, this.inode[row]!, this.birthtimeMs[row]!, this.bytes[row]!, this.mtimeMs[row]!);
        out.remoteSame = remote.holdsSynced(id, this.parentId[row]!, out.remoteName, folder, this.remoteSize[row]!, this.updatedAt, row);
      } else {
        const b = this.read(row, id);
        out.localSame = localAsSynced(b, local.get(path));
        out.remoteSame = remoteAsSynced(b, remote.get(id));
      }
      yield out;
    }
  }

  /** The path of the synced folder with this id (undefined: no such item, or a file). */
  folderPath(id: RemoteId): RelPath | undefined {
    const row = this.rows.get(id);
    return row !== undefined && (this.type[row]! & FOLDER) === FOLDER ? this.path[row] : undefined;
  }

  /** A row's remote parent (null: the drive's root, stored as NaN). */
  private parentAt(row: number): RemoteId | null {
    const parentId = this.parentId[row]!;
    return Number.isNaN(parentId) ? null : parentId;
  }

  /** Each item's remote parent, read from the parent column (no item is decoded). */
  *parents(): IterableIterator<[RemoteId, RemoteId | null]> {
    for (const [id, row] of this.rows) {
      yield [id, this.parentAt(row)];
    }
  }
  private type = new Uint8Array(0);
  private inode = new Float64Array(0);
  private bytes = new Float64Array(0);
  private mtimeMs = new Float64Array(0);
  /** 0: unknown. */
  private birthtimeMs = new Float64Array(0);
  private remoteSize = new Float64Array(0);
  private readonly path: Array<RelPath | undefined> = [];
  /** The remote name when it is not the last segment of the local path (sanitised or de-duplicated names). */
  private readonly remoteName: Array<string | undefined> = [];
  private readonly hash = new HashColumn();
  private readonly updatedAt = new StampColumn();

  protected grow(capacity: number): void {
    this.parentId = grownF64(this.parentId, capacity);
    this.type = grownU8(this.type, capacity);
    this.inode = grownF64(this.inode, capacity);
    this.bytes = grownF64(this.bytes, capacity);
    this.mtimeMs = grownF64(this.mtimeMs, capacity);
    this.birthtimeMs = grownF64(this.birthtimeMs, capacity);
    this.remoteSize = grownF64(this.remoteSize, capacity);
    this.hash.grow(capacity);
    this.updatedAt.grow(capacity);
  }

  protected write(row: number, b: BaseItem): void {
    this.parentId[row] = b.parentId ?? Number.NaN;
    this.type[row] = typeCode(b.type) | (b.madeHere ? MADE_HERE : 0);
    this.inode[row] = b.inode;
    this.bytes[row] = b.size;
    this.mtimeMs[row] = b.mtimeMs;
    this.birthtimeMs[row] = b.birthtimeMs ?? 0;
    this.remoteSize[row] = b.remoteSize;
    this.path[row] = b.path;
    this.remoteName[row] = b.remoteName === lastSegment(b.path) ? undefined : b.remoteName;
    this.hash.write(row, b.hash);
    this.updatedAt.write(row, b.remoteUpdatedAt);
  }

  protected read(row: number, remoteId: RemoteId): BaseItem {
    const path = this.path[row]!;
    const flags = this.type[row]!;
    return {
      remoteId,
      parentId: this.parentAt(row),
      remoteName: this.remoteName[row] ?? lastSegment(path),
      path,
      type: typeOf(flags & FOLDER),
      inode: this.inode[row]!,
      size: this.bytes[row]!,
      mtimeMs: this.mtimeMs[row]!,
      hash: this.hash.read(row),
      remoteSize: this.remoteSize[row]!,
      remoteUpdatedAt: this.updatedAt.read(row),
      ...birthField(this.birthtimeMs[row]),
      ...(flags & MADE_HERE ? { madeHere: true as const } : {}),
    };
  }

  protected release(row: number): void {
    this.path[row] = undefined;
    this.remoteName[row] = undefined;
    this.hash.release(row);
    this.updatedAt.release(row);
  }

  /**
   * What a scan asks of base, answered from a path index of the rows as they are now: is a path synced, and is a
   * local item a file synced at its path whose size, mtime, inode or birth time changed since (only those are hashed)?
   */
  scanLookup(): { isSynced: (path: RelPath) => boolean; needsHash: (item: LocalItem) => boolean } {
    const rowAt = new Map<RelPath, number>();
    for (const row of this.rows.values()) rowAt.set(this.path[row]!, row);
    return {
      isSynced: (path) => rowAt.has(path),
      needsHash: (item) => {
        const row = rowAt.get(item.path);
        if (row === undefined || (this.type[row]! & FOLDER) === FOLDER) return false;
        if (this.bytes[row] !== item.size || this.mtimeMs[row] !== item.mtimeMs || this.inode[row] !== item.inode) return true;
        // A new file with the old one's inode number: hashed, so that an identical one is recorded (C4) with its birth time.
        return birthMatch({ birthtimeMs: this.birthtimeMs[row]! }, item) === 'different';
      },
    };
  }

  override set(id: RemoteId, item: BaseItem): this {
    this.touched.add(id);
    const had = this.rows.get(id);
    if (had !== undefined) this.tellReaders(id, had, 'before');
    super.set(id, item);
    this.tellReaders(id, this.rows.get(id)!, 'after');
    return this;
  }

  /**
   * A row as the mirror stores it, not marked as touched: its sha256 as the 32 bytes `digest` when given (a million
   * of them are read back after an idle spell), else `item.hash`.
   */
  load(item: BaseItem, digest: Buffer | null): void {
    super.set(item.remoteId, item);
    if (digest !== null) this.hash.writeBytes(this.rows.get(item.remoteId)!, digest);
  }

  override delete(id: RemoteId): boolean {
    this.touched.add(id);
    const row = this.rows.get(id);
    if (row !== undefined) this.tellReaders(id, row, 'before');
    return super.delete(id);
  }

  /** Views that read rows through (RemoteView), held weakly: a view nobody holds any more stops being told. */
  private readonly readers = new Set<WeakRef<BaseReader>>();

  /** Tells `reader` of every change to a row from now on, before and after it is made. */
  attach(reader: BaseReader): void {
    this.readers.add(new WeakRef(reader));
  }

  detach(reader: BaseReader): void {
    for (const ref of this.readers) if (ref.deref() === reader) this.readers.delete(ref);
  }

  private tellReaders(id: RemoteId, row: number, when: 'before' | 'after'): void {
    if (this.readers.size === 0) return;
    for (const ref of this.readers) {
      const reader = ref.deref();
      if (reader === undefined) this.readers.delete(ref);
      else if (when === 'before') reader.beforeRowChange(id, row);
      else reader.afterRowChange(id, row);
    }
  }

  /** The row of a synced item (rows are reused once an item is deleted: readers hear of that first). */
  rowOf(id: RemoteId): number | undefined {
    return this.rows.get(id);
  }

  /** Each synced item's id and row. */
  rowEntries(): MapIterator<[RemoteId, number]> {
    return this.rows.entries();
  }

  /** A row as a listing names the entry. */
  remoteAt(row: number, id: RemoteId): RemoteItem {
    const path = this.path[row]!;
    return { id, parentId: this.parentAt(row), name: this.remoteName[row] ?? lastSegment(path), type: typeOf(this.type[row]! & FOLDER), size: this.remoteSize[row]!, updatedAt: this.updatedAt.read(row) };
  }

  /** A listing's entry says of the drive exactly what a row records (so the row can stand for it). */
  recordsRemote(row: number, item: RemoteItem): boolean {
    if (item.createdAt !== undefined || typeOf(this.type[row]! & FOLDER) !== item.type || this.remoteSize[row] !== item.size) return false;
    if (this.parentAt(row) !== item.parentId || (this.remoteName[row] ?? lastSegment(this.path[row]!)) !== item.name) return false;
    return this.updatedAt.read(row) === item.updatedAt;
  }

  /** A row's remote parent (null: the drive's root). */
  parentOfRow(row: number): RemoteId | null {
    return this.parentAt(row);
  }

  /** Whether a row is at the drive's root. */
  atRoot(row: number): boolean {
    return Number.isNaN(this.parentId[row]!);
  }

  /** The touched rows split into rows to write and rows to remove; forgets them. */
  drain(): { upserts: BaseItem[]; deletes: RemoteId[] } {
    const upserts: BaseItem[] = [];
    const deletes: RemoteId[] = [];
    for (const id of this.touched) {
      const item = this.get(id);
      if (item === undefined) deletes.push(id);
      else upserts.push(item);
    }
    this.touched.clear();
    return { upserts, deletes };
  }
}

/** What the last scan saw, keyed by local path. */
export class LocalTree extends ColumnMap<RelPath, LocalItem> {
  private type = new Uint8Array(0);
  private inode = new Float64Array(0);
  private bytes = new Float64Array(0);
  private mtimeMs = new Float64Array(0);
  /** 0: unknown. */
  private birthtimeMs = new Float64Array(0);
  private readonly path: Array<RelPath | undefined> = [];
  /** Hashes are computed only for files that differ from their base: few rows have one. */
  private readonly hash = new Map<number, string>();

  protected grow(capacity: number): void {
    this.type = grownU8(this.type, capacity);
    this.inode = grownF64(this.inode, capacity);
    this.bytes = grownF64(this.bytes, capacity);
    this.mtimeMs = grownF64(this.mtimeMs, capacity);
    this.birthtimeMs = grownF64(this.birthtimeMs, capacity);
  }

  protected write(row: number, item: LocalItem): void {
    this.type[row] = typeCode(item.type);
    this.inode[row] = item.inode;
    this.bytes[row] = item.size;
    this.mtimeMs[row] = item.mtimeMs;
    this.birthtimeMs[row] = item.birthtimeMs ?? 0;
    this.path[row] = item.path;
    if (item.hash === undefined) this.hash.delete(row);
    else this.hash.set(row, item.hash);
  }

  protected read(row: number): LocalItem {
    const item: LocalItem = {
      path: this.path[row]!,
      type: typeOf(this.type[row]!),
      inode: this.inode[row]!,
      size: this.bytes[row]!,
      mtimeMs: this.mtimeMs[row]!,
      ...birthField(this.birthtimeMs[row]),
    };
    const hash = this.hash.get(row);
    if (hash !== undefined) item.hash = hash;
    return item;
  }

  protected release(row: number): void {
    this.path[row] = undefined;
    this.hash.delete(row);
  }

  /** The item at `path` is the synced item with these columns of base (`localAsSynced`), read from the columns. */
  holdsSynced(path: RelPath, folder: boolean, inode: number, birthtimeMs: number, size: number, mtimeMs: number): boolean {
    const row = this.rows.get(path);
    if (row === undefined || (this.type[row] === FOLDER) !== folder || this.inode[row] !== inode) return false;
    const birth = this.birthtimeMs[row]!;
    if (known(birth) && known(birthtimeMs) && birth !== birthtimeMs) return false;
    return folder || (this.bytes[row] === size && this.mtimeMs[row] === mtimeMs);
  }

  /** The local tree as base records it: what a scan finds when nothing changed since the last sync. */
  static fromBase(base: BaseTree): LocalTree {
    const local = new LocalTree();
    for (const item of base.localItems()) local.set(item.path, item);
    return local;
  }
}

/** What the last listing said, keyed by remote id. */
export class RemoteTree extends ColumnMap<RemoteId, RemoteItem> {
  private parentId = new Float64Array(0);

  /** Items at the drive's root, counted from the parent column (no item is decoded: asked at every poll). */
  rootChildren(): number {
    let n = 0;
    for (const row of this.rows.values()) if (Number.isNaN(this.parentId[row]!)) n++;
    return n;
  }
  private type = new Uint8Array(0);
  private bytes = new Float64Array(0);
  private readonly name: Array<string | undefined> = [];
  private readonly updatedAt = new StampColumn();
  /** Only entries new since the last sync need their creation time (to adopt an upload whose answer was lost). */
  private readonly createdAt = new Map<number, string>();

  protected grow(capacity: number): void {
    this.parentId = grownF64(this.parentId, capacity);
    this.type = grownU8(this.type, capacity);
    this.bytes = grownF64(this.bytes, capacity);
    this.updatedAt.grow(capacity);
  }

  protected write(row: number, item: RemoteItem): void {
    this.parentId[row] = item.parentId ?? Number.NaN;
    this.type[row] = typeCode(item.type);
    this.bytes[row] = item.size;
    this.name[row] = item.name;
    this.updatedAt.write(row, item.updatedAt);
    if (item.createdAt === undefined) this.createdAt.delete(row);
    else this.createdAt.set(row, item.createdAt);
  }

  protected read(row: number, id: RemoteId): RemoteItem {
    const parentId = this.parentId[row]!;
    const item: RemoteItem = {
      id,
      parentId: Number.isNaN(parentId) ? null : parentId,
      name: this.name[row]!,
      type: typeOf(this.type[row]!),
      size: this.bytes[row]!,
      updatedAt: this.updatedAt.read(row),
    };
    const createdAt = this.createdAt.get(row);
    if (createdAt !== undefined) item.createdAt = createdAt;
    return item;
  }

  protected release(row: number): void {
    this.name[row] = undefined;
    this.updatedAt.release(row);
    this.createdAt.delete(row);
  }

  /** The entry `id` is the synced entry with these columns of base (`remoteAsSynced`; a parent at the root is NaN). */
  holdsSynced(id: RemoteId, parentId: number, name: string, folder: boolean, size: number, stamps: StampColumn, stampRow: number): boolean {
    const row = this.rows.get(id);
    if (row === undefined || (this.type[row] === FOLDER) !== folder || this.name[row] !== name) return false;
    const parent = this.parentId[row]!;
    if (parent !== parentId && !(Number.isNaN(parent) && Number.isNaN(parentId))) return false;
    return folder || (this.bytes[row] === size && this.updatedAt.sameAs(row, stamps, stampRow));
  }

  /** Each entry's parent, read from the parent column (no item is decoded). */
  *parents(): IterableIterator<[RemoteId, RemoteId | null]> {
    for (const [id, row] of this.rows) {
      const parentId = this.parentId[row]!;
      yield [id, Number.isNaN(parentId) ? null : parentId];
    }
  }
}

/** What reads base's rows through, told of each change to a row before and after it is made. */
export interface BaseReader {
  beforeRowChange(id: RemoteId, row: number): void;
  afterRowChange(id: RemoteId, row: number): void;
}

/**
 * A remote tree that holds only what differs from base: an entry the listing (or an operation's answer) names exactly
 * as base records it is a flag on base's row, read through when asked for; the rest is a RemoteTree of its own. A
 * million synced entries then cost a byte each instead of ~100, and the tree of a folder in sync is made without a
 * copy. Base changes under a pass (the executor records each operation): a row read through is copied out before it
 * changes, so the tree still says what the listing said, and an entry of its own that base now records as it is goes
 * back to a flag.
 */
export class RemoteView extends MapShape<RemoteId, RemoteItem> implements BaseReader {
  private readonly own = new RemoteTree();
  /** 1: base's row stands for the entry. Indexed by base's row. */
  private through = new Uint8Array(0);
  private throughCount = 0;

  constructor(private readonly base: BaseTree) {
    super();
    base.attach(this);
  }

  /** The listing as base records it: what the service answers when nothing changed since the last sync. */
  static ofBase(base: BaseTree): RemoteView {
    const view = new RemoteView(base);
    for (const row of base.rowEntries()) view.mark(row[1]);
    return view;
  }

  /** Stops following base (the tree is no longer the pass's). */
  detach(): void {
    this.base.detach(this);
  }

  private isThrough(row: number | undefined): row is number {
    return row !== undefined && row < this.through.length && this.through[row] === 1;
  }

  private mark(row: number): void {
    if (row >= this.through.length) {
      const next = new Uint8Array(Math.max(1024, row + 1, this.through.length * 2));
      next.set(this.through);
      this.through = next;
    }
    if (this.through[row] === 0) {
      this.through[row] = 1;
      this.throughCount++;
    }
  }

  private unmark(row: number | undefined): void {
    if (this.isThrough(row)) {
      this.through[row] = 0;
      this.throughCount--;
    }
  }

  beforeRowChange(id: RemoteId, row: number): void {
    if (!this.isThrough(row)) return;
    this.own.set(id, this.base.remoteAt(row, id));
    this.unmark(row);
  }

  afterRowChange(id: RemoteId, row: number): void {
    const item = this.own.get(id);
    if (item !== undefined && this.base.recordsRemote(row, item)) {
      this.own.delete(id);
      this.mark(row);
    }
  }

  get size(): number {
    return this.own.size + this.throughCount;
  }

  /** How many entries it holds apart from base (differing from it, or not in it). */
  get apart(): number {
    return this.own.size;
  }

  /** The entries it holds apart from base: among them, every entry base does not record. */
  apartValues(): MapIterator<RemoteItem> {
    return this.own.values();
  }

  get(id: RemoteId): RemoteItem | undefined {
    const mine = this.own.get(id);
    if (mine !== undefined) return mine;
    const row = this.base.rowOf(id);
    return this.isThrough(row) ? this.base.remoteAt(row, id) : undefined;
  }

  has(id: RemoteId): boolean {
    return this.own.has(id) || this.isThrough(this.base.rowOf(id));
  }

  set(id: RemoteId, item: RemoteItem): this {
    const row = this.base.rowOf(id);
    if (row !== undefined && this.base.recordsRemote(row, item)) {
      this.own.delete(id);
      this.mark(row);
    } else {
      this.unmark(row);
      this.own.set(id, item);
    }
    return this;
  }

  delete(id: RemoteId): boolean {
    const row = this.base.rowOf(id);
    const was = this.isThrough(row);
    this.unmark(row);
    return this.own.delete(id) || was;
  }

  clear(): void {
    this.own.clear();
    this.through.fill(0);
    this.throughCount = 0;
  }

  *keys(): MapIterator<RemoteId> {
    for (const [id, row] of this.base.rowEntries()) if (this.isThrough(row)) yield id;
    yield* this.own.keys();
  }

  *entries(): MapIterator<[RemoteId, RemoteItem]> {
    for (const [id, row] of this.base.rowEntries()) if (this.isThrough(row)) yield [id, this.base.remoteAt(row, id)];
    yield* this.own.entries();
  }

  *values(): MapIterator<RemoteItem> {
    for (const [id, row] of this.base.rowEntries()) if (this.isThrough(row)) yield this.base.remoteAt(row, id);
    yield* this.own.values();
  }

  /** Items at the drive's root (no item is decoded: asked at every poll). */
  rootChildren(): number {
    let n = this.own.rootChildren();
    for (const [, row] of this.base.rowEntries()) if (this.isThrough(row) && this.base.atRoot(row)) n++;
    return n;
  }

  /** Each entry's parent, from base's parent column and its own (no item is decoded). */
  *parents(): IterableIterator<[RemoteId, RemoteId | null]> {
    for (const [id, row] of this.base.rowEntries()) if (this.isThrough(row)) yield [id, this.base.parentOfRow(row)];
    yield* this.own.parents();
  }

  /** As RemoteTree.holdsSynced: a row read through holds what base records of it by definition. */
  holdsSynced(id: RemoteId, parentId: number, name: string, folder: boolean, size: number, stamps: StampColumn, stampRow: number): boolean {
    return this.isThrough(this.base.rowOf(id)) || this.own.holdsSynced(id, parentId, name, folder, size, stamps, stampRow);
  }
}

/** One synced item as `BaseTree.syncedRows` reads it. */
export interface SyncedRow {
  id: RemoteId;
  parentId: RemoteId | null;
  path: RelPath;
  folder: boolean;
  remoteName: string;
  /** The item at its path here is it, as last synced (`localAsSynced`). */
  localSame: boolean;
  /** The listing says of it what base says (`remoteAsSynced`). */
  remoteSame: boolean;
}

/** The item at a synced item's path is that item, as last synced (its inode, and a file's size and mtime). */
export function localAsSynced(b: BaseItem, l: LocalItem | undefined): boolean {
  return l !== undefined && l.type === b.type && sameItem(l, b) && (b.type !== 'file' || (l.size === b.size && l.mtimeMs === b.mtimeMs));
}

/** The listing says of a synced entry what base says: its place, name, and a file's size and update time. */
export function remoteAsSynced(b: BaseItem, r: RemoteItem | undefined): boolean {
  return (
    r !== undefined &&
    r.type === b.type &&
    r.parentId === b.parentId &&
    r.name === b.remoteName &&
    (b.type !== 'file' || (r.size === b.remoteSize && r.updatedAt === b.remoteUpdatedAt))
  );
}
