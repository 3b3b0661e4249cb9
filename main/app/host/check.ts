/**
 * The host's check job: "Check files…" of a synced folder. Every synced file's bytes here are compared with the
 * drive's (main/state/check-folder.ts, as `drivesync check` does) through the host's own client, so the bandwidth
 * limit of the settings applies; one check per folder at a time; a check stopped keeps where it got to, and the next
 * goes on from there. What the last complete check found is settled by opening the folder's engine again to keep both
 * versions of each difference, as the `folders:afresh` answer reopens it.
 */
import { existsSync } from 'node:fs';
import { ApiError } from '../../api/errors.js';
import type { CheckProgress, CheckRepair, CheckReport } from '../../contract/index.js';
import { checkSyncedFolder, unfinishedCheck, type CheckFinding, type CheckReport as FolderCheckReport } from '../../state/check-folder.js';
import type { PassSummary } from '../../state/folder.js';
import type { HandlersOf, HostContext } from './context.js';
import { describeApiError, HostError } from './failures.js';
import type { Folders, Opened } from './folders.js';

/** Least time between two progress events of a check (its last one always goes out). */
const PROGRESS_MS = 100;
/** Passes made after the repair's first when it left the folder not yet in sync (as `drivesync check --repair`). */
const MORE_PASSES = 2;

const nameOf = (root: string) => root.replace(/[/\\]+$/, '').split(/[/\\]/).pop() || root;

interface LastCheck {
  report: CheckReport;
  findings: CheckFinding[];
}

export class CheckJob {
  /** The checks under way, by folder: what stops each. */
  private readonly running = new Map<string, AbortController>();
  private readonly repairing = new Set<string>();
  /** Each folder's last check since the app started: what a repair settles. */
  private readonly last = new Map<string, LastCheck>();

  constructor(
    private readonly host: HostContext,
    private readonly folders: Folders,
  ) {}

  readonly handlers: HandlersOf<'folders:check' | 'folders:check-stop' | 'folders:check-state' | 'folders:check-repair'> = {
    'folders:check': (arg) => this.check(arg.root, { ...(arg.sample !== undefined ? { sample: arg.sample } : {}), fromStart: arg.fromStart === true }),
    'folders:check-stop': async ({ root }) => {
      this.folders.require(root);
      this.running.get(root)?.abort();
    },
    'folders:check-state': async ({ root }) => {
      const run = this.folders.require(root);
      const running = this.running.has(root);
      return { root, running, unfinished: running ? null : unfinishedCheck(run.mirror), last: this.last.get(root)?.report ?? null };
    },
    'folders:check-repair': ({ root }) => this.repair(root),
  };

  /** Stops every check under way (the app is quitting); each keeps where it got to. */
  stopAll(): void {
    for (const stop of this.running.values()) stop.abort();
  }

  private async check(root: string, how: { sample?: number; fromStart: boolean }): Promise<CheckReport> {
    const run = this.folders.require(root);
    const client = this.host.requireClient();
    if (this.running.has(root)) throw new HostError('conflict', `A check of ${nameOf(root)} is under way already.`);
    if (this.repairing.has(root)) throw new HostError('conflict', `${nameOf(root)} is being repaired: check it again once that is done.`);
    if (!existsSync(run.mirror)) throw new HostError('not-synced', `${nameOf(root)} has not been synced yet: there is nothing to check.`);
    const stop = new AbortController();
    this.running.set(root, stop);
    const progress = new ProgressTeller((p) => this.host.emit('check-progress', { root, ...p }));
    try {
      const found = await checkSyncedFolder({ root, mirror: run.mirror, client, ...how, signal: stop.signal, onProgress: (p) => progress.tell(p) });
      const report = reportOf(root, found);
      this.last.set(root, { report, findings: found.findings });
      return report;
    } catch (error) {
      throw stoppedBy(error);
    } finally {
      progress.flush();
      this.running.delete(root);
    }
  }

  private async repair(root: string): Promise<CheckRepair> {
    this.folders.require(root);
    const name = nameOf(root);
    if (this.running.has(root)) throw new HostError('conflict', `A check of ${name} is under way: let it end before keeping both versions.`);
    if (this.repairing.has(root)) throw new HostError('conflict', `${name} is being repaired already.`);
    const last = this.last.get(root);
    if (!last || last.findings.length === 0) throw new HostError('not-found', `No check of ${name} has found a difference to repair: check its files first.`);
    if (!last.report.complete) throw new HostError('conflict', `The last check of ${name} was stopped before its end: check again to finish it first.`);
    const changedOnBoth = last.findings.filter((f) => f.kind === 'different').map((f) => f.remoteId);
    const forget = last.findings.filter((f) => f.kind !== 'different').map((f) => f.remoteId);
    this.repairing.add(root);
    try {
      const opened = await this.host.exclusive(() => this.folders.reopen(root, { settleChecked: { changedOnBoth, forget } }));
      // Settled in the folder's sync database as it opened: what a check finds from now on is something else.
      if (opened) this.last.delete(root);
      const inSync = await this.syncedAfter(root, opened);
      return { root, keptBoth: changedOnBoth.length, copiedBack: forget.length, inSync };
    } finally {
      this.repairing.delete(root);
    }
  }

  /** Whether the folder is in sync once the repair's passes are made; null when it is paused (they are made on resume). */
  private async syncedAfter(root: string, opened: Opened | null): Promise<boolean | null> {
    let summary = opened ? await opened.first : null;
    const folder = this.folders.runs.get(root)?.folder;
    if (!folder || summary === null) {
      throw new HostError('failed', `${nameOf(root)} could not be opened again: ${this.folders.runs.get(root)?.status.detail ?? 'it is no longer synced'}`);
    }
    if (this.folders.pausedNow(root)) return null;
    for (let pass = 0; pass < MORE_PASSES && !summary.inSync && summary.failed.length === 0 && !summary.needsConfirmation && !summary.offline; pass++) {
      summary = await folder.syncOnce();
    }
    return summary.inSync;
  }
}

/** The report as the window reads it: the differences without the drive's entry ids. */
function reportOf(root: string, found: FolderCheckReport): CheckReport {
  return {
    root,
    checked: found.checked,
    total: found.total,
    bytes: found.bytes,
    complete: found.complete,
    startedAt: found.startedAt,
    resumedAt: found.resumedAt ?? null,
    sample: found.sample,
    differences: found.findings.map((f) => ({ kind: f.kind, path: f.path, detail: f.detail })),
  };
}

/** A check that could not go on, in one line that says it goes on from there when run again. */
function stoppedBy(error: unknown): unknown {
  if (error instanceof HostError) return error;
  const said = error instanceof ApiError ? describeApiError(error) : (error as Error).message.split('\n')[0]!;
  const why = /[.?!]$/.test(said) ? said : `${said}.`;
  return new HostError(error instanceof ApiError ? error.kind : 'failed', `${why} The check stopped there; checking again goes on from where it stopped.`);
}

/** A check's progress as events: at most one every PROGRESS_MS, the latest always told in the end. */
class ProgressTeller {
  private held: Omit<CheckProgress, 'root'> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private lastAt = -Infinity;

  constructor(private readonly emit: (progress: Omit<CheckProgress, 'root'>) => void) {}

  tell(progress: Omit<CheckProgress, 'root'>): void {
    this.held = progress;
    this.timer ??= setTimeout(() => this.flush(), Math.max(0, this.lastAt + PROGRESS_MS - Date.now()));
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.held) return;
    this.emit(this.held);
    this.held = null;
    this.lastAt = Date.now();
  }
}
