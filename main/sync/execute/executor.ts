/**
 * Carries out a plan's operations against the service and the disk, through p-queue, and records each result in
 * the trees and the mirror. Every operation is journalled before it starts; its result and the journal entry's
 * removal are one transaction.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import PQueue from 'p-queue';
import { carriedBy, carryOver, findByName, locateEntry } from '../../api/carry.js';
import type { DriveClient } from '../../api/client.js';
import { ApiError, isTransient, neverSent, NotFoundError, RateLimitedError } from '../../api/errors.js';
import type { FileEntry } from '../../api/schemas.js';
import { commitOutcome, type MutableTrees, type Outcome } from '../trees/apply.js';
import { birthField, birthTimeOf, sameItem } from '../model/birth.js';
import { changedSince, clearAside, itemOfStats, moveAside, putBack, type AsideContext } from './aside.js';
import { dropLocalCopy, DropStaleError } from './drop.js';
import { FROM_FILE, STATE_DIR, TRASHING } from '../local/state-dir.js';
import type { Clock, FileSystem, OsTrash, RandomId } from '../local/ports.js';
import type { Mirror } from '../trees/mirror.js';
import type { BaseTree } from '../trees/trees.js';
import { baseName, conflictedCopyName, joinPath, numberedName, parentOf, safeLocalName, type NameRules } from '../model/names.js';
import { toRemoteItem } from '../remote/entry.js';
import { isPlacedFolder, type LocalItem, type Operation, type RelPath, type RemoteId, type RemoteItem, type RuleId } from '../model/types.js';

export interface ExecutorPorts {
  client: DriveClient;
  /** Moves a local item, moved aside first, to the OS trash. */
  trash: OsTrash;
  clock: Clock;
  hostname: string;
  fs: FileSystem;
  randomId: RandomId;
  /**
   * What a local folder at `absolutePath` holds on disk now, as the scan would put it in the tree were the folder at
   * `path` (ignored names and symlinks left out): a folder is trashed only if nothing in it is new or changed since
   * the plan was made.
   */
  scanFolder?: (absolutePath: string, path: RelPath) => Promise<ReadonlyMap<RelPath, LocalItem>>;
  /** How the folder's volume names items: a conflicted copy of the drive's name gets its local name by them. */
  names: NameRules;
}

export interface TransferEvent {
  path: RelPath;
  direction: 'up' | 'down';
  transferred: number;
  total: number | undefined;
  /** Bytes per second since the transfer started (set by the engine). */
  rate?: number;
  /** Seconds left at that rate, when the total is known (set by the engine). */
  etaSeconds?: number;
}

export interface ExecutorEvents {
  transfer?(event: TransferEvent): void;
  done?(op: Operation, outcome: Outcome): void;
  failed?(op: Operation, error: unknown): void;
  /** Something the user should know (a changed link URL, a password-protected link not carried over). */
  notice?(message: string, path?: RelPath): void;
  /**
   * Both sides changed `path`: the local version now lives at `copy`. `twice`: the row (C5) by which this computer and
   * another saved the same file at once, each as a new entry on the drive; this computer's is the conflicted copy,
   * there and here.
   */
  conflict?(path: RelPath, copy: RelPath, twice?: RuleId): void;
}

export interface ExecuteResult {
  done: number;
  /** Of those, `record`s: base brought up to date with what both sides already agree on. */
  recorded: number;
  failed: Array<{ op: Operation; error: unknown }>;
  /** A 429 with Retry-After: the whole pass should pause this long. */
  rateLimitedMs?: number;
}

/** How far an operation's upload went: not begun, sent without an answer yet, or answered with its entry. */
type UploadTrace = { state: 'not-started' | 'sending' } | { state: 'answered'; entry: FileEntry; local: LocalItem };

const opLabel = (op: Operation): string => ('path' in op ? op.path : op.kind === 'move-local' ? op.from : `entry ${op.remoteId}`);

/**
 * Items an engine that stopped (or crashed) left moved aside on their way to the OS trash go back where they were, or
 * beside it under a free name when that place is taken: the next plan decides again. Nothing is lost.
 */
export async function putBackStaged(root: string, fs: FileSystem): Promise<void> {
  const dir = join(root, STATE_DIR, TRASHING);
  let staged: string[];
  try {
    staged = fs.readDir(dir);
  } catch {
    return;
  }
  for (const id of staged) {
    const staging = join(dir, id);
    const from = (await readFile(join(staging, FROM_FILE), 'utf8').catch(() => '')).trim();
    const names = fs.readDir(staging).filter((name) => name !== FROM_FILE);
    for (const name of names) {
      const path = from !== '' && baseName(from) === name ? from : name;
      let back = path;
      for (let n = 2; await fs.stat(join(root, ...back.split('/'))).then(() => true, () => false); n++) back = joinPath(parentOf(path), numberedName(name, n));
      await fs.mkdir(join(root, ...parentOf(back).split('/')), { recursive: true });
      await fs.rename(join(staging, name), join(root, ...back.split('/')));
    }
    await fs.rm(staging, { recursive: true, force: true });
  }
}

/** The disk or the listing moved on since the plan was made; the next pass plans again. */
export class StaleError extends Error {}

/** Another program holds the item open and the disk refuses to rename or delete it (Windows): tried again later. */
export class BusyError extends Error {
  readonly code = 'EBUSY';
}

/** The disk refuses to create this name or a path this long (Windows' name rules and MAX_PATH). */
export class RefusedPathError extends Error {}

/** The operation of one kind. */
type Op<K extends Operation['kind']> = Extract<Operation, { kind: K }>;

const errorCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | null)?.code;

export class Executor {
  private readonly queue: PQueue;

  constructor(
    private readonly root: string,
    private readonly rootId: RemoteId | null,
    private readonly trees: MutableTrees & { base: BaseTree },
    private readonly mirror: Mirror,
    private readonly ports: ExecutorPorts,
    private readonly events: ExecutorEvents = {},
    concurrency = 4,
  ) {
    this.queue = new PQueue({ concurrency });
  }

  private abs(path: RelPath): string {
    return path === '' ? this.root : join(this.root, ...path.split('/'));
  }

  private remoteParent(id: RemoteId | null): RemoteId | null {
    return id === null ? this.rootId : id;
  }

  private tmpPath(): string {
    return join(this.root, STATE_DIR, 'tmp', `${this.ports.randomId()}.part`);
  }

  /**
   * Runs the operations, `concurrency` at a time. A 429 pauses the whole queue for the service's Retry-After, then
   * it goes on; run() returns once the pause is over, so the caller may retry what was refused at once.
   */
  async run(operations: readonly Operation[], signal?: AbortSignal): Promise<ExecuteResult> {
    const result: ExecuteResult = { done: 0, recorded: 0, failed: [] };
    await this.ports.fs.mkdir(join(this.root, STATE_DIR, 'tmp'), { recursive: true });
    const clock = this.ports.clock;
    let resumeAt = 0;
    let cancelResume = () => undefined as void;
    const stop = () => {
      // Operations not started are dropped (each has its intent only once it starts); running ones finish.
      this.queue.clear();
      cancelResume();
      this.queue.start();
    };
    signal?.addEventListener('abort', stop, { once: true });
    this.queue.start();
    // A bounded window of queued operations: an initial sync of 100,000 files would otherwise hold 100,000 queued
    // closures and their promises at once.
    const window = Math.max(64, this.queue.concurrency * 16);
    for (const op of operations) {
      if (signal?.aborted) break;
      if (this.queue.size >= window) await this.queue.onSizeLessThan(window);
      void this.queue
        .add(async () => {
          if (signal?.aborted) return;
          try {
            await this.runOne(op, signal);
            result.done++;
            if (op.kind === 'record') result.recorded++;
          } catch (error) {
            if (error instanceof RateLimitedError && !this.queue.isPaused) {
              // One 429 pauses every transfer until the service's Retry-After has passed.
              const wait = error.retryAfterMs ?? 1000;
              result.rateLimitedMs = Math.max(result.rateLimitedMs ?? 0, wait);
              resumeAt = clock.now().getTime() + wait;
              this.queue.pause();
              cancelResume = clock.after(wait, () => this.queue.start());
            }
            result.failed.push({ op, error });
            this.events.failed?.(op, error);
          }
        })
        .catch(() => undefined);
    }
    await this.queue.onIdle();
    // The last operations may have met the 429: the pause still holds for what the caller sends next.
    const left = resumeAt - clock.now().getTime();
    if (left > 0 && !signal?.aborted) await new Promise<void>((resolve) => clock.after(left, resolve));
    cancelResume();
    signal?.removeEventListener('abort', stop);
    this.queue.clear();
    this.queue.start();
    return result;
  }

  private async runOne(op: Operation, signal?: AbortSignal): Promise<void> {
    const started = this.ports.clock.now().toISOString();
    const intent = this.mirror.beginIntent(op.kind, { ...op }, started);
    const trace: UploadTrace = { state: 'not-started' };
    let outcome: Outcome | Outcome[];
    try {
      outcome = await this.perform(op, signal, trace);
    } catch (error) {
      this.settleIntent(intent, op, trace, error);
      // A local path gone since the plan was made (moved on again, as while someone is still renaming): plan again.
      if (errorCode(error) === 'ENOENT') throw new StaleError(`${opLabel(op)} is no longer where it was`);
      if (errorCode(error) === 'EBUSY') throw new BusyError('another program has it open, so the disk will not move or delete it; it is tried again later');
      throw error;
    }
    const outcomes = Array.isArray(outcome) ? outcome : [outcome];
    commitOutcome(this.trees, this.mirror, intent, outcomes);
    this.events.done?.(op, outcomes.at(-1)!);
  }

  /**
   * What the journal keeps of a failed operation. An upload the drive answered is on the drive whatever failed after
   * it: its entry and the hash of the bytes sent are recorded, for adoption to take it as this computer's (the
   * drive's answer to this computer's own request names it). An upload sent without an answer (a dropped connection,
   * a timeout) may have taken effect: kept, and adopted only if the drive's bytes prove it. One that provably never
   * left (refused, no name, no route) and every other operation are cleared: planned afresh from the trees.
   */
  private settleIntent(intent: number, op: Operation, trace: UploadTrace, error: unknown): void {
    if ((op.kind === 'upload' || op.kind === 'replace-remote') && trace.state === 'answered') {
      this.mirror.updateIntent(intent, { ...op, uploaded: { entry: trace.entry, local: trace.local } });
      return;
    }
    const mayHaveLanded = (op.kind === 'upload' || op.kind === 'replace-remote') && trace.state === 'sending' && isTransient(error) && !neverSent(error);
    if (!mayHaveLanded) this.mirror.clearIntent(intent);
  }

  private async localItem(path: RelPath, withHash: boolean): Promise<LocalItem> {
    const item = itemOfStats(path, await this.ports.fs.stat(this.abs(path)));
    if (withHash && item.type === 'file') item.hash = await this.ports.fs.hash(this.abs(path));
    return item;
  }

  /**
   * Uploads a local file as a new entry: the new entry, and the local item as it was when the upload began, with
   * the hash of the bytes sent (one read, not two).
   */
  private async uploadFile(
    path: RelPath,
    name: string,
    parentId: RemoteId | null,
    trace: UploadTrace,
    signal?: AbortSignal,
    relativePath?: string,
  ): Promise<{ entry: FileEntry; local: LocalItem }> {
    const before = await this.localItem(path, false);
    const hashing = createHash('sha256');
    trace.state = 'sending';
    const entry = await this.ports.client.transfers.upload(this.ports.fs.storedPath?.(this.abs(path)) ?? this.abs(path), {
      name,
      parentId: this.remoteParent(parentId),
      ...(relativePath !== undefined ? { relativePath } : {}),
      signal,
      onProgress: (p) => this.events.transfer?.({ path, direction: 'up', ...p }),
      onData: (chunk) => hashing.update(chunk),
    });
    const local = { ...before, hash: hashing.digest('hex') };
    Object.assign(trace, { state: 'answered', entry, local });
    return { entry, local };
  }

  /**
   * The ids of the folders an upload's relativePath made, parents first: from the entry's `path` (the ids of the
   * folders above it, with its own id at the end in some versions), else by listing each folder's children.
   */
  private async foldersMade(entry: FileEntry, parentId: RemoteId | null, folders: ReadonlyArray<{ name: string }>, signal?: AbortSignal): Promise<RemoteId[]> {
    const chain = (entry.path ?? '').split('/').filter(Boolean).map(Number);
    if (chain.at(-1) === entry.id) chain.pop();
    const ids = chain.slice(-folders.length);
    if (ids.length === folders.length && ids.every(Number.isSafeInteger) && ids.at(-1) === entry.parent_id) return ids;
    const found: RemoteId[] = [];
    let parent = this.remoteParent(parentId);
    for (const folder of folders) {
      let id: RemoteId | undefined;
      const filter = parent === null ? {} : { parentIds: [parent] };
      for await (const e of this.ports.client.entries.list(filter, signal)) {
        if (e.type === 'folder' && e.name === folder.name && (e.parent_id ?? null) === parent) id = e.id;
      }
      if (id === undefined) throw new StaleError(`the folder ${folder.name} the upload made is not listed`);
      found.push(id);
      parent = id;
    }
    return found;
  }

  /** The local item still as the plan saw it; otherwise the operation is stale and waits for the next pass. */
  private async unchangedLocal(path: RelPath): Promise<LocalItem | null> {
    const seen = this.trees.local.get(path);
    let now: LocalItem;
    try {
      now = await this.localItem(path, false);
    } catch {
      return null;
    }
    if (changedSince(seen, now)) throw new StaleError(`${path} changed while it was being synced`);
    return now;
  }

  /**
   * Moves a local item to the OS trash only as the plan saw it. It is first moved aside into the folder's own
   * `.drivesync/trashing` (one rename: nothing reaches it by its path any more, so nothing saved from now on can go
   * with it), then looked at there: anything new or changed since the plan (a file saved a moment ago) puts it back
   * and makes the operation stale, and the next plan keeps what changed. It goes to the OS trash under its own name,
   * and the trash is told where it was, for its "Restore" to put it back there.
   */
  private async trashAsPlanned(path: RelPath, seen: LocalItem): Promise<void> {
    const aside = await moveAside(this.asideContext(), path);
    let changed: string | null = null;
    try {
      const now = itemOfStats(path, await this.ports.fs.stat(aside.at));
      if (changedSince(seen, now)) changed = `${path} changed while it was being trashed`;
      else if (now.type === 'folder' && this.ports.scanFolder) {
        for (const [childPath, child] of await this.ports.scanFolder(aside.at, path)) {
          if (childPath !== path && changedSince(this.trees.local.get(childPath), child)) {
            changed = `${childPath} appeared or changed in a folder about to be trashed`;
            break;
          }
        }
      }
    } catch (error) {
      changed = `${path} could not be looked at before it was trashed (${(error as Error).message.split('\n')[0]})`;
    }
    if (changed !== null) {
      await putBack(this.asideContext(), aside);
      throw new StaleError(changed);
    }
    await this.ports.trash(aside.at, { originalPath: this.abs(path) });
    await clearAside(this.asideContext(), aside);
  }

  private asideContext(): AsideContext {
    return { root: this.root, fs: this.ports.fs, randomId: this.ports.randomId };
  }

  /**
   * Everything below a remote folder is as the listing the plan used says: a folder's trash takes its whole subtree
   * along, and another computer may have put something new in it since (an edit beats a deletion at any speed). What
   * is new or changed goes into the remote tree, and the operation is stale: the next plan sees it.
   */
  private async unchangedRemoteFolder(id: RemoteId, signal?: AbortSignal): Promise<void> {
    const changed: RemoteItem[] = [];
    for await (const entry of this.ports.client.entries.tree({ rootId: id, perPage: 1000, ...(signal ? { signal } : {}) })) {
      if (entry.deleted_at) continue;
      const now = toRemoteItem(entry, this.rootId);
      const seen = this.trees.remote.get(now.id);
      const same =
        seen !== undefined && seen.parentId === now.parentId && seen.name === now.name && seen.type === now.type && seen.size === now.size;
      if (!same || (now.type === 'file' && seen.updatedAt !== '' && now.updatedAt !== seen.updatedAt)) changed.push(now);
    }
    if (changed.length === 0) return;
    for (const item of changed) this.trees.remote.set(item.id, item);
    throw new StaleError(`${changed.length} item${changed.length === 1 ? '' : 's'} changed on the drive inside a folder about to be trashed`);
  }

  private remoteOf(id: RemoteId): RemoteItem {
    const item = this.trees.remote.get(id);
    if (!item) throw new StaleError(`remote entry ${id} is no longer listed`);
    return item;
  }

  private async perform(op: Operation, signal: AbortSignal | undefined, trace: UploadTrace): Promise<Outcome | Outcome[]> {
    const { client } = this.ports;
    switch (op.kind) {
      case 'upload':
        return this.upload(op, trace, signal);
      case 'replace-remote':
        return this.replaceRemote(op, trace, signal);
      case 'create-remote-folder': {
        const local = await this.localItem(op.path, false);
        const folder = await client.entries.createFolder(op.name, this.remoteParent(op.parentId));
        return { kind: 'synced', remote: toRemoteItem(folder, this.rootId), local, madeHere: true };
      }
      // The local item is looked at before the request: once the drive has moved the entry, the move is recorded
      // even if the local item moved on meanwhile (the next pass sees that), or base would disagree with the drive.
      case 'rename-remote': {
        const local = await this.localItem(op.path, false);
        const entry = await client.entries.rename(op.remoteId, op.name);
        await this.followReplacement(op, entry);
        return { kind: 'remote-moved', remote: toRemoteItem(entry, this.rootId), local };
      }
      case 'move-remote':
        return this.moveRemote(op);
      case 'trash-remote':
        return this.trashRemote(op, signal);
      case 'download':
        return this.download(op, signal);
      case 'create-local-folder': {
        await this.placing(op.path, () => this.ports.fs.mkdir(this.abs(op.path)));
        return { kind: 'synced', remote: this.remoteOf(op.remoteId), local: await this.localItem(op.path, false) };
      }
      case 'move-local':
        return this.moveLocal(op);
      case 'trash-local': {
        const current = await this.unchangedLocal(op.path);
        if (current) await this.trashAsPlanned(op.path, this.trees.local.get(op.path) ?? current);
        return { kind: 'local-trashed', path: op.path, remoteId: op.remoteId };
      }
      case 'forget':
        return { kind: 'forgotten', remoteId: op.remoteId };
      case 'drop-local':
        return this.dropLocal(op);
      case 'record': {
        const remote = this.remoteOf(op.remoteId);
        return { kind: 'synced', remote, local: await this.localItem(op.path, true) };
      }
      case 'merge':
      case 'conflict':
        return this.resolveBothChanged(op, signal);
      case 'resolve-twin':
        return this.resolveTwin(op, signal);
    }
  }

  private async upload(op: Op<'upload'>, trace: UploadTrace, signal?: AbortSignal): Promise<Outcome | Outcome[]> {
    const folders = op.folders ?? [];
    const relativePath = folders.length > 0 ? [...folders.map((f) => f.name), op.name].join('/') : undefined;
    const folderItems = await Promise.all(folders.map((folder) => this.localItem(folder.path, false)));
    const { entry, local } = await this.uploadFile(op.path, op.name, op.parentId, trace, signal, relativePath);
    const file: Outcome = { kind: 'synced', remote: toRemoteItem(entry, this.rootId), local, madeHere: true };
    if (folders.length === 0) return file;
    // The folders the upload made on its way are synced with it, parents first.
    const ids = await this.foldersMade(entry, op.parentId, folders, signal);
    const made: Outcome[] = [];
    for (const [i, folder] of folders.entries()) {
      const remote: RemoteItem = { id: ids[i]!, parentId: i === 0 ? op.parentId : ids[i - 1]!, name: folder.name, type: 'folder', size: 0, updatedAt: '' };
      made.push({ kind: 'synced', remote, local: folderItems[i]! });
    }
    return [...made, file];
  }

  private async replaceRemote(op: Op<'replace-remote'>, trace: UploadTrace, signal?: AbortSignal): Promise<Outcome> {
    const { client } = this.ports;
    const old = this.remoteOf(op.remoteId);
    // Another computer may have renamed or moved the entry since it was listed: the new version goes where the entry
    // is now, and the base row keeps the place both sides last agreed on, so the next plan moves the file here too.
    const now = await locateEntry(client, op.remoteId, this.remoteParent(old.parentId), old.name);
    // (An entry shared with the account on its own sits in a folder of drivesync's making: its place is that one.)
    const place = now && !isPlacedFolder(old.parentId) ? toRemoteItem(now, this.rootId) : old;
    // What the old entry carries is read first, so that the new entry and the old one's trash follow each other at
    // once: another computer that lists the drive between them sees two entries of one name.
    const carried = await carriedBy(client, op.remoteId, now);
    const uploaded = await this.uploadFile(op.path, place.name, place.parentId, trace, signal);
    await client.entries.trash([op.remoteId]);
    const entry = isPlacedFolder(old.parentId) ? uploaded.entry : await this.whereTrashed(op.remoteId, place, uploaded.entry);
    await carryOver(client, carried, entry, op.path, (message) => this.events.notice?.(message, op.path));
    const remote = toRemoteItem(entry, this.rootId);
    const moved = remote.parentId !== old.parentId || remote.name !== old.name;
    const agreed = moved ? { agreedPlace: { parentId: old.parentId, remoteName: old.name } } : {};
    return { kind: 'synced', remote, local: uploaded.local, replaces: op.remoteId, madeHere: true, ...agreed };
  }

  /**
   * Another computer may rename or move the old entry between the look before the upload and its trash: the new
   * version then goes where the old one was when it was trashed (the trash's first page says), so that rename is not
   * lost. One made after the trash reaches a trashed entry, and that computer follows the new version
   * (`followReplacement`). A place outside the synced folder is not followed.
   */
  private async whereTrashed(oldId: RemoteId, place: RemoteItem, entry: FileEntry): Promise<FileEntry> {
    const { client } = this.ports;
    const trashed = await client.entries.page({ deletedOnly: true, perPage: 5 }, 1).catch(() => null);
    const last = trashed?.entries.find((e) => e.id === oldId);
    if (!last) return entry;
    const there = toRemoteItem(last, this.rootId);
    let placed = entry;
    // The new version is on the drive and the old one trashed: a move or rename that fails here leaves it where it
    // was put (the outcome is kept either way), and the next look at the drive shows both sides where it is.
    try {
      if (there.parentId !== place.parentId && (there.parentId === null || this.trees.remote.get(there.parentId)?.type === 'folder')) {
        const [answer] = await client.entries.move([entry.id], this.remoteParent(there.parentId));
        placed = answer ?? { ...placed, parent_id: this.remoteParent(there.parentId) };
      }
      if (there.name !== place.name) placed = await client.entries.rename(entry.id, there.name);
    } catch {
      // Kept where it is.
    }
    return placed;
  }

  private async moveRemote(op: Op<'move-remote'>): Promise<Outcome> {
    const { client } = this.ports;
    const local = await this.localItem(op.path, false);
    const current = this.remoteOf(op.remoteId);
    const [moved] = await client.entries.move([op.remoteId], this.remoteParent(op.parentId));
    // Without the entry in the answer its new updated_at is unknown (a move changes it): '' until the next listing.
    let item: RemoteItem = moved ? toRemoteItem(moved, this.rootId) : { ...current, parentId: op.parentId, updatedAt: '' };
    let answer = moved;
    if (item.name !== op.name) item = toRemoteItem((answer = await client.entries.rename(op.remoteId, op.name)), this.rootId);
    if (answer) await this.followReplacement(op, answer);
    // Deployed versions may answer an empty `entries`; the parent is what we asked for.
    item = { ...item, parentId: op.parentId };
    return { kind: 'remote-moved', remote: item, local };
  }

  /**
   * A rename or move that reached an entry another computer had just trashed, most often because it saved a new
   * version of the file (a new entry under the old name, the old one trashed): the same rename or move is made to
   * that new version, so neither change is lost (the next look at the drive brings the new version here, to the
   * new place). Where no answer says the entry is in the trash (deployed versions answer a move without the entries
   * moved), nothing is known, and nothing is done.
   */
  private async followReplacement(op: Op<'rename-remote'> | Op<'move-remote'>, answer: FileEntry): Promise<void> {
    const before = this.trees.remote.get(op.remoteId);
    if (!answer.deleted_at || before?.type !== 'file') return;
    const { client } = this.ports;
    const replacement = await findByName(client, this.remoteParent(before.parentId), before.name, op.remoteId);
    if (!replacement) return;
    if (op.kind === 'move-remote') await client.entries.move([replacement.id], this.remoteParent(op.parentId));
    if (replacement.name !== op.name) await client.entries.rename(replacement.id, op.name);
  }

  private async trashRemote(op: Op<'trash-remote'>, signal?: AbortSignal): Promise<Outcome> {
    if (this.trees.remote.get(op.remoteId)?.type === 'folder') await this.unchangedRemoteFolder(op.remoteId, signal);
    try {
      await this.ports.client.entries.trash([op.remoteId]);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
    const b = this.trees.base.get(op.remoteId);
    if (b) this.mirror.recordTrashed({ remoteId: op.remoteId, path: b.path, type: b.type, at: this.ports.clock.now().toISOString() });
    return { kind: 'remote-trashed', remoteId: op.remoteId };
  }

  private async download(op: Op<'download'>, signal?: AbortSignal): Promise<Outcome> {
    const remote = this.remoteOf(op.remoteId);
    const expected = this.trees.base.get(op.replaces ?? op.remoteId);
    const seen = this.trees.local.get(op.path);
    const local = await this.fetchInto(remote, op.path, signal, (current) => {
      // C2 replaces a file only while it is the synced version as the plan saw it (same item, size and time);
      // N1/D4 only fill an empty place.
      if (!current) return true;
      return !!expected && expected.path === op.path && !changedSince(seen, current);
    });
    return { kind: 'synced', remote, local, ...(op.replaces !== undefined ? { replaces: op.replaces } : {}) };
  }

  private async moveLocal(op: Op<'move-local'>): Promise<Outcome> {
    const from = await this.unchangedLocal(op.from);
    // On a volume that folds case, a rename that changes only case finds the item itself at its new name.
    const there = await this.ports.fs.stat(this.abs(op.to)).catch(() => null);
    if (there && !(from && sameItem({ inode: there.ino, ...birthField(birthTimeOf(there)) }, from))) throw new StaleError(`${op.to} already exists`);
    await this.placing(op.to, () => this.ports.fs.rename(this.abs(op.from), this.abs(op.to)), this.abs(op.from));
    return { kind: 'local-moved', from: op.from, to: op.to, remote: this.remoteOf(op.remoteId) };
  }

  private dropLocal(op: Op<'drop-local'>): Promise<Outcome> {
    return dropLocalCopy(
      {
        ...this.asideContext(),
        base: this.trees.base.values(),
        local: this.trees.local,
        abs: (p) => this.abs(p),
        ...(this.ports.scanFolder ? { scanFolder: this.ports.scanFolder } : {}),
        trash: this.ports.trash,
      },
      op,
    ).catch((error: unknown) => {
      throw error instanceof DropStaleError ? new StaleError(error.message) : error;
    });
  }

  /**
   * This computer's entry has an older twin of the same name on the drive (C5). The same bytes: the twin is the file,
   * and this computer's entry goes to the drive's trash. Other bytes: this computer's entry is the conflicted copy,
   * renamed on the drive and here, so every client of the drive sees one file and one conflicted copy.
   */
  private async resolveTwin(op: Extract<Operation, { kind: 'resolve-twin' }>, signal?: AbortSignal): Promise<Outcome | Outcome[]> {
    const ours = this.remoteOf(op.remoteId);
    const twin = this.remoteOf(op.twinId);
    const here = await this.unchangedLocal(op.path);
    if (!here) throw new StaleError(`${op.path} is no longer where it was`);
    const synced = this.trees.base.get(op.remoteId);
    const hash = synced?.hash ?? (await this.ports.fs.hash(this.abs(op.path)));
    if (twin.size === ours.size && !this.trees.base.has(op.twinId)) {
      const tmp = this.tmpPath();
      try {
        await this.ports.client.transfers.download({ id: twin.id, url: null }, tmp, { signal, expectedSize: twin.size });
        if ((await this.ports.fs.hash(tmp)) === hash) {
          await this.ports.client.entries.trash([ours.id]);
          return { kind: 'synced', remote: twin, local: { ...here, hash }, replaces: ours.id };
        }
      } finally {
        await this.ports.fs.rm(tmp, { force: true });
      }
    }
    const when = Date.parse(ours.updatedAt);
    const name = conflictedCopyName(ours.name, Number.isNaN(when) ? this.ports.clock.now() : new Date(when), this.ports.hostname);
    const renamed = toRemoteItem(await this.ports.client.entries.rename(ours.id, name), this.rootId);
    const moved: Outcome = { kind: 'remote-moved', remote: { ...renamed, parentId: ours.parentId }, local: { ...here, hash } };
    const local = safeLocalName(name, this.ports.names);
    let target = joinPath(parentOf(op.path), local);
    for (let n = 2; await this.exists(target); n++) target = joinPath(parentOf(op.path), numberedName(local, n));
    await this.placing(target, () => this.ports.fs.rename(this.abs(op.path), this.abs(target)), this.abs(op.path));
    this.events.conflict?.(op.path, target, op.rule);
    return [moved, { kind: 'local-moved', from: op.path, to: target, remote: { ...renamed, parentId: ours.parentId } }];
  }

  /**
   * Makes something at `path`. A disk that refuses the name or the path's length says ENOENT (Windows), which would
   * read as something moved on: when the folder it goes into is there, it is the name, and the item fails plainly.
   */
  private async placing(path: RelPath, make: () => Promise<unknown>, source?: string): Promise<void> {
    try {
      await make();
    } catch (error) {
      const code = errorCode(error);
      const refused = code === 'ENOENT' || code === 'EINVAL' || code === 'ENAMETOOLONG';
      const sourceThere = source === undefined || (await this.ports.fs.stat(source).then(() => true, () => false));
      if (refused && sourceThere && (await this.exists(parentOf(path)))) {
        const length = this.abs(path).length;
        throw new RefusedPathError(`this disk does not accept its name or a path of its length (${length} characters), so it is not synced here; rename it on the drive or move it up`);
      }
      throw error;
    }
  }

  private async exists(path: RelPath): Promise<boolean> {
    return this.ports.fs.stat(this.abs(path)).then(
      () => true,
      () => false,
    );
  }

  /**
   * Downloads into a temp file under `.drivesync/tmp`, checks its size, sets its mtime, and renames it into place
   * only if `mayReplace` still holds for what is at the destination.
   */
  private async fetchInto(
    remote: RemoteItem,
    path: RelPath,
    signal: AbortSignal | undefined,
    mayReplace: (current: LocalItem | null) => boolean,
  ): Promise<LocalItem> {
    const tmp = this.tmpPath();
    try {
      await this.ports.client.transfers.download({ id: remote.id, url: null }, tmp, {
        signal,
        expectedSize: remote.size,
        onProgress: (p) => this.events.transfer?.({ path, direction: 'down', ...p }),
      });
      const when = Date.parse(remote.updatedAt);
      if (!Number.isNaN(when)) await this.ports.fs.utimes(tmp, new Date(when), new Date(when));
      const hash = await this.ports.fs.hash(tmp);
      const current = await this.localItem(path, false).catch(() => null);
      if (!mayReplace(current)) throw new StaleError(`${path} changed while it was being downloaded`);
      await this.placing(path, () => this.ports.fs.rename(tmp, this.abs(path)), tmp);
      return { ...(await this.localItem(path, false)), hash };
    } finally {
      await this.ports.fs.rm(tmp, { force: true });
    }
  }

  /** Both sides hold something at one path (C3, N4, N5): keep both unless the content is the same. */
  private async resolveBothChanged(op: Extract<Operation, { kind: 'merge' | 'conflict' }>, signal?: AbortSignal): Promise<Outcome> {
    const remote = this.remoteOf(op.remoteId);
    const here = await this.localItem(op.path, true);
    // A conflict with a replacement entry also retires the synced row of the entry it replaced.
    const replaces = op.kind === 'conflict' && op.replaces !== undefined ? { replaces: op.replaces } : {};
    if (remote.type === 'folder' || here.type === 'folder') {
      const copy = await this.moveAside(op.path);
      if (remote.type === 'folder') {
        await this.ports.fs.mkdir(this.abs(op.path));
        return { kind: 'conflicted', copy, movedFrom: op.path, remote, local: await this.localItem(op.path, false), ...replaces };
      }
      const local = await this.fetchInto(remote, op.path, signal, (current) => current === null);
      return { kind: 'conflicted', copy, movedFrom: op.path, remote, local, ...replaces };
    }
    const tmp = this.tmpPath();
    try {
      await this.ports.client.transfers.download({ id: remote.id, url: null }, tmp, { signal, expectedSize: remote.size });
      const theirs = await this.ports.fs.hash(tmp);
      if (theirs === here.hash) return { kind: 'synced', remote, local: here, ...replaces }; // same content: not a conflict
      const now = await this.localItem(op.path, false);
      if (now.size !== here.size || now.mtimeMs !== here.mtimeMs) throw new StaleError(`${op.path} changed during the check`);
      const copy = await this.moveAside(op.path);
      const when = Date.parse(remote.updatedAt);
      if (!Number.isNaN(when)) await this.ports.fs.utimes(tmp, new Date(when), new Date(when));
      await this.ports.fs.rename(tmp, this.abs(op.path));
      const local = { ...(await this.localItem(op.path, false)), hash: theirs };
      this.events.conflict?.(op.path, copy.path);
      return { kind: 'conflicted', copy, movedFrom: op.path, remote, local, ...replaces };
    } finally {
      await this.ports.fs.rm(tmp, { force: true });
    }
  }

  /** Renames the local item at `path` to its conflicted-copy name (numbered if that is taken too). */
  private async moveAside(path: RelPath): Promise<LocalItem> {
    const name = conflictedCopyName(baseName(path), this.ports.clock.now(), this.ports.hostname);
    let target = joinPath(parentOf(path), name);
    for (let n = 2; await this.exists(target); n++) target = joinPath(parentOf(path), numberedName(name, n));
    await this.ports.fs.rename(this.abs(path), this.abs(target));
    return { ...(await this.localItem(target, true)) };
  }
}
