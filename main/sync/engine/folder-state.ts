/**
 * What one synced folder keeps from one pass to the next, owned by its engine and lent to each pass (pass/pass.ts):
 * the three trees, whether the local and remote trees are kept as base (everything was in sync), what the scans and
 * the shared area found, the guard's memory. A pass reads and changes it; nothing of a pass's own outlives the pass.
 */
import { syncedIdsOf, type RemoteChangeCheck } from '../remote/changes.js';
import { NO_SELECTION, type Selection } from '../plan/selective.js';
import type { Mirror } from '../trees/mirror.js';
import { BaseTree, LocalTree, RemoteTree, RemoteView } from '../trees/trees.js';
import type { Clock, FileSystem } from '../local/ports.js';
import type { RemoteId, RemoteItem, SyncedIds } from '../model/types.js';
import type { DisappearanceHold } from './hold.js';
import { DeletionGuard } from './pass/guard.js';
import type { FolderTrees, PassOptions, PassPorts } from './pass/inputs.js';
import { LocalStage } from './pass/local-stage.js';
import { SharedStage } from './pass/shared-stage.js';
import type { SharedWithMe } from './pass/summary.js';
import { ToldOnce } from './pass/told.js';

/** Nothing of the drive is left out here, now or as folders are made: base can hold all of it. */
export const wholeInBase = (selection: Selection) => selection.excluded.size === 0 && selection.newFolders !== 'exclude';

export class FolderState {
  readonly trees: FolderTrees;
  /**
   * After a pass that left everything in sync, the local and remote trees equal base and are not kept (base holds
   * them); the next pass builds them from base first thing. True from the start too: the first scan keeps what it
   * cannot read as base has it.
   */
  localAsBase = true;
  remoteAsBase = false;
  remoteListed = false;
  /**
   * This engine started trusting base as the drive (a warm start, `trustBase`): its first pass looks at the drive
   * cheaply, with the folders' level, instead of listing it, and lists it only when the look cannot tell what changed.
   */
  warm = false;
  /** A pass has reached its end since the engine started (deletions found before then were made while it did not run). */
  started = false;
  /** Passes in a row that found an item locked by another program. */
  busyRetries = 0;
  /** Remote entries base does not hold (inside excluded folders), kept while the remote tree is kept as base. */
  keptRemote: RemoteItem[] = [];
  /** Base's counts when it was let go (they hold until a pass reads it back). */
  private released: { size: number; rootChildren: number } | null = null;
  readonly told: ToldOnce;
  readonly local: LocalStage;
  readonly shared: SharedStage;
  readonly guard: DeletionGuard;

  constructor(
    readonly options: PassOptions,
    readonly clock: Clock,
    readonly fs: FileSystem,
    readonly mirror: Mirror,
    /** Synced items gone from where the watcher looked, waiting to be found elsewhere before they count as deleted. */
    readonly hold: DisappearanceHold,
    /** Tells from three small requests whether the drive changed (remote/changes.ts). */
    readonly remoteCheck: RemoteChangeCheck,
    ports: Pick<PassPorts, 'tell' | 'signal' | 'pollMs'>,
  ) {
    this.trees = { base: mirror.loadBase(), local: new LocalTree(), remote: new RemoteTree() };
    this.told = new ToldOnce(ports);
    this.local = new LocalStage(options.root, fs, clock, this.trees, this.told, options.caseInsensitive);
    this.shared = new SharedStage(options.root, options, fs, this.trees, ports, clock);
    this.guard = new DeletionGuard(mirror, options.client, options.maxDeletions);
  }

  /**
   * A restart of a folder that was in sync when it stopped (what the engine kept then still holds): its first pass
   * takes base as the drive and looks at the drive cheaply instead of listing all of it, so the folder is watched and
   * in sync in the time of a scan; the full listing, the safety net, comes when it is due. Not while anything is
   * left out or shared with the account (their trees are not all in base), nor with an operation's outcome unknown.
   */
  trustBase(): boolean {
    if (this.remoteListed || this.trees.base.size === 0 || this.mirror.intents().length > 0) return false;
    if (!wholeInBase(this.options.selection?.() ?? NO_SELECTION) || this.shared.inPlay) return false;
    this.remoteAsBase = this.remoteListed = this.warm = true;
    return true;
  }

  /**
   * Brings back the local and remote trees that were kept as base while everything was in sync. Always, first
   * thing in a pass: a scan or listing that follows replaces them, and one that fails halfway leaves these, never
   * an empty tree that would read as everything deleted.
   */
  restoreTrees(): void {
    if (this.released) {
      this.trees.base = this.mirror.loadBase();
      this.released = null;
    }
    if (this.localAsBase) this.trees.local = LocalTree.fromBase(this.trees.base);
    if (this.remoteAsBase) {
      this.replaceRemote(RemoteView.ofBase(this.trees.base));
      for (const r of this.keptRemote) this.trees.remote.set(r.id, r);
      this.keptRemote = [];
    }
    this.localAsBase = this.remoteAsBase = false;
  }

  /** Nothing differs from base: base alone is kept until the next pass needs the other two (and the entries inside excluded folders, which base does not hold). */
  keepAsBase(): void {
    this.keptRemote = [];
    const remote = this.trees.remote;
    // An entry read through base is base's: only those held apart can be missing from it.
    for (const r of remote instanceof RemoteView ? remote.apartValues() : remote.values()) if (!this.trees.base.has(r.id)) this.keptRemote.push(r);
    this.trees.local = new LocalTree();
    this.replaceRemote(new RemoteTree());
    this.localAsBase = this.remoteAsBase = true;
  }

  /** A new remote tree for the pass; one that read through base stops following it. */
  replaceRemote(tree: Map<RemoteId, RemoteItem>): void {
    if (this.trees.remote instanceof RemoteView) this.trees.remote.detach();
    this.trees.remote = tree;
  }

  /** Base was let go while the folder was idle (releaseBase); the next pass reads it back from the mirror. */
  get baseReleased(): boolean {
    return this.released !== null;
  }

  /** What is synced of the account's own drive (what the cheap checks compare with): base, or the mirror while base is let go. */
  synced(): SyncedIds {
    return this.shared.own(this.released ? this.mirror.syncedIds(this.released) : syncedIdsOf(this.trees.base));
  }

  get syncedCount(): number {
    return this.released ? this.released.size : this.trees.base.size;
  }

  get sharedWithMe(): SharedWithMe | null {
    return this.shared.withMe;
  }

  /**
   * Lets base go while nothing happens: at 100,000 items it is ~20 MB of an idle engine's ~140, and reading it back
   * from the mirror takes a fraction of a second when the next pass starts. Only between passes (the folder loop's
   * `release` request), and only when the other two trees are kept as base (everything was in sync). True when it let
   * base go now.
   */
  releaseBase(): boolean {
    if (this.released || !this.localAsBase || !this.remoteAsBase) return false;
    const base = syncedIdsOf(this.trees.base);
    this.released = { size: base.size, rootChildren: base.rootChildren() };
    this.trees.base = new BaseTree();
    return true;
  }
}
