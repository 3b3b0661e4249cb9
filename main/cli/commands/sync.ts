/**
 * `drivesync sync DIR [--once] [--yes]`: one folder synced in the foreground, opened through the shared openFolder
 * (which also keeps the status file `drivesync status` reads).
 */
import type { Command } from 'commander';
import { createInterface } from 'node:readline/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig, saveConfig, withBandwidth, type Config } from '../../state/config.js';
import { parseRate } from '../../api/units.js';
import { controlOf, followConfig, forgetFolder } from '../../state/control.js';
import { openFolder, resultLine, type Activity, type DeletionQuestion, type EngineState, type PassSummary, type SyncedFolder, type TakenAnswer } from '../../state/folder.js';
import { canonicalPath, checkFolder } from '../../state/roots.js';
import { FileManagerSocket } from '../../state/file-manager-socket.js';
import { socketFolderOf } from '../../state/file-manager-folder.js';
import { ApiError } from '../../api/errors.js';
import { ANSWERS, askedLine, describeDeletions, waitsForAnswer } from '../deletions.js';
import { CliError, failure, SilentExit, usageError } from '../errors.js';
import { log } from '../log.js';
import { humanBytes, localTime, offlineReason, safe } from '../output.js';
import { describeActivity, PlainReporter, TtyReporter, type Reporter } from '../progress.js';
import { selectBeforeSync } from '../selection.js';
import { runDryRun } from './dry-run.js';
import { openSession, type Session } from '../session.js';

interface SyncOptions {
  once?: boolean;
  dryRun?: boolean;
  json?: boolean;
  yes?: boolean;
  keep?: boolean;
  afresh?: boolean;
  exclude?: string[];
  newFolders?: string;
  limitUp?: string;
  limitDown?: string;
}

/** What a person answers the mass-delete guard. */
type Answer = 'delete' | 'keep' | 'later';

/**
 * Asks the mass-delete question on the terminal, its lines first: y deletes, n keeps the items, anything else (the
 * default) is later.
 */
export async function askDeletions(lines: readonly string[]): Promise<Answer> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    for (const line of lines) process.stdout.write(`${line}\n`);
    const answer = (await rl.question(`${ANSWERS} `)).trim().toLowerCase();
    if (/^y(es)?$/.test(answer)) return 'delete';
    if (/^(n|no|k|keep)$/.test(answer)) return 'keep';
    return 'later';
  } finally {
    rl.close();
  }
}

/**
 * Opens a root (the shared openFolder: lock, checks, engine, status file) and wires its events to a reporter and
 * the log (shared by `sync` and `demo`).
 */
export async function openSyncRun(
  session: Session,
  root: string,
  reporter: Reporter,
  options: {
    pollIntervalMs?: number;
    shown?: string;
    /** While true, item problems are not told: transfers cut short by a stop, uploads tried while offline. */
    quiet?: () => boolean;
    /** Told of each finished item before it is shown. */
    beforeActivity?: (activity: Activity) => void;
    /** Forget what was synced before: the first pass is a merge. */
    afresh?: boolean;
    /** What `check --repair` settles as the folder opens. */
    settleChecked?: { changedOnBoth: readonly number[]; forget: readonly number[] };
    /** Told when the folder took up an answer to its deletions given elsewhere (`drivesync deletions`). */
    onAnswer?: (answer: TakenAnswer) => void;
  } = {},
): Promise<SyncedFolder> {
  const folder = await openFolder(root, {
    ...(options.afresh ? { afresh: true } : {}),
    ...(options.settleChecked ? { settleChecked: options.settleChecked } : {}),
    paths: session.paths,
    server: session.server,
    email: session.email,
    client: session.client,
    otherRoots: session.config.roots,
    pollIntervalMs: options.pollIntervalMs ?? session.config.pollIntervalSeconds * 1000,
    ...(options.shown !== undefined ? { shown: options.shown } : {}),
    onStatusWriteError: (message) => log().warn({ err: message }, 'cannot write the status file'),
    onAnswer: (answer) => {
      log().info({ root, ...answer }, 'deletions answered');
      options.onAnswer?.(answer);
    },
  });

  const shown = new Set<string>();
  const quiet = options.quiet ?? (() => false);
  const problem = (path: string, message: string) => {
    // Transfers cut short by Ctrl-C fail as cancelled: that is the stop the user asked for, not a problem. Offline,
    // what was tried failed for the reason already said; it is tried again, and told if it fails once back.
    if (quiet()) return;
    const line = path ? `${safe(path)}: ${safe(message)}` : safe(message);
    if (shown.has(line)) return;
    shown.add(line);
    reporter.problem(line);
  };

  folder.on('state', (state: EngineState, detail?: string) => {
    log().info({ root, state, detail }, 'state');
    reporter.state(state, detail);
  });
  folder.on('activity', (activity: Activity) => {
    log().info({ root, kind: activity.kind, path: activity.path, rule: activity.rule }, 'done');
    options.beforeActivity?.(activity);
    reporter.activity(activity);
  });
  folder.on('transfer', (event) => reporter.transfer(event));
  folder.on('notice', (message) => {
    log().info({ root, message }, 'notice');
    reporter.info(safe(message));
  });
  folder.on('item-error', (error) => {
    log().warn({ root, path: error.path, message: error.message }, 'item error');
    problem(error.path, error.message);
  });
  folder.on('pass', (summary: PassSummary) => {
    log().info({ root, done: summary.done, failed: summary.failed.length, inSync: summary.inSync, needsConfirmation: summary.needsConfirmation, ...(summary.scoped !== undefined ? { scoped: summary.scoped } : {}) }, 'pass');
    for (const f of summary.failed) problem(f.path, f.message);
    // A problem that comes back after a clean pass is told again.
    if (summary.inSync && summary.failed.length === 0) shown.clear();
    reporter.passEnded(summary);
  });
  return folder;
}

/** What an offline pass found made here, in words: `3 changes made here wait to go up to the drive`. */
export function changesWaiting(n: number): string {
  if (n === 0) return 'no change made here waits to go up';
  return `${n} change${n === 1 ? '' : 's'} made here wait${n === 1 ? 's' : ''} to go up to the drive`;
}

/** A span of time in a few words: `45 s`, `3 min`, `2 h 5 min`. */
function lasted(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** A pass's result in one line (the words `drivesync status` repeats). */
export const summaryLine = resultLine;

/** The limits `--limit-up` and `--limit-down` give, in bytes per second; a rate that is not one is a usage error. */
function limitsOf(options: SyncOptions): { up?: number; down?: number } {
  const parse = (flag: string, text: string | undefined) => {
    if (text === undefined) return undefined;
    const rate = parseRate(text);
    if (rate === null) throw usageError(`${flag} takes a rate such as 2M, 500K or 0 for no limit (got ${text.slice(0, 40)})`);
    return rate;
  };
  const up = parse('--limit-up', options.limitUp);
  const down = parse('--limit-down', options.limitDown);
  return { ...(up !== undefined ? { up } : {}), ...(down !== undefined ? { down } : {}) };
}

async function runSync(dir: string, options: SyncOptions): Promise<void> {
  if (options.yes && options.keep) throw usageError('--yes and --keep answer the same question both ways; give one of them');
  limitsOf(options);
  if (options.json && !options.dryRun) throw usageError('--json goes with --dry-run');
  if (options.dryRun) {
    if (options.once || options.yes || options.keep || options.afresh || options.exclude || options.newFolders !== undefined) {
      throw usageError('--dry-run changes nothing, so it takes no --once, --yes, --keep, --afresh, --exclude or --new-folders');
    }
    return runDryRun(dir, options);
  }
  const { session, root } = await prepareFolder(dir, options);
  const reporter: Reporter = process.stdout.isTTY ? new TtyReporter() : new PlainReporter();
  const view = new SyncView(dir, root, options, session, reporter);
  const run = await openWhenThereIsSpace(view, () =>
    openSyncRun(session, root, reporter, {
      shown: dir,
      quiet: () => view.stopping || view.offline.isOffline,
      beforeActivity: (activity) => view.offline.activity(activity),
      onAnswer: (answer) => view.answeredElsewhere(answer),
      ...(options.afresh ? { afresh: true } : {}),
    }),
  );
  view.attach(run);
  const onSignal = (signal: NodeJS.Signals) => {
    if (view.stopping) process.exit(130); // a second Ctrl-C: leave at once
    log().info({ signal }, 'stopping');
    void view.stop(options.once ? 1 : 0, `stopping (${signal})`);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let unfollow: () => void = () => undefined;
  let socket: FileManagerSocket | null = null;
  try {
    if (options.once) await syncOnce(view, run);
    else {
      socket = await serveFileManager(run, session, reporter);
      view.offline.watch(run);
      tellPasses(view, run);
      unfollow = followControl(view, run);
      await firstPass(view, run);
    }
    await view.finished;
  } finally {
    unfollow();
    await socket?.close().catch(() => undefined);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await run.close().catch(() => undefined);
    reporter.close();
    if (view.removed) {
      const { kept } = forgetFolder(session.paths, root, session.server, session.email);
      if (kept) reporter.problem(`${kept} holds items that were on their way to the OS trash; move them where you want them`);
    }
  }
  finishWith(view.exitCode);
}

/** The file manager's socket for this folder (docs/file-manager.md); without it the folder syncs all the same. */
async function serveFileManager(run: SyncedFolder, session: Session, reporter: Reporter): Promise<FileManagerSocket | null> {
  try {
    const folder = socketFolderOf(run, session.client);
    const socket = await FileManagerSocket.serve(() => [folder]);
    log().info({ socket: socket.path }, 'file manager socket');
    return socket;
  } catch (error) {
    log().warn({ err: (error as Error).message }, 'no file manager socket');
    reporter.problem(`the file manager will show no emblems for this folder: ${safe((error as Error).message)}`);
    return null;
  }
}

/**
 * A folder that cannot be opened because its disk is full (its lock and its mirror are written as it opens) waits for
 * space, as a running sync does, and says so once; `--once` says it and stops.
 */
async function openWhenThereIsSpace(view: SyncView, open: () => Promise<SyncedFolder>): Promise<SyncedFolder> {
  const everyMs = view.session.config.pollIntervalSeconds * 1000;
  for (let told = false; ; told = true) {
    try {
      return await open();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      const line = `the disk holding ${safe(view.root)} is full: drivesync cannot write its state there`;
      if (view.options.once) throw new CliError(`${line}; nothing was synced`);
      if (!told) view.reporter.problem(`${line}; trying again every ${view.session.config.pollIntervalSeconds} s (Ctrl-C to stop)`);
      await sleep(everyMs);
    }
  }
}

/** The session, and the folder checked, added to the synced folders, its selection set: all before it is opened. */
async function prepareFolder(dir: string, options: SyncOptions): Promise<{ session: Session; root: string }> {
  // A long-running sync rides out short outages: the engine retries on the next pass anyway.
  const session = await openSession({ retry: { limit: 3, baseDelayMs: 500 } });
  const root = canonicalPath(dir);
  // Before the account is asked: a folder that cannot be synced is told without a round trip (openFolder checks again).
  checkFolder(root, session.config.roots, dir);
  // The account answers before anything is touched: a bad token is one clear line. A server that cannot be reached
  // is not refused here: the folder's pass finds it offline, so its status says so and a running sync waits for it.
  try {
    await session.client.entries.page({ perPage: 1 }, 1);
  } catch (error) {
    if (!(error instanceof ApiError && (error.kind === 'network' || error.kind === 'timeout'))) throw failure(error, session.server);
  }
  const config = loadConfig(session.paths);
  if (!config.roots.includes(root)) saveConfig(session.paths, { ...config, roots: [...config.roots, root] });
  const limits = limitsOf(options);
  if (limits.up !== undefined || limits.down !== undefined) {
    saveConfig(session.paths, withBandwidth(loadConfig(session.paths), limits));
    session.client.http.bandwidth.set(loadConfig(session.paths).bandwidth ?? {});
  }
  if (options.exclude || options.newFolders !== undefined) {
    await selectBeforeSync({ ...session, config: loadConfig(session.paths) }, root, {
      ...(options.exclude ? { exclude: options.exclude } : {}),
      ...(options.newFolders !== undefined ? { newFolders: options.newFolders } : {}),
    });
  }
  return { session, root };
}

/** What one `sync DIR` says and how it ends: the lines of its parts, the stop, the deletion question's answer. */
class SyncView {
  stopping = false;
  removed = false;
  exitCode: 0 | 1 = 0;
  readonly finished: Promise<void>;
  readonly offline: OfflineLines;
  private finish: () => void = () => undefined;
  private run: SyncedFolder | null = null;
  private question: DeletionQuestion = { count: 0, synced: 0, bytes: 0, groups: [] };
  /** An answer given elsewhere (`drivesync deletions`) that the folder took up, until this view acts on it. */
  private answered: 'delete' | 'keep' | null = null;
  /** --yes and --keep answer the first question only: a sync left running never consents to what comes later. */
  private flagsAnswer = true;
  /** The folder's current question was asked (or said to wait). */
  private asked = false;
  readonly interactive = process.stdin.isTTY === true && process.stdout.isTTY === true;

  constructor(
    readonly dir: string,
    readonly root: string,
    readonly options: SyncOptions,
    readonly session: Session,
    readonly reporter: Reporter,
  ) {
    this.finished = new Promise<void>((resolve) => {
      this.finish = resolve;
    });
    this.offline = new OfflineLines(this, `${session.config.pollIntervalSeconds} s`);
  }

  attach(run: SyncedFolder): void {
    this.run = run;
    run.on('confirm-deletions', (q) => {
      this.question = q;
      this.asked = false;
    });
    this.offline.attach(run);
  }

  async stop(code: 0 | 1, line?: string): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.exitCode = code;
    if (line) this.reporter.info(line);
    await this.run?.close();
    this.reporter.close();
    this.finish();
  }

  /** True once for each question the folder asks (the view then asks it, or says it waits). */
  newQuestion(): boolean {
    if (this.asked) return false;
    this.asked = true;
    return true;
  }

  /** An answer given with `drivesync deletions` reached the folder: said, and kept for the flow that asks. */
  answeredElsewhere(answer: TakenAnswer): void {
    if (!answer.taken) {
      this.reporter.problem(`an answer came for ${answer.count} deletions, but ${answer.asked} wait now: nothing was done (drivesync deletions lists them)`);
      return;
    }
    // A watching sync's engine goes on with it by itself; `--once` runs the pass it asks for.
    if (this.options.once) this.answered = answer.answer;
    this.reporter.info(answer.answer === 'delete'
      ? `answered with drivesync deletions: deleting ${answer.count} items`
      : `answered with drivesync deletions: keeping ${answer.count} items (put back where they were deleted)`);
  }

  /** The answer: given elsewhere, --yes or --keep (the first question), or the user's on the terminal; else later. */
  async consent(): Promise<Answer> {
    const elsewhere = this.answered;
    this.answered = null;
    if (elsewhere) return elsewhere;
    const flags = this.flagsAnswer;
    this.flagsAnswer = !!this.options.once;
    if (flags && this.options.yes) return 'delete';
    if (flags && this.options.keep) return 'keep';
    if (!this.interactive) return 'later';
    this.reporter.suspend();
    const answer = await askDeletions(describeDeletions(this.question, 10, askedLine(this.question)));
    this.reporter.resume();
    return answer;
  }

  /** What `later` says of a `--once` run: nothing was deleted, everything else was synced, and how to answer. */
  later(): string {
    const answer = `drivesync deletions --delete|--keep ${this.dir} answers for the next sync, or re-run with --yes to delete them or --keep to keep them`;
    if (this.interactive && !this.options.yes && !this.options.keep) return `nothing was deleted (everything else was synced); ${answer}`;
    return `${this.waiting()}; nothing was deleted (everything else was synced): ${answer}`;
  }

  /** The question in one line: how many of how many, on which side. */
  waiting(): string {
    const q = this.question;
    const where = q.groups.map((g) => `${g.count} ${g.where === 'drive' ? 'on the drive' : 'in this folder'}`).join(' and ');
    return `this pass would delete ${q.count} of ${q.synced} synced items (${where})`;
  }

  /** What a watching sync says of a question left for later: the deletions wait, everything else goes on. */
  waitingLines(): string[] {
    const lines = this.interactive ? [] : describeDeletions(this.question, 10, `${askedLine(this.question)}`);
    return [
      ...lines,
      `${waitsForAnswer(this.dir)} (drivesync deletions lists them)`,
    ];
  }
}

/**
 * Offline said once when it starts and once when it ends, not on every poll in between, and what waits to go up
 * whenever that changes. It has ended when something reached the drive, or a pass compared everything without a
 * failure (a pass for a local change does not list the drive, so its failing uploads do not tell).
 */
class OfflineLines {
  isOffline = false;
  private since = 0;
  private waitingUp = 0;
  private detail: string | undefined;
  private probing = false;

  constructor(
    private readonly view: SyncView,
    private readonly every: string,
  ) {}

  attach(run: SyncedFolder): void {
    run.on('state', (state, detail) => {
      if (state === 'offline') this.detail = detail;
    });
  }

  /** Why the server cannot be reached, in the words `sync` uses everywhere else. */
  unreachable(): string {
    return `cannot reach ${this.view.session.server}${this.detail ? ` (${offlineReason(this.detail)})` : ''}`;
  }

  /** A watching sync: the lines of going offline and of what waits meanwhile. */
  watch(run: SyncedFolder): void {
    run.on('state', (state) => {
      if (this.view.stopping || state !== 'offline' || this.isOffline) return;
      this.isOffline = true;
      this.since = Date.now();
      this.waitingUp = 0;
      this.view.reporter.info(`offline: ${this.unreachable()}; trying again every ${this.every}`);
    });
    run.on('pass', (summary) => {
      if (this.view.stopping || !summary.offline || summary.waitingUp === undefined || summary.waitingUp === this.waitingUp) return;
      this.waitingUp = summary.waitingUp;
      this.view.reporter.info(`offline: ${changesWaiting(this.waitingUp)}`);
    });
  }

  /** An item done that reached the drive: it answers again. */
  activity(activity: Activity): void {
    if (describeActivity(activity) !== null) this.online();
  }

  online(): void {
    if (!this.isOffline || this.view.stopping) return;
    this.isOffline = false;
    const waited = this.waitingUp ? `; syncing ${this.waitingUp} change${this.waitingUp === 1 ? '' : 's'} made here meanwhile` : '';
    this.view.reporter.info(`back online after ${lasted(Date.now() - this.since)}: ${safe(this.view.session.server)} answers again${waited}`);
  }

  /** Whether the server answers: a pass with failures while offline may have failed for another reason. */
  probe(): void {
    if (this.probing) return;
    this.probing = true;
    this.view.session.client.entries
      .page({ perPage: 1 }, 1)
      .then(() => this.online(), () => undefined)
      .finally(() => (this.probing = false));
  }
}

/** `sync DIR --once`: one full pass (two when the deletion question is answered), its result, its exit code. */
async function syncOnce(view: SyncView, run: SyncedFolder): Promise<void> {
  let summary = await run.syncOnce({ fullScan: true });
  if (summary.needsConfirmation && !view.stopping) {
    const answer = await view.consent();
    if (answer === 'later') {
      view.reporter.problem(view.later());
      return view.stop(1);
    }
    if (answer === 'delete') run.confirmDeletions();
    else run.keepDeletions();
    summary = await run.syncOnce({ fullScan: true });
  }
  if (view.stopping) return;
  if (summary.offline) {
    view.reporter.problem(`offline: ${view.offline.unreachable()}; nothing was synced`);
    return view.stop(1);
  }
  // The folder's problem is said (on stderr); no item failed, so there is no result to add.
  if (summary.folder) return view.stop(1);
  view.reporter.info(summaryLine(summary));
  return view.stop(summary.inSync && summary.failed.length === 0 ? 0 : 1);
}

/** The limits in force in a few words: `up 2.0 MB/s, down no limit`. */
export function limitsLine(limits: { upBytesPerSecond?: number; downBytesPerSecond?: number }): string {
  const one = (rate: number | undefined) => (rate ? `${humanBytes(rate)}/s` : 'no limit');
  return `up ${one(limits.upBytesPerSecond)}, down ${one(limits.downBytesPerSecond)}`;
}

/** `sync DIR`'s first pass, and its word that it goes on watching. */
async function firstPass(view: SyncView, run: SyncedFolder): Promise<void> {
  const limits = view.session.client.http.bandwidth.current;
  if (limits.upBytesPerSecond || limits.downBytesPerSecond) view.reporter.info(`transfer limits: ${limitsLine(limits)} (--limit-up, --limit-down)`);
  const first = await run.start();
  if (view.stopping) return;
  if (first.inSync && first.done === 0 && !first.offline) view.reporter.info('in sync');
  view.reporter.info(`watching ${safe(view.root)} for changes (Ctrl-C to stop)`);
}

/** Each pass of a watching sync in a line when it did or failed something new; the deletion question asked. */
function tellPasses(view: SyncView, run: SyncedFolder): void {
  let asking = false;
  /** What the last pass failed, so that a pass failing the same and changing nothing is not told again. */
  let lastFailing = '';
  run.on('pass', (summary) => {
    if (view.stopping || summary.offline) return;
    if (summary.folder && summary.folder !== 'gone') {
      // Another folder (or a file) is at the path: nothing syncs until the person chooses, as the line above
      // says, so watching would only wait. A folder that is gone may come back (a disk mounted again).
      void view.stop(1);
      return;
    }
    if (summary.failed.length === 0) view.offline.online();
    else if (view.offline.isOffline) {
      // Its failures are told by the next pass once the server is known to answer.
      view.offline.probe();
      return;
    }
    if (summary.needsConfirmation && !asking && view.newQuestion()) {
      // Asked once per question; the deletions wait while everything else syncs on, until they are answered here,
      // with drivesync deletions, or in the window.
      asking = true;
      void view.consent().then((answer) => {
        asking = false;
        if (view.stopping) return;
        if (answer === 'later') {
          const lines = view.waitingLines();
          for (const line of lines.slice(0, -1)) view.reporter.info(line);
          view.reporter.problem(lines.at(-1)!);
          return;
        }
        if (answer === 'delete') run.confirmDeletions();
        else run.keepDeletions();
        setImmediate(() => void run.syncOnce({ fullScan: true }));
      });
    }
    if (summary.needsConfirmation && summary.done > 0) view.reporter.info(summaryLine(summary));
    else if (!summary.needsConfirmation && (summary.done > 0 || summary.failed.length > 0)) {
      // A pass that changed nothing and fails what the last one failed (a temp file saved, the settled folder's
      // full scan) has nothing new to say.
      const failing = summary.failed.map((f) => f.path).sort().join('\u0000');
      if (summary.done > 0 || failing !== lastFailing) view.reporter.info(summaryLine(summary));
      lastFailing = failing;
    } else if (summary.inSync) {
      // What failed is gone (deleted, renamed, readable again): the last word on the screen was "not in sync".
      if (lastFailing !== '') view.reporter.info('in sync');
      lastFailing = '';
    }
  });
}

/** pause, resume and remove, from another terminal or the window, reach this sync through the config. */
function followControl(view: SyncView, run: SyncedFolder): () => void {
  let pausedHere = false;
  let limits = JSON.stringify(view.session.client.http.bandwidth.current);
  const follow = (now: Config) => {
    if (view.stopping) return;
    // A limit set meanwhile (another sync's --limit-up, the window's Settings) applies at once, to transfers under way too.
    const wanted = now.bandwidth ?? {};
    if (JSON.stringify(wanted) !== limits) {
      limits = JSON.stringify(wanted);
      view.session.client.http.bandwidth.set(wanted);
      view.reporter.info(`transfer limits: ${limitsLine(wanted)}`);
    }
    const control = controlOf(now, view.root);
    if (control.removed) {
      view.removed = true;
      void view.stop(0, `${view.root} is no longer synced (drivesync remove); its files stay`);
      return;
    }
    if (control.paused) {
      const until = control.paused.until;
      if (!pausedHere) {
        pausedHere = true;
        run.pause();
        view.reporter.info(`paused${until ? ` until ${localTime(until)}` : ''}: drivesync resume ${view.dir} goes on`);
      }
    } else if (pausedHere) {
      pausedHere = false;
      view.reporter.info('resumed');
      void run.resume().catch(() => undefined);
    }
  };
  follow(loadConfig(view.session.paths));
  return followConfig(view.session.paths, follow);
}

function finishWith(code: 0 | 1): void {
  if (code !== 0) throw new SilentExit(code);
}

export function registerSyncCommand(program: Command): void {
  program
    .command('sync')
    .description('keep a folder in two-way sync with the drive (foreground; Ctrl-C stops)')
    .argument('<dir>', 'the local folder')
    .option('--once', 'one full pass, then exit: 0 when in sync, 1 when items failed or the server cannot be reached')
    .option('--dry-run', 'say what one pass would do (uploads, downloads, moves, deletions, conflicts), changing nothing')
    .option('--json', 'with --dry-run: print JSON')
    .option('--yes', 'allow a pass that deletes many items (the mass-delete guard) without asking')
    .option('--keep', 'refuse such deletions without asking: keep the items (restored where they were deleted)')
    .option('--afresh', 'sync the folder as it is now, as a merge (nothing is deleted): after it was replaced or re-created')
    .option('--exclude <path...>', 'leave these folders of the drive out of this computer (relative to DIR); see drivesync exclude')
    .option('--limit-up <rate>', 'upload at most this fast (2M, 500K, 0 for no limit), remembered for every sync')
    .option('--limit-down <rate>', 'download at most this fast (2M, 500K, 0 for no limit), remembered for every sync')
    .option('--new-folders <exclude|sync>', 'whether new top-level folders made elsewhere are synced here or left out until included')
    .action((dir: string, options: SyncOptions) => runSync(dir, options));
}
