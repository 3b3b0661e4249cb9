/**
 * One pass over a synced folder: scan → list → adopt → plan → guard → execute, until a plan is empty. A pass is a
 * function of the folder's state as its engine lends it (folder-state.ts), the request the loop merged (with the
 * watcher's paths and the user's answers as they stood when it began) and its ports; it returns what it did, how it
 * ended and what it asks for next (inputs.ts). It keeps nothing of its own once it returns, never calls back into the
 * engine and never starts or stops the watcher: the engine reads the result and decides its state and timers.
 */
import { isTransient, ApiError } from '../../../api/errors.js';
import { humanBytes } from '../../../api/units.js';
import { adoptLostUploads } from '../../execute/adopt.js';
import { StaleError } from '../../execute/executor.js';
import { checkFolderIdentity } from '../../local/folder-identity.js';
import { randomId } from '../../local/ports.js';
import { planPass } from '../../plan/pass-plan.js';
import { deltaScope, type PlanScope } from '../../plan/scope.js';
import { newTopFolders, NO_SELECTION, type SelectedPlan, type Selection } from '../../plan/selective.js';
import { applyRemoteDelta, listRemote } from '../../remote/listing.js';
import { FULL_LISTING_SHARE, fullListingInterval, listingBudget, type RemoteDelta, type RemoteSignals } from '../../remote/changes.js';
import { changesHere } from '../../trees/changes-here.js';
import type { BaseItem, Operation, RelPath, RemoteId } from '../../model/types.js';
import { DEFAULT_HOLD, uploadMayBeMoved } from '../hold.js';
import { wholeInBase, type FolderState } from '../folder-state.js';
import { isUnreachable, opPath, passExecutor, PassFailures, type PassTelling } from './execute-stage.js';
import type { DeletionAnswers, PassEnd, PassInput, PassPorts, PassResult } from './inputs.js';
import { SYMLINK } from './local-stage.js';
import { isWithin } from '../../model/names.js';
import { emptySummary, describeError, type ItemError, type PassSummary } from './summary.js';

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

/** What one pass carries from stage to stage, and gives back. */
interface PassRun {
  input: PassInput;
  summary: PassSummary;
  /** The pass's copy of the user's answers, as the guard uses them. */
  answers: DeletionAnswers;
  /** The guard weighed deletions this pass (the count asked about is the pass's to say). */
  guarded: boolean;
  /** The guard stopped at deletions and asks about them (with the question, when it is new). */
  asked?: Extract<PassEnd, { kind: 'asked' }>;
  end?: PassEnd;
  fullListingDue?: number;
  ended?: Date;
  checkDrive?: true;
  retryInMs?: number;
}

/** One pass over the folder, as the request asks: the whole folder or the watcher's paths, a fresh listing or the last one. */
export function runPass(folder: FolderState, input: PassInput, ports: PassPorts): Promise<PassResult> {
  return new Pass(folder, input, ports).run();
}

/** A pass under way: what it holds lives as long as the pass. */
class Pass {
  private readonly pass: PassRun;
  /**
   * What this pass plans in: a remote delta's scope, or `changes`: what differs from base, found again for each plan
   * (the plan's own moves here change which paths those are); null: the whole trees.
   */
  private scope: PlanScope | 'changes' | null = null;
  /** Synced items the last plan looked at, when it was cut to a scope. */
  private scopedSize: number | null = null;
  /** The last plan held a slice of what is new here (scope.ts), not all of it. */
  private sliced = false;
  /** Downloads left out because they do not fit on the disk: what the pass says of it. */
  private spaceProblem: string | null = null;
  /** What this computer leaves out of the folder, as read at the start of the pass. */
  private selection: Selection = NO_SELECTION;
  /** The pass ended with everything in sync and nothing listed that base does not hold: a warm start may be kept. */
  private warmReady = false;

  constructor(
    private readonly folder: FolderState,
    input: PassInput,
    private readonly ports: PassPorts,
  ) {
    this.pass = { input, summary: emptySummary(), answers: { ...input.answers }, guarded: false };
  }

  private get root(): string {
    return this.folder.options.root;
  }

  /** What fails from the scan on is told by the summary and how the pass ended, not thrown. */
  async run(): Promise<PassResult> {
    const run = this.pass;
    for (const path of run.input.paths ?? []) this.folder.local.named.add(path);
    if (this.ports.halted() !== null) return this.result({ kind: 'halted' });
    // The folder is the one synced here, or nothing is done: a folder gone or replaced is not everything deleted.
    const problem = await this.folderProblem();
    if (problem) return this.result(problem);
    await this.untilWatcherReported();
    try {
      this.ports.tell({ kind: 'phase', phase: 'scanning' });
      const failed = await this.stages(run);
      this.finish(run, failed);
    } catch (error) {
      const offline = isUnreachable(error) || error instanceof OfflineError;
      const detail = describeError(error);
      if (offline) {
        run.summary.offline = true;
        run.summary.waitingUp = changesHere(this.folder.trees.base, this.folder.trees.local);
      } else run.summary.failed.push({ path: '', message: detail });
      run.end = { kind: offline ? 'offline' : 'failed', detail };
    }
    if (this.scopedSize !== null) run.summary.scoped = this.scopedSize;
    return this.result(run.asked ?? run.end ?? { kind: 'halted' });
  }

  private result(end: PassEnd): PassResult {
    const run = this.pass;
    return {
      summary: run.summary,
      end,
      answers: run.answers,
      guarded: run.guarded,
      ...(run.fullListingDue !== undefined ? { fullListingDue: run.fullListingDue } : {}),
      ...(this.folder.local.fullScanMs !== undefined ? { fullScanMs: this.folder.local.fullScanMs } : {}),
      ...(this.folder.local.conflictCopies !== undefined ? { conflictCopies: this.folder.local.conflictCopies } : {}),
      ...(run.ended ? { ended: run.ended } : {}),
      ...(run.checkDrive ? { checkDrive: true as const } : {}),
      ...(run.retryInMs !== undefined ? { retryInMs: run.retryInMs } : {}),
      ...(this.warmReady ? { warm: true as const } : {}),
    };
  }

  /** The synced folder is gone or replaced (folder-identity.ts): told, and nothing else is done. */
  private async folderProblem(): Promise<PassEnd | null> {
    const { folder } = this;
    const problem = await checkFolderIdentity(this.root, folder.fs, folder.mirror, folder.syncedCount);
    if (!problem) return null;
    // When the folder is back, it is scanned in full (the engine watches it afresh).
    folder.local.forget();
    folder.hold.clear();
    folder.localAsBase = true;
    this.pass.summary.failed.push({ path: '', message: problem.message });
    this.pass.summary.folder = problem.kind;
    return { kind: 'folder-problem', problem };
  }

  /** Scan, list, adopt, then plan and execute; returns what failed and the last plan when nothing changed after it. */
  private async stages(run: PassRun): Promise<{ failures: ItemError[]; unreadable: ItemError[]; last: SelectedPlan | null }> {
    const { input, summary } = run;
    // Left in sync by the last pass, with nothing changed here since: a delta from the drive is planned in its scope.
    const quietBefore = this.folder.localAsBase && this.folder.remoteAsBase && this.folder.keptRemote.length === 0 && !input.fullScan && this.folder.local.named.size === 0;
    this.scope = null;
    this.folder.restoreTrees();
    await this.folder.local.prepare();
    let unreadable = await this.folder.local.scan(input.fullScan);
    const listed = await this.listStage(input);
    const settled = await this.settleLocal();
    if (settled) unreadable = settled;
    let adopted = false;
    const adoption = {
      root: this.root,
      trees: this.folder.trees,
      mirror: this.folder.mirror,
      client: this.folder.options.client,
      fs: this.folder.fs,
      rootId: this.folder.options.remoteRootId ?? null,
      signal: this.ports.signal,
    };
    for (const path of await adoptLostUploads(adoption)) {
      this.ports.tell({ kind: 'activity', activity: { kind: 'record', path, rule: 'adopt' } });
      adopted = true;
    }
    this.selection = this.selectionForPass();
    if (!adopted && unreadable.length === 0 && this.scopeAllowed()) {
      // A delta to a folder in sync names what it touched; otherwise one walk over the trees finds what differs.
      const quiet = listed.applied && quietBefore && !settled;
      this.scope = quiet ? deltaScope(this.folder.trees.base, this.folder.trees.remote, listed.touched) : 'changes';
    }
    this.ports.tell({ kind: 'phase', phase: 'syncing' });
    const { failures, last } = await this.planAndExecute(run);
    // A consent given during this pass (when it asked) is for the next one.
    if (input.answers.consent) run.answers.consent = false;
    this.ports.tell({ kind: 'transfers-ended' });
    for (const error of failures) this.ports.tell({ kind: 'item-error', error });
    await this.afterExecute(run, listed);
    return { failures, unreadable, last };
  }

  /** The remote tree: listed afresh, or the last listing with a cheap check's delta applied; the shared area placed. */
  private async listStage(input: PassInput): Promise<Listed> {
    const out: Listed = { signals: null, listed: false, listingMs: null, applied: false, touched: new Set() };
    const warm = this.folder.warm && !input.listRemote;
    this.folder.warm = false;
    if (warm) {
      const look = await this.folder.remoteCheck.look(this.folder.synced(), this.folder.clock.now().getTime(), this.ports.pollMs, this.ports.signal, true).catch(() => null);
      if (look && look.news.kind !== 'listing') {
        if (look.news.kind === 'delta') await this.applyDelta(look.news.delta, out);
        this.folder.shared.put(input.sharedArea ?? (await this.folder.shared.list()));
        out.applied = true;
        return out;
      }
      out.signals = look?.signals ?? null;
    }
    if (warm || input.listRemote || !this.folder.remoteListed) {
      const base = this.folder.trees.base;
      // The cheap signals are read first: what they show must be in the listing that follows.
      out.signals ??= input.live ? await this.folder.remoteCheck.read(this.ports.signal).catch(() => null) : null;
      const started = this.folder.clock.now().getTime();
      this.folder.replaceRemote(await listRemote(this.folder.options.client, this.folder.options.remoteRootId ?? null, (id) => base.has(id), this.ports.signal, base));
      // The listing holds none of the shared part: the one placed before goes (its ids are others' entries).
      this.folder.shared.put(input.sharedArea ?? (await this.folder.shared.list()));
      this.folder.remoteListed = out.listed = true;
      out.listingMs = this.folder.clock.now().getTime() - started;
      if (out.signals) this.folder.remoteCheck.calibrate(out.signals, this.folder.shared.ownRemote());
      this.folder.remoteCheck.foldersListed(this.folder.clock.now().getTime(), this.ports.pollMs);
      return out;
    }
    if (input.remoteDelta) await this.applyDelta(input.remoteDelta, out);
    if (input.sharedArea) this.folder.shared.put(input.sharedArea);
    return out;
  }

  private async applyDelta(delta: RemoteDelta, out: Listed): Promise<void> {
    await applyRemoteDelta(this.folder.options.client, this.folder.trees.remote, delta, this.folder.options.remoteRootId ?? null, this.ports.signal, out.touched);
    out.applied = true;
  }

  /**
   * What changed while the folder was scanned and the drive listed is looked at too, so the plan does not mix the
   * folder as it was with the folder as it is (one end of a swap seen, the other not). Returns what cannot be read
   * when it scanned again, null when it did not.
   */
  private async settleLocal(): Promise<ItemError[] | null> {
    let unreadable: ItemError[] | null = null;
    this.takeLocalChanges();
    for (let round = 0; round < 5 && this.ports.watcher.pending() !== null && this.watcherBusy(); round++) {
      await this.untilWatcherReported();
      if (this.folder.local.named.size > 0) unreadable = await this.folder.local.scan(false);
    }
    return unreadable;
  }

  /** After the operations: the cheap checks settled, view-only copies kept so, the next full listing spaced. */
  private async afterExecute(run: PassRun, listed: Listed): Promise<void> {
    const { input, summary } = run;
    if (listed.listed || listed.applied) this.folder.remoteCheck.settle(this.folder.shared.ownRemote(), this.folder.synced());
    // Only when something could have changed the copies: a download, a new permission (the area placed anew).
    if (summary.done > 0 || listed.listed || this.folder.shared.viewOnlyDue) await this.folder.shared.keepViewOnly();
    if (listed.listingMs !== null) {
      // Spaced by the drive as this pass left it: an initial sync lists an empty drive, then fills it.
      const entries = this.folder.trees.remote.size;
      run.fullListingDue = this.folder.clock.now().getTime() + fullListingInterval({
        pollMs: this.ports.pollMs,
        lastListingMs: listed.listingMs,
        entries,
        // A share of what the cheap checks leave: the listings of the folders' level have the rest.
        ...(this.folder.remoteCheck.bytesPerCheck > 0 ? { bytesPerMinute: listingBudget(this.folder.remoteCheck.bytesPerCheck, this.ports.pollMs) * FULL_LISTING_SHARE } : {}),
      });
    }
    // What this pass sent is checked at once (others may have changed something meanwhile): cheap, as it knows
    // what it sent.
    if (input.live && summary.done > 0 && this.folder.remoteCheck.usable) run.checkDrive = true;
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
    summary.ignored = this.folder.local.ignored.count;
    summary.skipped = [
      ...[...this.folder.local.symlinks].map((path) => ({ path, message: SYMLINK })),
      ...this.folder.local.ignored.paths.map((path) => ({ path, message: IGNORED })),
      ...(final?.skipped ?? []).filter((skip) => !skip.fails).map((skip) => ({ path: skip.path, message: skip.reason })),
    ];
    const { operations: left, held } = final
      ? this.folder.hold.filter(final.operations, this.folder.clock.now().getTime(), this.mayBeMoved())
      : { operations: [], held: new Set() };
    summary.waiting = held.size;
    summary.failed = [...failures, ...refused, ...unreadable];
    summary.inSync = !summary.needsConfirmation && left.length === 0 && !this.folder.hold.holding && summary.failed.length === 0;
    if (latest.quiet) this.folder.keepAsBase();
    this.warmReady = this.folder.remoteListed && summary.inSync && latest.quiet && this.folder.keptRemote.length === 0 && this.scopeAllowed();
    if (summary.inSync && this.folder.mirror.getMeta(MIRROR_SYNCED_ONCE) === undefined) this.folder.mirror.setMeta(MIRROR_SYNCED_ONCE, this.folder.clock.now().toISOString());
    run.ended = this.folder.clock.now();
    this.folder.started = true;
    run.end = { kind: 'done', spaceProblem: this.spaceProblem, held: held.size };
  }

  /**
   * Where a remote delta is planned in its scope: not with folders left out or shared with the account (their rows
   * look across the whole tree), nor while a deletion here waits to be settled.
   */
  private scopeAllowed(): boolean {
    return wholeInBase(this.selection) && !this.folder.shared.inPlay && !this.folder.hold.holding;
  }

  /** The plan for the trees as they are now (none when nothing differs from base in what is synced). */
  private planNow(whole = false): SelectedPlan {
    const shared = { area: this.folder.shared.area, place: this.folder.shared.place(), inPlay: this.folder.shared.inPlay };
    const local = this.folder.local;
    const planned = planPass({ trees: this.folder.trees, scope: this.scope, selection: this.selection, shared, names: local.names, isIgnored: local.isIgnored, whole });
    this.sliced = planned.sliced;
    this.scopedSize = planned.scopedSize;
    return planned.plan;
  }

  /**
   * The selection for this pass, as the front end keeps it; a folder set to leave new top-level folders out excludes
   * those made elsewhere since its first sync, and says so once.
   */
  private selectionForPass(): Selection {
    const selection = this.folder.options.selection?.() ?? NO_SELECTION;
    if (selection.newFolders !== 'exclude' || this.folder.mirror.getMeta(MIRROR_SYNCED_ONCE) === undefined) return selection;
    const fresh = newTopFolders(this.folder.trees, selection);
    if (fresh.length === 0) return selection;
    this.folder.options.excludeNewFolders?.(fresh.map((r) => r.id));
    for (const r of fresh) {
      this.ports.tell({ kind: 'notice', message: `${r.name} is a new folder on the drive; this folder leaves new folders out, so it is not synced here (drivesync include to sync it)` });
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
        options: this.folder.options,
        trees: this.folder.trees,
        mirror: this.folder.mirror,
        clock: this.folder.clock,
        fs: this.folder.fs,
        randomId: this.folder.options.randomId ?? randomId,
        scanFolder: (absolutePath, path) => this.folder.local.scanFolder(absolutePath, path),
        names: this.folder.local.names,
        host: this.ports,
      },
      telling,
    );
    const maxIterations = this.folder.options.maxIterations ?? 200;
    const failures = new PassFailures();
    let last: SelectedPlan | null = null;
    /** What is shared with the account was listed again this pass, after the drive refused a change to it. */
    let sharedLookedAgain = false;
    this.spaceProblem = null;
    for (let iteration = 0; iteration < maxIterations; iteration++) {
      if (this.ports.halted() !== null) break;
      const step = await this.nextStep(telling, failures);
      last = step.plan;
      // Planned, held or about to be done: what the file manager shows as syncing until it is done.
      if (step.plan.operations.length > 0) this.ports.tell({ kind: 'planned', paths: step.plan.operations.flatMap((op) => plannedPaths(op, this.folder.trees.base)) });
      const guarded = await this.guardStep(step, run);
      if (guarded === 'planned-again') {
        last = null;
        continue;
      }
      if (guarded === 'nothing-to-do') break;
      // Only an operation that names no path needs base's (an initial sync's million uploads keep no label each).
      for (const op of step.operations) if (!('path' in op) && op.kind !== 'move-local') telling.labels.set(op, opPath(op, this.folder.trees.base));
      const outcome = await executor.run(step.operations, this.ports.signal);
      last = null;
      run.summary.done += outcome.done - outcome.recorded;
      const refusedInShared = failures.sort(outcome, telling.labels, this.ports.signal, sharedLookedAgain ? null : (op, error) => this.folder.shared.refused(op, error));
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
        await this.folder.local.scan(true);
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
   * The mass-delete guard's word on one step: its operations go ahead (those that wait for an answer taken out),
   * the deletions were undone as the user asked and the step is planned again, or nothing is left to do.
   */
  private async guardStep(step: { plan: SelectedPlan; operations: Operation[]; heldDeletions: number }, run: PassRun): Promise<'go' | 'planned-again' | 'nothing-to-do'> {
    if (step.operations.length === 0) {
      // Deletions asked about, held back by the disappearance hold this step: the question still stands.
      if (step.heldDeletions > 0 && run.answers.askedFor !== null) {
        run.summary.needsConfirmation = true;
        run.asked ??= { kind: 'asked', count: run.answers.askedFor };
      }
      return 'nothing-to-do';
    }
    run.guarded = true;
    const verdict = await this.folder.guard.check(
      { operations: step.operations, plan: step.plan, heldDeletions: step.heldDeletions, trees: this.folder.trees, excluded: this.selection.excluded, firstPass: !this.folder.started, now: this.folder.clock.now().getTime() },
      run.answers,
      this.ports,
    );
    if (verdict.kind !== 'asked') {
      // What was asked about earlier this pass went, or went through: nothing waits for an answer.
      run.asked = undefined;
      run.summary.needsConfirmation = false;
      return verdict.kind === 'kept' ? 'planned-again' : 'go';
    }
    run.summary.needsConfirmation = true;
    // The question is kept as first asked this pass; a later step asks anew only when the count changed.
    if (!run.asked || verdict.question) run.asked = verdict;
    // A question never stops a sync: the deletions wait for the answer, and everything else goes on.
    step.operations = withoutHeldDeletions(step.operations, this.folder.trees.base);
    return step.operations.length === 0 ? 'nothing-to-do' : 'go';
  }

  /**
   * The drive refused a change to what others share with the account: the owner may have stopped sharing it, or taken
   * the edit permission back. What is shared is listed again and placed (the plan is made anew, rather than a failure
   * reported); false when the listing failed.
   */
  private async lookAgainAtShared(): Promise<boolean> {
    const area = await this.folder.shared.list().catch(() => null);
    if (!area) return false;
    this.scope = null;
    this.folder.shared.put(area);
    return true;
  }

  /**
   * The next step's plan, and its operations ready to go: what acts on a local disappearance waits until the folder
   * has settled (it may be a move whose other end is not reported yet); what already failed this pass waits for the
   * next; downloads that would not fit are left out (the rest goes on, and the next pass looks again).
   */
  private async nextStep(telling: PassTelling, failures: PassFailures): Promise<{ plan: SelectedPlan; operations: Operation[]; heldDeletions: number }> {
    let plan = this.planNow();
    let { operations: ready, heldDeletions } = this.folder.hold.filter(plan.operations, this.folder.clock.now().getTime(), this.mayBeMoved());
    let operations = ready.filter((op) => !failures.has(op));
    // A slice whose every operation waits or failed already: the rest of what is new here goes ahead.
    if (operations.length === 0 && this.sliced) {
      plan = this.planNow(true);
      ({ operations: ready, heldDeletions } = this.folder.hold.filter(plan.operations, this.folder.clock.now().getTime(), this.mayBeMoved()));
      operations = ready.filter((op) => !failures.has(op));
    }
    for (const skip of plan.skipped) this.folder.told.skipped(skip.path, skip.reason, !skip.fails);
    for (const note of plan.notes) {
      this.folder.told.notice(`${note.path}: ${note.message}`);
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
    if (busy && run.input.live) run.retryInMs = Math.min((this.folder.options.busyRetryMs ?? 10_000) * 2 ** this.folder.busyRetries++, 5 * 60_000);
    else if (!busy) this.folder.busyRetries = 0;
  }

  /**
   * A pass plans from a local tree the watcher has finished reporting: a file still settling inside a folder the
   * other side deleted must be seen before the folder is trashed, as a full scan would see it. A path that never
   * settles (a file written on and on) holds a pass back by the hold's settle time at most.
   */
  private async untilWatcherReported(): Promise<void> {
    await this.ports.watcher.untilQuiet((this.folder.options.hold ?? DEFAULT_HOLD).settleMs);
    this.takeLocalChanges();
  }

  /** The paths the watcher named while this pass ran are this pass's to look at. */
  private takeLocalChanges(): void {
    for (const path of this.ports.watcher.takeChanges()) this.folder.local.named.add(path);
  }

  /**
   * Whether the downloads among these operations fit on the disk (with a reserve left free); when they do not, what
   * to tell the user: how much is needed and how much is free.
   */
  private async spaceFor(operations: readonly Operation[]): Promise<string | null> {
    let needed = 0;
    for (const op of operations) if (needsSpace(op)) needed += this.folder.trees.remote.get(op.remoteId)?.size ?? 0;
    if (needed === 0) return null;
    const free = await this.folder.fs.freeBytes?.(this.root);
    if (free === undefined || needed + SPACE_RESERVE <= free) return null;
    return `not enough free space: ${humanBytes(needed)} to download, ${humanBytes(free)} free on this disk; free some space, or leave folders out (drivesync exclude)`;
  }

  /** Uploads that may be the other end of a move not seen whole yet (hold.ts). */
  private mayBeMoved(): (op: Operation) => boolean {
    return uploadMayBeMoved(this.folder.trees.base.values(), this.folder.trees.local);
  }

  /** The watcher has paths settling, or named paths no scan has looked at yet. */
  private watcherBusy(): boolean {
    return (this.ports.watcher.pending() ?? 0) > 0 || this.folder.local.named.size > 0;
  }
}

/**
 * The operations that go on while deletions wait for the user's answer: all but the deletions (to the drive's trash
 * or the OS trash) and what acts at or inside a path being deleted (a folder made again where one was deleted waits
 * with it, so that the answer finds the place as it was asked about).
 */
export function withoutHeldDeletions(operations: readonly Operation[], base: ReadonlyMap<RemoteId, BaseItem>): Operation[] {
  const held: RelPath[] = [];
  for (const op of operations) {
    if (op.kind === 'trash-local') held.push(op.path);
    else if (op.kind === 'trash-remote') held.push(opPath(op, base));
  }
  if (held.length === 0) return [...operations];
  return operations.filter((op) => op.kind !== 'trash-local' && op.kind !== 'trash-remote' && !held.some((path) => isWithin(opPath(op, base), path)));
}

/** The paths an operation changes: where it acts, and where a move takes an item from. */
function plannedPaths(op: Operation, base: FolderState['trees']['base']): RelPath[] {
  const at = opPath(op, base);
  return 'from' in op && typeof op.from === 'string' && op.from !== at ? [at, op.from] : [at];
}
