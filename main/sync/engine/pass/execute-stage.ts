/**
 * The execute stage of a pass: the executor wired to the engine's events (what each operation done is told as), and
 * the sorting of what failed — tried again this pass, a failure of the item, or the server out of reach.
 */
import { ApiError, RateLimitedError } from '../../../api/errors.js';
import { droppedNotice } from '../../execute/drop.js';
import { BusyError, Executor, StaleError, type ExecuteResult, type ExecutorEvents } from '../../execute/executor.js';
import type { Mirror } from '../../trees/mirror.js';
import { baseName, conflictOriginal, isGivenName, joinPath, parentOf, type NameRules } from '../../model/names.js';
import type { Clock, FileSystem } from '../../local/ports.js';
import type { BaseItem, LocalItem, Operation, RelPath, RemoteId, RuleId } from '../../model/types.js';
import type { FolderTrees, PassEvent, PassPorts, PassOptions } from './inputs.js';
import { describeError, type ItemError } from './summary.js';

/** The server could not be reached (no connection, or no answer in time). */
export const isUnreachable = (error: unknown): boolean => error instanceof ApiError && (error.kind === 'network' || error.kind === 'timeout');

/** The local path an operation is about; remote-only ones are named by the synced item's path. */
export function opPath(op: Operation, base?: ReadonlyMap<RemoteId, BaseItem>): string {
  if ('path' in op) return op.path;
  if (op.kind === 'move-local') return op.to;
  return base?.get(op.remoteId)?.path ?? `#${op.remoteId}`;
}

/** A move to `to` is a file's conflicted copy taking the place of its numbered copy `from` (`a (2).txt`), or of `a.txt`. */
function isConflictOf(to: RelPath, from: RelPath, names: NameRules): boolean {
  const original = conflictOriginal(baseName(to));
  return original !== baseName(to) && parentOf(to) === parentOf(from) && isGivenName(baseName(from), original, names);
}

/**
 * What one pass tells about its operations: the paths, as base had them when planned, of those that name none (the
 * rest are told by their own path), and changes kept as copies.
 */
export interface PassTelling {
  labels: WeakMap<Operation, string>;
  /** Paths whose change to what the account may only view was told kept as a copy (S2) this pass. */
  keptAsCopy: Set<RelPath>;
}

export interface ExecutorParts {
  root: string;
  options: PassOptions;
  trees: FolderTrees;
  mirror: Mirror;
  clock: Clock;
  fs: FileSystem;
  randomId: () => string;
  /** Scans a folder moved aside at `absolutePath` as if it were at `path` (what a trash of it takes along). */
  scanFolder(absolutePath: string, path: RelPath): Promise<Map<RelPath, LocalItem>>;
  /** How the folder's volume names items. */
  names: NameRules;
  host: PassPorts;
}

/** The executor of one pass, its events told to the engine as activity, notices and conflicts. */
export function passExecutor(parts: ExecutorParts, telling: PassTelling): Executor {
  const { options } = parts;
  const { labels, keptAsCopy } = telling;
  const tell = (event: PassEvent) => parts.host.tell(event);
  const notice = (message: string) => tell({ kind: 'notice', message });
  const done = (op: Operation, outcome: Parameters<NonNullable<ExecutorEvents['done']>>[1]) => {
    // A resolved duplicate that was a conflict is told by `conflict`; the same bytes twice, as a merge.
    if (op.kind === 'resolve-twin') {
      if (outcome.kind === 'synced') tell({ kind: 'activity', activity: { kind: 'merge', path: labels.get(op) ?? op.path, rule: op.rule } });
      return;
    }
    if (op.kind === 'drop-local' && outcome.kind === 'dropped') notice(droppedNotice(outcome));
    const deleted = (op.kind === 'trash-remote' || op.kind === 'trash-local') && op.remoteId !== null ? { remoteId: op.remoteId } : {};
    tell({ kind: 'activity', activity: { kind: op.kind, path: labels.get(op) ?? opPath(op), rule: op.rule, ...deleted } });
    // Another computer resolved a file saved on two computers at once (C5): its version, here under a number
    // until then, follows the drive's rename to the conflicted copy. Told as the conflict it is.
    if (op.kind === 'move-local' && op.rule === 'M2' && isConflictOf(op.to, op.from, parts.names)) {
      const original = joinPath(parentOf(op.to), conflictOriginal(baseName(op.to)));
      notice(`${original} was saved on two computers at the same time; the other version is kept as ${op.to}`);
      tell({ kind: 'conflict', copyPath: op.to, path: original });
    }
  };
  const conflict = (path: RelPath, copy: RelPath, twice?: RuleId) => {
    tell({ kind: 'conflict', copyPath: copy, path });
    // A change to what the account may only view, kept as a copy: its note said so (S2), and the drive's side did
    // not change.
    if (!twice && keptAsCopy.delete(path)) return;
    notice(
      twice
        ? `${path} was saved on this computer and another at the same time; this computer's version is kept as ${copy}, here and on the drive`
        : `both sides changed ${path}; your version is kept as ${copy}`,
    );
    tell({ kind: 'activity', activity: { kind: 'conflict', path: copy, ...(twice ? { rule: twice } : {}) } });
  };
  return new Executor(
    parts.root,
    options.remoteRootId ?? null,
    parts.trees,
    parts.mirror,
    {
      client: options.client,
      trash: options.trash,
      clock: parts.clock,
      hostname: options.hostname,
      fs: parts.fs,
      randomId: parts.randomId,
      scanFolder: parts.scanFolder,
      names: parts.names,
    },
    { transfer: (transfer) => tell({ kind: 'transfer', transfer }), done, notice, conflict },
    options.concurrency ?? 4,
  );
}

/** What failed so far in a pass, keyed by operation (kind and path). */
export class PassFailures {
  readonly items = new Map<string, ItemError>();
  /** Failures that were the server out of reach, not the item. */
  readonly unreachable = new Set<string>();
  private readonly rateLimited = new Map<string, number>();
  /** An item another program locked. */
  busy = false;

  has(op: Operation): boolean {
    return this.items.has(key(op));
  }

  add(op: Operation, label: string | undefined, error: unknown): void {
    this.items.set(key(op), { path: label ?? opPath(op), message: describeError(error) });
    if (isUnreachable(error)) this.unreachable.add(key(op));
    if (error instanceof BusyError) this.busy = true;
  }

  /**
   * Sorts a step's failures: those planned again at once are passed over, the rest recorded; returns the ones the
   * drive refused in what others share with the account, when `inShared` says looking at it again may help.
   */
  sort(outcome: ExecuteResult, labels: PassTelling['labels'], signal: AbortSignal, inShared: ((op: Operation, error: unknown) => boolean) | null) {
    const refused: Array<{ op: Operation; error: unknown }> = [];
    for (const { op, error } of outcome.failed) {
      // Planned again next iteration: the disk or listing moved on, or the service asked to wait (and it has;
      // three times for one operation, and it waits for the next sync).
      if (error instanceof StaleError) continue;
      // Cut short by a stop the user asked for: not a failure; it is done at the next start.
      if (signal.aborted) continue;
      if (error instanceof RateLimitedError) {
        const tries = (this.rateLimited.get(key(op)) ?? 0) + 1;
        this.rateLimited.set(key(op), tries);
        if (tries < 3) continue;
      }
      // The owner may have stopped sharing it, or taken the edit permission back, since it was last listed: what is
      // shared is listed again and the plan made anew (once a pass), rather than a failure reported.
      if (inShared?.(op, error)) {
        refused.push({ op, error });
        continue;
      }
      this.add(op, labels.get(op), error);
    }
    return refused;
  }

  /** Nothing went through and every failure was the server out of reach: the folder is offline, not its items. */
  allUnreachable(done: number): boolean {
    return this.items.size > 0 && this.unreachable.size === this.items.size && done === 0;
  }
}

const key = (op: Operation) => `${op.kind}:${opPath(op)}`;
