/**
 * One pass over a synced folder: scan → list → adopt → plan → guard → execute, until a plan is empty. A pass is given
 * its request (merged by the folder loop, with the watcher's paths and the user's answers), the folder's options and
 * its ports, and returns what it did and what the engine keeps for the next one (inputs.ts). `FolderPasses` keeps
 * what one pass leaves the next: the trees, what the scans found (local-stage.ts), what others share
 * (shared-stage.ts), the guard's memory (guard.ts).
 */
import { isTransient, ApiError } from '../../../api/errors.js';
import { humanBytes } from '../../../api/units.js';
import { adoptLostUploads } from '../../execute/adopt.js';
import { changesHere } from '../../trees/changes-here.js';
import { StaleError } from '../../execute/executor.js';
import { checkFolderIdentity } from '../../local/folder-identity.js';
import { DEFAULT_HOLD, uploadMayBeMoved, type DisappearanceHold } from '../hold.js';
import type { Mirror } from '../../trees/mirror.js';
import { randomId, type Clock, type FileSystem } from '../../local/ports.js';
import { applyRemoteDelta, listRemote } from '../../remote/listing.js';
import { FULL_LISTING_SHARE, fullListingInterval, listingBudget, syncedIdsOf, type RemoteChangeCheck, type RemoteDelta, type RemoteSignals } from '../../remote/changes.js';
import { changeScope, deltaScope, scopedTrees, type PlanScope } from '../../plan/scope.js';
import { newTopFolders, NO_SELECTION, planSelected, quietPlan, type SelectedPlan, type Selection } from '../../plan/selective.js';
import { rowsOfAccess } from '../../remote/shared.js';
import { BaseTree, LocalTree, RemoteTree, RemoteView } from '../../trees/trees.js';
import type { Operation, RemoteId, RemoteItem, SyncedIds } from '../../model/types.js';
import type { EngineState } from '../../model/states.js';
import { isUnreachable, opPath, passExecutor, PassFailures, type PassTelling } from './execute-stage.js';
import { DeletionGuard } from './guard.js';
import type { DeletionAnswers, FolderTrees, PassHost, PassInput, PassOptions, PassResult } from './inputs.js';
import { LocalStage, SYMLINK } from './local-stage.js';
import { SharedStage } from './shared-stage.js';
import { emptySummary, itemsNotSynced, describeError, type ItemError, type PassSummary, type SharedWithMe } from './summary.js';
import { ToldOnce } from './told.js';

/**
 * Items new here planned at a time when they are most of what differs (an initial sync): a slice's operations and
 * planning, not a million's, are held at once (scope.ts).
 */
const PLAN_SLICE = 50_000;

/** Nothing of the drive is left out here, now or as folders are made: base can hold all of it. */
const wholeInBase = (selection: Selection) => selection.excluded.size === 0 && selection.newFolders !== 'exclude';

/** A pass whose every operation failed because the server was out of reach. */
class OfflineError extends Error {}

/** Free space a download leaves at least (a full disk fails every program, not only this one). */
const SPACE_RESERVE = 64 * 1024 * 1024;
const MIRROR_SYNCED_ONCE = 'synced-once';
const IGNORED = 'left out by the ignore rules (temp files and .syncignore)';

/** Operations that write the drive's bytes to this disk. */
const needsSpace = (op: Operation): op is Extract<Operation, { kind: 'download' | 'conflict' | 'merge' }> =>
  op.kind === 'download' || op.kind === 'conflict' || op.kind === 'merge';

/** What the listing stage found: whether it listed (and the signals read before), or applied a delta. */
interface Listed {
  signals: RemoteSignals | null;
  listed: boolean;
  listingMs: number | null;
  applied: boolean;
  touched: Set<RemoteId>;
}

/** What one pass carries from stage to stage. */
interface PassRun {
  input: PassInput;
  summary: PassSummary;
  /** The pass's copy of the user's answers, as the guard uses them. */
  answers: DeletionAnswers;
  /** The guard weighed deletions this pass (the count asked about is the pass's to say). */
  guarded: boolean;
  fullListingDue?: number;
  ended?: Date;
  checkDrive?: true;
  retryInMs?: number;
}

export class FolderPasses {
  private readonly root: string;
  readonly trees: FolderTrees;
  /**
   * After a pass that left everything in sync, the local and remote trees equal base and are not kept (base holds
   * them); the next pass builds them from base first thing. True from the start too: the first scan keeps what it
   * cannot read as base has it.
   */
  private localAsBase = true;
  private remoteAsBase = false;
  private remoteListed = false;
  /**
   * This engine started trusting base as the drive (a warm start, `trustBase`): its first pass looks at the drive
   * cheaply, with the folders' level, instead of listing it, and lists it only when the look cannot tell what changed.
   */
  private warm = false;
  /** The last pass ended with everything in sync and nothing listed that base does not hold: a warm start may be kept. */
  private warmReady = false;
  /** A pass has reached its end since the engine started (deletions found before then were made while it did not run). */
  private started = false;
  /** Passes in a row that found an item locked by another program. */
  private busyRetries = 0;
  /** What this computer leaves out of the folder, as read at the start of the pass. */
  private selection: Selection = NO_SELECTION;
  /** Remote entries base does not hold (inside excluded folders), kept while the remote tree is kept as base. */
  private keptRemote: RemoteItem[] = [];
  /**
   * What this pass plans in: a remote delta's scope, or `changes`: what differs from base, found again for each plan
   * (the plan's own moves here change which paths those are); null: the whole trees.
   */
  private scope: PlanScope | 'changes' | null = null;
  /** Synced items the last plan looked at, when it was cut to a scope. */
  private scopedSize: number | null = null;
  /** The last plan held a slice of what is new here (scope.ts), not all of it. */
  private sliced = false;
  /** The last pass left downloads out because they do not fit on the disk: what it said. */
  private spaceProblem: string | null = null;
  /** Base's counts when it was let go (they hold until a pass reads it back). */
  private released: { size: number; rootChildren: number } | null = null;
  private readonly told: ToldOnce;
  private readonly local: LocalStage;
  readonly shared: SharedStage;
  private readonly guard: DeletionGuard;

  constructor(
    private readonly options: PassOptions,
    private readonly clock: Clock,
    private readonly fs: FileSystem,
    private readonly mirror: Mirror,
    /** Synced items gone from where the watcher looked, waiting to be found elsewhere before they count as deleted. */
    private readonly hold: DisappearanceHold,
    /** Tells from three small requests whether the drive changed (main/sync/remote-changes.ts). */
    private readonly remoteCheck: RemoteChangeCheck,
    private readonly host: PassHost,
  ) {
    this.root = options.root;
    this.trees = { base: mirror.loadBase(), local: new LocalTree(), remote: new RemoteTree() };
    this.told = new ToldOnce(host);
    this.local = new LocalStage(this.root, fs, clock, this.trees, this.told, options.caseInsensitive);
    this.shared = new SharedStage(this.root, options, fs, this.trees, host, clock);
    this.guard = new DeletionGuard(mirror, options.client, options.maxDeletions);
  }

  /**
   * One pass, as the request asks: the whole folder or the watcher's paths, a fresh listing or the last one. What
   * fails from the scan on is told by the summary and the state the pass leaves, not thrown.
   */
  async run(input: PassInput): Promise<PassResult> {
    const run: PassRun = { input, summary: emptySummary(), answers: { ...input.answers }, guarded: false };
    this.warmReady = false;
    for (const path of input.paths ?? []) this.local.named.add(path);
    if (this.host.halt !== null) return this.result(run);
    // The folder is the one synced here, or nothing is done: a folder gone or replaced is not everything deleted.
    if (await this.folderProblem(run.summary)) return this.result(run);
    if (input.live && this.host.watcher.pending() === null) await this.host.watcher.start();
    await this.untilWatcherReported();
    try {
      this.setState('scanning');
      const failed = await this.stages(run);
      this.finish(run, failed);
    } catch (error) {
      const offline = isUnreachable(error) || error instanceof OfflineError;
      const message = describeError(error);
      if (offline) {
        run.summary.offline = true;
        run.summary.waitingUp = changesHere(this.trees.base, this.trees.local);
      } else run.summary.failed.push({ path: '', message });
      this.setState(offline ? 'offline' : 'error', message);
    }
    if (this.scopedSize !== null) run.summary.scoped = this.scopedSize;
    this.scope = this.scopedSize = null;
    return this.result(run);
  }

  private setState(state: EngineState, detail?: string): void {
    this.host.tell({ kind: 'state', state, detail });
  }

  private result(run: PassRun): PassResult {
    return {
      summary: run.summary,
      answers: run.answers,
      guarded: run.guarded,
      ...(run.fullListingDue !== undefined ? { fullListingDue: run.fullListingDue } : {}),
      ...(this.local.fullScanMs !== undefined ? { fullScanMs: this.local.fullScanMs } : {}),
      ...(run.ended ? { ended: run.ended } : {}),
      ...(run.checkDrive ? { checkDrive: true as const } : {}),
      ...(run.retryInMs !== undefined ? { retryInMs: run.retryInMs } : {}),
      ...(this.warmReady ? { warm: true as const } : {}),
    };
  }

  /** The synced folder is gone or replaced (folder-identity.ts): told, and nothing else is done. */
  private async folderProblem(summary: PassSummary): Promise<boolean> {
    const problem = await checkFolderIdentity(this.root, this.fs, this.mirror, this.syncedCount);
    if (!problem) return false;
    // Its watcher died with it: when the folder is back, it is watched afresh and scanned in full.
    await this.host.watcher.stop();
    this.local.forget();
    this.hold.clear();
    this.localAsBase = true;
    this.setState('error', problem.message);
    summary.failed.push({ path: '', message: problem.message });
    summary.folder = problem.kind;
    return true;
  }

  /** Scan, list, adopt, then plan and execute; returns what failed and the last plan when nothing changed after it. */
  private async stages(run: PassRun): Promise<{ failures: ItemError[]; unreadable: ItemError[]; last: SelectedPlan | null }> {
    const { input, summary } = run;
    // Left in sync by the last pass, with nothing changed here since: a delta from the drive is planned in its scope.
    const quietBefore = this.localAsBase && this.remoteAsBase && this.keptRemote.length === 0 && !input.fullScan && this.local.named.size === 0;
    this.scope = null;
    this.restoreTrees();
    await this.local.prepare();
    let unreadable = await this.local.scan(input.fullScan);
    const listed = await this.listStage(input);
    const settled = await this.settleLocal();
    if (settled) unreadable = settled;
    let adopted = false;
    const adoption = {
      root: this.root,
      trees: this.trees,
      mirror: this.mirror,
      client: this.options.client,
      fs: this.fs,
      rootId: this.options.remoteRootId ?? null,
      signal: this.host.signal,
    };
    for (const path of await adoptLostUploads(adoption)) {
      this.host.tell({ kind: 'activity', activity: { kind: 'record', path, rule: 'adopt' } });
      adopted = true;
    }
    this.selection = this.selectionForPass();
    if (!adopted && unreadable.length === 0 && this.scopeAllowed()) {
      // A delta to a folder in sync names what it touched; otherwise one walk over the trees finds what differs.
      const quiet = listed.applied && quietBefore && !settled;
      this.scope = quiet ? deltaScope(this.trees.base, this.trees.remote, listed.touched) : 'changes';
    }
    this.setState('syncing');
    const { failures, last } = await this.planAndExecute(run);
    // A consent given during this pass (when it asked) is for the next one.
    if (input.answers.consent) run.answers.consent = false;
    this.host.tell({ kind: 'transfers-ended' });
    for (const error of failures) this.host.tell({ kind: 'item-error', error });
    await this.afterExecute(run, listed);
    return { failures, unreadable, last };
  }

  /** The remote tree: listed afresh, or the last listing with a cheap check's delta applied; the shared area placed. */
  private async listStage(input: PassInput): Promise<Listed> {
    const out: Listed = { signals: null, listed: false, listingMs: null, applied: false, touched: new Set() };
    const warm = this.warm && !input.listRemote;
    this.warm = false;
    if (warm) {
      const look = await this.remoteCheck.look(this.synced(), this.clock.now().getTime(), this.host.pollMs, this.host.signal, true).catch(() => null);
      if (look && look.news.kind !== 'listing') {
        if (look.news.kind === 'delta') await this.applyDelta(look.news.delta, out);
        this.shared.put(input.sharedArea ?? (await this.shared.list()));
        out.applied = true;
        return out;
      }
      out.signals = look?.signals ?? null;
    }
    if (warm || input.listRemote || !this.remoteListed) {
      const base = this.trees.base;
      // The cheap signals are read first: what they show must be in the listing that follows.
      out.signals ??= input.live ? await this.remoteCheck.read(this.host.signal).catch(() => null) : null;
      const started = this.clock.now().getTime();
      this.replaceRemote(await listRemote(this.options.client, this.options.remoteRootId ?? null, (id) => base.has(id), this.host.signal, base));
      // The listing holds none of the shared part: the one placed before goes (its ids are others' entries).
      this.shared.put(input.sharedArea ?? (await this.shared.list()));
      this.remoteListed = out.listed = true;
      out.listingMs = this.clock.now().getTime() - started;
      if (out.signals) this.remoteCheck.calibrate(out.signals, this.shared.ownRemote());
      this.remoteCheck.foldersListed(this.clock.now().getTime(), this.host.pollMs);
      return out;
    }
    if (input.remoteDelta) await this.applyDelta(input.remoteDelta, out);
    if (input.sharedArea) this.shared.put(input.sharedArea);
    return out;
  }

  private async applyDelta(delta: RemoteDelta, out: Listed): Promise<void> {
    await applyRemoteDelta(this.options.client, this.trees.remote, delta, this.options.remoteRootId ?? null, this.host.signal, out.touched);
    out.applied = true;
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
   * What changed while the folder was scanned and the drive listed is looked at too, so the plan does not mix the
   * folder as it was with the folder as it is (one end of a swap seen, the other not). Returns what cannot be read
   * when it scanned again, null when it did not.
   */
  private async settleLocal(): Promise<ItemError[] | null> {
    let unreadable: ItemError[] | null = null;
    this.takeLocalChanges();
    for (let round = 0; round < 5 && this.host.watcher.pending() !== null && this.watcherBusy(); round++) {
      await this.untilWatcherReported();
      if (this.local.named.size > 0) unreadable = await this.local.scan(false);
    }
    return unreadable;
  }

  /** After the operations: the cheap checks settled, view-only copies kept so, the next full listing spaced. */
  private async afterExecute(run: PassRun, listed: Listed): Promise<void> {
    const { input, summary } = run;
    if (listed.listed || listed.applied) this.remoteCheck.settle(this.shared.ownRemote(), this.synced());
    // Only when something could have changed the copies: a download, a new permission (the area placed anew).
    if (summary.done > 0 || listed.listed || this.shared.viewOnlyDue) await this.shared.keepViewOnly();
    if (listed.listingMs !== null) {
      // Spaced by the drive as this pass left it: an initial sync lists an empty drive, then fills it.
      const entries = this.trees.remote.size;
      run.fullListingDue = this.clock.now().getTime() + fullListingInterval({
        pollMs: this.host.pollMs,
        lastListingMs: listed.listingMs,
        entries,
        // A share of what the cheap checks leave: the listings of the folders' level have the rest.
        ...(this.remoteCheck.bytesPerCheck > 0 ? { bytesPerMinute: listingBudget(this.remoteCheck.bytesPerCheck, this.host.pollMs) * FULL_LISTING_SHARE } : {}),
      });
    }
    // What this pass sent is checked at once (others may have changed something meanwhile): cheap, as it knows
    // what it sent.
    if (input.live && summary.done > 0 && this.remoteCheck.usable) run.checkDrive = true;
  }

  /** The summary's last words and the state the pass leaves; the trees kept as base when nothing differs from it. */
  private finish(run: PassRun, { failures, unreadable, last }: { failures: ItemError[]; unreadable: ItemError[]; last: SelectedPlan | null }): void {
    const { summary } = run;
    // The loop's last plan still holds when nothing ran after it (at 100,000 items a plan takes most of a second).
    const latest = last ?? this.planNow();
    const final = latest.quiet ? null : latest;
    // Items the service refuses (folder names and renames outside 3–200 characters) are not synced until the user
    // renames them: the pass has not brought the folder in sync. They were reported when first planned.
    const refused = (final?.skipped ?? []).filter((skip) => skip.fails).map((skip) => ({ path: skip.path, message: skip.reason }));
    summary.ignored = this.local.ignored.count;
    summary.skipped = [
      ...[...this.local.symlinks].map((path) => ({ path, message: SYMLINK })),
      ...this.local.ignored.paths.map((path) => ({ path, message: IGNORED })),
      ...(final?.skipped ?? []).filter((skip) => !skip.fails).map((skip) => ({ path: skip.path, message: skip.reason })),
    ];
    const { operations: left, held } = final
      ? this.hold.filter(final.operations, this.clock.now().getTime(), this.mayBeMoved())
      : { operations: [], held: new Set() };
    summary.waiting = held.size;
    summary.failed = [...failures, ...refused, ...unreadable];
    summary.inSync = !summary.needsConfirmation && left.length === 0 && !this.hold.holding && summary.failed.length === 0;
    if (latest.quiet) this.keepAsBase();
    this.warmReady = this.remoteListed && summary.inSync && latest.quiet && this.keptRemote.length === 0 && this.scopeAllowed();
    if (summary.inSync && this.mirror.getMeta(MIRROR_SYNCED_ONCE) === undefined) this.mirror.setMeta(MIRROR_SYNCED_ONCE, this.clock.now().toISOString());
    run.ended = this.clock.now();
    this.started = true;
    this.endState(summary, held.size);
  }

  /** Nothing differs from base: base alone is kept until the next pass needs the other two (and the entries inside excluded folders, which base does not hold). */
  private keepAsBase(): void {
    this.keptRemote = [];
    const remote = this.trees.remote;
    // An entry read through base is base's: only those held apart can be missing from it.
    for (const r of remote instanceof RemoteView ? remote.apartValues() : remote.values()) if (!this.trees.base.has(r.id)) this.keptRemote.push(r);
    this.trees.local = new LocalTree();
    this.replaceRemote(new RemoteTree());
    this.localAsBase = this.remoteAsBase = true;
  }

  /** A new remote tree for the pass; one that read through base stops following it. */
  private replaceRemote(tree: Map<RemoteId, RemoteItem>): void {
    if (this.trees.remote instanceof RemoteView) this.trees.remote.detach();
    this.trees.remote = tree;
  }

  private endState(summary: PassSummary, held: number): void {
    if (summary.needsConfirmation) {
      // The state says so already (waiting for consent).
    } else if (this.host.halt === 'paused') this.setState('paused');
    else if (this.spaceProblem) this.setState('error', this.spaceProblem);
    else if (summary.failed.length > 0) {
      // An item that fails is the item's problem: the folder goes on syncing everything else, and says how many
      // are left out (each item's error is reported on its own). The error state is for the folder as a whole.
      this.setState('idle', itemsNotSynced(summary.failed.length));
    } else if (held > 0) this.setState('syncing', `looking for where ${held} item${held === 1 ? '' : 's'} went`);
    else this.setState('idle');
  }

  /**
   * Brings back the local and remote trees that were kept as base while everything was in sync. Always, first
   * thing in a pass: a scan or listing that follows replaces them, and one that fails halfway leaves these, never
   * an empty tree that would read as everything deleted.
   */
  private restoreTrees(): void {
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

  /**
   * Where a remote delta is planned in its scope: not with folders left out or shared with the account (their rows
   * look across the whole tree), nor while a deletion here waits to be settled.
   */
  private scopeAllowed(): boolean {
    return wholeInBase(this.selection) && !this.shared.inPlay && !this.hold.holding;
  }

  /** The plan for the trees as they are now (none when nothing differs from base in what is synced). */
  private planNow(whole = false): SelectedPlan {
    // A remote delta to a folder in sync: only what it touched can need an operation (scope.ts).
    const names = this.local.names;
    const options = { isIgnored: this.local.isIgnored, ...names };
    const scope = this.scope === 'changes' ? changeScope(this.trees, { ...names, ...(whole ? {} : { slice: PLAN_SLICE }) }) : this.scope;
    this.sliced = scope !== null && scope !== 'in-sync' && 'slice' in scope;
    let trees = scope === null || scope === 'in-sync' ? this.trees : scopedTrees(this.trees, scope);
    let selected = scope === 'in-sync' ? quietPlan() : planSelected(trees, this.selection, options);
    // A slice with nothing to do (what it holds is left out) is not the end: the whole trees say what is.
    if (this.sliced && selected.operations.length === 0) {
      this.sliced = false;
      trees = this.trees;
      selected = planSelected(trees, this.selection, options);
    }
    this.scopedSize = scope === 'in-sync' ? 0 : trees !== this.trees ? trees.base.size : null;
    const place = this.shared.place();
    return place || this.shared.inPlay ? rowsOfAccess(selected, this.trees, this.shared.area, place ?? { folder: '', me: undefined }) : selected;
  }

  /**
   * The selection for this pass, as the front end keeps it; a folder set to leave new top-level folders out excludes
   * those made elsewhere since its first sync, and says so once.
   */
  private selectionForPass(): Selection {
    const selection = this.options.selection?.() ?? NO_SELECTION;
    if (selection.newFolders !== 'exclude' || this.mirror.getMeta(MIRROR_SYNCED_ONCE) === undefined) return selection;
    const fresh = newTopFolders(this.trees, selection);
    if (fresh.length === 0) return selection;
    this.options.excludeNewFolders?.(fresh.map((r) => r.id));
    for (const r of fresh) {
      this.host.tell({ kind: 'notice', message: `${r.name} is a new folder on the drive; this folder leaves new folders out, so it is not synced here (drivesync include to sync it)` });
    }
    return { ...selection, excluded: new Set([...selection.excluded, ...fresh.map((r) => r.id)]) };
  }

  /**
   * Plan → guard → execute, until a plan is empty; returns the operations that failed, and the last plan when
   * nothing changed the trees after it.
   */
  private async planAndExecute(run: PassRun): Promise<{ failures: ItemError[]; last: SelectedPlan | null }> {
    const telling: PassTelling = { labels: new WeakMap(), keptAsCopy: new Set() };
    const executor = passExecutor(
      {
        root: this.root,
        options: this.options,
        trees: this.trees,
        mirror: this.mirror,
        clock: this.clock,
        fs: this.fs,
        randomId: this.options.randomId ?? randomId,
        scanFolder: (absolutePath, path) => this.local.scanFolder(absolutePath, path),
        names: this.local.names,
        host: this.host,
      },
      telling,
    );
    const maxIterations = this.options.maxIterations ?? 200;
    const failures = new PassFailures();
    let last: SelectedPlan | null = null;
    /** What is shared with the account was listed again this pass, after the drive refused a change to it. */
    let sharedLookedAgain = false;
    this.spaceProblem = null;
    for (let iteration = 0; iteration < maxIterations; iteration++) {
      if (this.host.halt !== null) break;
      const step = await this.nextStep(telling, failures);
      last = step.plan;
      if (step.operations.length === 0) break;
      run.guarded = true;
      const verdict = await this.guard.check(
        { operations: step.operations, plan: step.plan, heldDeletions: step.heldDeletions, trees: this.trees, excluded: this.selection.excluded, firstPass: !this.started, now: this.clock.now().getTime() },
        run.answers,
        this.host,
      );
      if (verdict === 'kept') {
        last = null;
        continue;
      }
      if (verdict === 'asked') {
        run.summary.needsConfirmation = true;
        break;
      }
      // Only an operation that names no path needs base's (an initial sync's million uploads keep no label each).
      for (const op of step.operations) if (!('path' in op) && op.kind !== 'move-local') telling.labels.set(op, opPath(op, this.trees.base));
      const outcome = await executor.run(step.operations, this.host.signal);
      last = null;
      run.summary.done += outcome.done - outcome.recorded;
      const refusedInShared = failures.sort(outcome, telling.labels, this.host.signal, sharedLookedAgain ? null : (op, error) => this.shared.refused(op, error));
      if (refusedInShared.length > 0) {
        sharedLookedAgain = true;
        if (await this.lookAgainAtShared()) continue;
        for (const { op, error } of refusedInShared) failures.add(op, telling.labels.get(op), error);
      }
      if (outcome.done === 0 && outcome.failed.every((f) => !(f.error instanceof StaleError))) {
        // Passing faults are tried again at once, a few times; a deadline that passed is not (it already cost its
        // full time, and the next pass tries again).
        const retryNow = (error: unknown) => isTransient(error) && !(error instanceof ApiError && error.kind === 'timeout');
        if (outcome.failed.length > 0 && outcome.failed.every((f) => retryNow(f.error)) && iteration < 3) continue;
        break;
      }
      if (outcome.failed.some((f) => f.error instanceof StaleError)) {
        // The disk moved on: what the rescan finds may be anywhere.
        this.scope = null;
        await this.local.scan(true);
      }
    }
    this.retryLockedItems(failures.busy, run);
    // Nothing went through and every failure was the server out of reach: the folder is offline, its items did not
    // fail; they are tried again when the server answers.
    if (failures.allUnreachable(run.summary.done)) {
      run.summary.offline = true;
      throw new OfflineError([...failures.items.values()][0]!.message);
    }
    return { failures: [...failures.items.values()], last };
  }

  /**
   * The drive refused a change to what others share with the account: the owner may have stopped sharing it, or taken
   * the edit permission back. What is shared is listed again and placed (the plan is made anew, rather than a failure
   * reported); false when the listing failed.
   */
  private async lookAgainAtShared(): Promise<boolean> {
    const area = await this.shared.list().catch(() => null);
    if (!area) return false;
    this.scope = null;
    this.shared.put(area);
    return true;
  }

  /**
   * The next step's plan, and its operations ready to go: what acts on a local disappearance waits until the folder
   * has settled (it may be a move whose other end is not reported yet); what already failed this pass waits for the
   * next; downloads that would not fit are left out (the rest goes on, and the next pass looks again).
   */
  private async nextStep(telling: PassTelling, failures: PassFailures): Promise<{ plan: SelectedPlan; operations: Operation[]; heldDeletions: number }> {
    let plan = this.planNow();
    let { operations: ready, heldDeletions } = this.hold.filter(plan.operations, this.clock.now().getTime(), this.mayBeMoved());
    let operations = ready.filter((op) => !failures.has(op));
    // A slice whose every operation waits or failed already: the rest of what is new here goes ahead.
    if (operations.length === 0 && this.sliced) {
      plan = this.planNow(true);
      ({ operations: ready, heldDeletions } = this.hold.filter(plan.operations, this.clock.now().getTime(), this.mayBeMoved()));
      operations = ready.filter((op) => !failures.has(op));
    }
    for (const skip of plan.skipped) this.told.skipped(skip.path, skip.reason, !skip.fails);
    for (const note of plan.notes) {
      this.told.notice(`${note.path}: ${note.message}`);
      if (note.keptAsCopy) telling.keptAsCopy.add(note.path);
    }
    const space = await this.spaceFor(operations);
    if (space) {
      operations = operations.filter((op) => !needsSpace(op));
      failures.items.set('space', { path: '', message: space });
      this.spaceProblem = space;
    }
    return { plan, operations, heldDeletions };
  }

  /** Items another program locked are tried again on their own, less often while they stay locked (each try that fails is reported again). */
  private retryLockedItems(busy: boolean, run: PassRun): void {
    if (busy && run.input.live) run.retryInMs = Math.min((this.options.busyRetryMs ?? 10_000) * 2 ** this.busyRetries++, 5 * 60_000);
    else if (!busy) this.busyRetries = 0;
  }

  /**
   * A pass plans from a local tree the watcher has finished reporting: a file still settling inside a folder the
   * other side deleted must be seen before the folder is trashed, as a full scan would see it. A path that never
   * settles (a file written on and on) holds a pass back by the hold's settle time at most.
   */
  private async untilWatcherReported(): Promise<void> {
    await this.host.watcher.untilQuiet((this.options.hold ?? DEFAULT_HOLD).settleMs);
    this.takeLocalChanges();
  }

  /** The paths the watcher named while this pass ran are this pass's to look at. */
  private takeLocalChanges(): void {
    for (const path of this.host.watcher.takeLocalChanges()) this.local.named.add(path);
  }

  /**
   * Whether the downloads among these operations fit on the disk (with a reserve left free); when they do not, what
   * to tell the user: how much is needed and how much is free.
   */
  private async spaceFor(operations: readonly Operation[]): Promise<string | null> {
    let needed = 0;
    for (const op of operations) if (needsSpace(op)) needed += this.trees.remote.get(op.remoteId)?.size ?? 0;
    if (needed === 0) return null;
    const free = await this.fs.freeBytes?.(this.root);
    if (free === undefined || needed + SPACE_RESERVE <= free) return null;
    return `not enough free space: ${humanBytes(needed)} to download, ${humanBytes(free)} free on this disk; free some space, or leave folders out (drivesync exclude)`;
  }

  /** Uploads that may be the other end of a move not seen whole yet (hold.ts). */
  private mayBeMoved(): (op: Operation) => boolean {
    return uploadMayBeMoved(this.trees.base.values(), this.trees.local);
  }

  /** The watcher has paths settling, or named paths no scan has looked at yet. */
  watcherBusy(): boolean {
    return (this.host.watcher.pending() ?? 0) > 0 || this.local.named.size > 0;
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

