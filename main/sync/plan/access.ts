/**
 * The rows of access (S1–S6 of docs/sync-rules.md, "Shared with me"), the planner's last stage: what the account may do
 * inside an entry shared with it is the drive's. Each operation the table planned that the account may not make turns
 * into what keeps the local change and the drive's version both. The folders drivesync makes up for what is shared
 * (negative ids) are in the trees like any folder, so the table places, renames and trashes their local copies, but
 * nothing is ever sent to the drive for them.
 */
import { addTo } from '../model/grouping.js';
import { isWithin } from '../model/names.js';
import { SHARED_FOLDER_ID, type SharedArea, type SharedPlace, type SharedTop } from '../model/shared-area.js';
import type { BaseItem, Operation, Plan, RelPath, RemoteId, Trees } from '../model/types.js';

/** Where an entry is, as far as what the account may do there goes. */
type Zone = { kind: 'own' } | { kind: 'placed' } | { kind: 'shared'; top: SharedTop } | { kind: 'gone' };

class Zones {
  private readonly known = new Map<RemoteId, Zone>();

  constructor(
    private readonly trees: Trees,
    private readonly tops: ReadonlyMap<RemoteId, SharedTop>,
  ) {}

  /** The zone of an entry: by its parents on the drive, or where it was when last synced (its shared entry gone). */
  of(id: RemoteId | null): Zone {
    if (id === null) return { kind: 'own' };
    if (id < 0) return { kind: 'placed' };
    const cached = this.known.get(id);
    if (cached) return cached;
    let zone: Zone = { kind: 'own' };
    for (let cur: RemoteId | null = id, hops = 0; cur !== null && hops < 10_000; hops++) {
      const top = this.tops.get(cur);
      if (top) {
        zone = { kind: 'shared', top };
        break;
      }
      if (cur < 0) {
        zone = { kind: 'gone' }; // reached the made-up folders, through no entry shared now
        break;
      }
      const parent: RemoteId | null | undefined = this.trees.remote.get(cur)?.parentId ?? this.trees.base.get(cur)?.parentId;
      if (parent === undefined) break;
      cur = parent;
    }
    this.known.set(id, zone);
    return zone;
  }

  /** The shared entry an entry is in or is ('own' when none), for telling a move across drives. */
  drive(id: RemoteId | null): string {
    const zone = this.of(id);
    return zone.kind === 'shared' ? `shared:${zone.top.id}` : zone.kind;
  }
}

const readOnly = (zone: Zone): zone is { kind: 'shared'; top: SharedTop } => zone.kind === 'shared' && !zone.top.editable;

/**
 * The plan with what the account may not do on the drive turned into what keeps both versions (rows S1–S6): nothing
 * is uploaded, renamed, moved or trashed in a shared entry the account may only view, in the made-up folders, or
 * across drives; a local change there stays here as a copy, and the drive's version comes back (its synced row is
 * forgotten: the table then places the entry again, next to the local item). What is left of an entry no longer
 * shared with the account goes to the OS trash.
 */
export function rowsOfAccess<P extends Plan>(plan: P, trees: Trees, area: SharedArea, place: SharedPlace): P {
  if (area.tops.size === 0 && !hasShared(trees.base)) return plan;
  const rows = new AccessRows(plan, trees, area, place);
  for (const op of plan.operations) rows.decide(op);
  return { ...plan, operations: withoutNestedTrash(rows.operations), skipped: rows.skipped, notes: rows.notes, deletions: Math.max(0, rows.deletions) };
}

/** One plan's operations, each kept or turned into its row of access. */
class AccessRows {
  readonly operations: Operation[] = [];
  readonly skipped: Plan['skipped'];
  readonly notes: Plan['notes'];
  deletions: number;
  private readonly zones: Zones;
  private readonly forgotten = new Set<RemoteId>();
  private children: Map<RemoteId, RemoteId[]> | null = null;

  constructor(
    plan: Plan,
    private readonly trees: Trees,
    private readonly area: SharedArea,
    private readonly place: SharedPlace,
  ) {
    this.skipped = [...plan.skipped];
    this.notes = [...plan.notes];
    this.deletions = plan.deletions;
    this.zones = new Zones(trees, area.tops);
  }

  decide(op: Operation): void {
    switch (op.kind) {
      case 'upload':
      case 'create-remote-folder':
        return this.added(op);
      case 'replace-remote':
        return this.replaced(op);
      case 'trash-remote':
        return this.trashed(op);
      case 'rename-remote':
      case 'move-remote':
        return this.moved(op);
      case 'resolve-twin':
        if (!readOnly(this.zones.of(op.remoteId))) this.operations.push(op);
        return;
      case 'download':
      case 'merge':
      case 'conflict':
        return this.downloaded(op);
      case 'forget':
        return this.gone(op);
      default:
        this.operations.push(op);
    }
  }

  private whyNot(zone: Zone): string {
    return readOnly(zone) ? `${zone.top.name} is shared with you to view only` : `${this.place.folder} holds only what others share with you`;
  }

  /** S1 (left out), S6 (the OS trash, where the shared entry is gone), or sent. */
  private added(op: Extract<Operation, { kind: 'upload' | 'create-remote-folder' }>): void {
    const zone = this.zones.of(op.parentId);
    if (zone.kind === 'placed' || readOnly(zone)) {
      // 'S1': left out, told once.
      this.skipped.push({ path: op.path, reason: `${this.whyNot(zone)}: kept here, not uploaded`, fails: false });
    } else if (zone.kind === 'gone') {
      this.operations.push({ kind: 'trash-local', rule: 'S6', path: op.path, remoteId: null, count: 1 });
      this.deletions += 1;
    } else this.operations.push(op);
  }

  private replaced(op: Extract<Operation, { kind: 'replace-remote' }>): void {
    const zone = this.zones.of(op.remoteId);
    if (!readOnly(zone)) return void this.operations.push(op);
    this.forgetSubtree(op.remoteId, 'S2');
    this.notes.push({ path: op.path, message: `${this.whyNot(zone)}: your change is kept as a copy beside it, and the drive's version comes back`, keptAsCopy: true });
  }

  private trashed(op: Extract<Operation, { kind: 'trash-remote' }>): void {
    const zone = this.zones.of(op.remoteId);
    const top = this.area.tops.get(op.remoteId);
    if (op.remoteId >= 0 && !top && !readOnly(zone)) return void this.operations.push(op);
    this.deletions -= op.count;
    this.forgetSubtree(op.remoteId, 'S3');
    const what = op.remoteId < 0 ? this.whyNot({ kind: 'placed' }) : top ? `${top.name} is shared with you by ${top.owner ?? 'its owner'}` : this.whyNot(zone);
    const path = this.trees.base.get(op.remoteId)?.path ?? `entry ${op.remoteId}`;
    this.notes.push({ path, message: `${what}: deleting it here does not delete it on the drive, so it comes back (drivesync exclude keeps it off this computer)` });
  }

  /** S4 (a rename), S5 (a move across drives, of a shared entry out of its place, or where the account may only view). */
  private moved(op: Extract<Operation, { kind: 'rename-remote' | 'move-remote' }>): void {
    const zone = this.zones.of(op.remoteId);
    const from = this.trees.remote.get(op.remoteId)?.parentId ?? null;
    const across = op.kind === 'move-remote' && (this.area.tops.has(op.remoteId) || this.zones.drive(op.parentId) !== this.zones.drive(from));
    if (op.remoteId >= 0 && !readOnly(zone) && !across) return void this.operations.push(op);
    this.forgetSubtree(op.remoteId, op.kind === 'rename-remote' ? 'S4' : 'S5');
    const why = readOnly(zone) || op.remoteId < 0 ? this.whyNot(zone.kind === 'own' ? { kind: 'placed' } : zone) : "the drive moves an entry only within its owner's drive";
    this.notes.push({ path: op.path, message: `${why}: it stays where it was on the drive and comes back there; what you moved is kept as a copy` });
  }

  /** A file of an entry shared without download is left out (its folders come). */
  private downloaded(op: Extract<Operation, { kind: 'download' | 'merge' | 'conflict' }>): void {
    const zone = this.zones.of(op.remoteId);
    if (zone.kind === 'shared' && !zone.top.downloadable && this.trees.remote.get(op.remoteId)?.type === 'file') {
      this.skipped.push({ path: op.path, reason: `${zone.top.name} is shared with you without download: its files are not on this computer`, fails: false });
    } else this.operations.push(op);
  }

  /** Gone on the drive with a change here (D4, D5): an entry no longer shared with the account is not made again (S6). */
  private gone(op: Extract<Operation, { kind: 'forget' }>): void {
    const b = this.trees.base.get(op.remoteId);
    const left = b && (this.zones.of(op.remoteId).kind === 'gone' || (op.remoteId < 0 && !this.trees.remote.has(op.remoteId)));
    if (left && this.trees.local.has(b.path) && (op.rule === 'D4' || op.rule === 'D5')) {
      this.operations.push({ kind: 'trash-local', rule: 'S6', path: b.path, remoteId: op.remoteId, count: 1 });
      this.deletions += 1;
    } else this.operations.push(op);
  }

  /** Forgets a synced item and what base holds below it, each once. */
  private forgetSubtree(id: RemoteId, rule: 'S2' | 'S3' | 'S4' | 'S5'): void {
    if (this.children === null) {
      this.children = new Map();
      for (const b of this.trees.base.values()) if (b.parentId !== null) addTo(this.children, b.parentId, b.remoteId);
    }
    const stack = [id];
    while (stack.length > 0) {
      const cur = stack.pop()!;
      if (this.forgotten.has(cur) || !this.trees.base.has(cur)) continue;
      this.forgotten.add(cur);
      this.operations.push({ kind: 'forget', rule, remoteId: cur });
      stack.push(...(this.children.get(cur) ?? []));
    }
  }
}

const hasShared = (base: ReadonlyMap<RemoteId, BaseItem>): boolean => base.has(SHARED_FOLDER_ID);

/** A local trash inside another one of the same pass goes with it. */
function withoutNestedTrash(operations: Operation[]): Operation[] {
  const trashed = operations.flatMap((op) => (op.kind === 'trash-local' && op.rule === 'S6' ? [op.path] : []));
  if (trashed.length < 2) return operations;
  return operations.filter((op) => !(op.kind === 'trash-local' && op.rule === 'S6' && trashed.some((p) => p !== op.path && isWithin(op.path, p))));
}

/** Paths of the files in shared entries the account may only view (their local copies have no write bits). */
export function viewOnlyFiles(trees: Pick<Trees, 'base' | 'remote'>, area: SharedArea): RelPath[] {
  if (![...area.tops.values()].some((t) => !t.editable)) return [];
  const zones = new Zones({ ...trees, local: new Map() }, area.tops);
  const files: RelPath[] = [];
  for (const b of trees.base.values()) if (b.type === 'file' && readOnly(zones.of(b.remoteId))) files.push(b.path);
  return files;
}
