/**
 * One synced folder's loop, in the manner of Syncthing's `folder.Serve`: everything that asks the engine for work
 * (the watcher, the timers, the user through either front end) submits a typed request here, and the loop does the
 * work one job at a time: a pass, or a cheap look at the drive.
 *
 * A request is taken at once, in the order it comes: what it changes (pause, consent, stop) holds from then on, and a
 * pass under way sees it at its next step, as it sees an abort. What a request asks of the folder is queued: a pass
 * asked while one waits in the queue is merged into it (Syncthing's buffer of one; the paths the watcher named, as a
 * set), so every caller gets the summary of the pass that did what it asked; a look asked while one waits is that
 * look. What the watcher names is gathered by the engine, not queued: a pass takes it as it begins.
 */
import type { RemoteDelta } from '../remote/changes.js';
import type { SharedArea } from '../model/shared-area.js';
import type { RelPath } from '../model/types.js';

/**
 * What a pass must do beyond the paths the watcher named: scan the whole folder, list the remote tree, or apply to
 * the remote tree it holds what a cheap check saw (which a full listing makes moot).
 */
export interface PassRequest {
  fullScan: boolean;
  listRemote: boolean;
  remoteDelta?: RemoteDelta;
  /** What is shared with the account, as a look at it found it changed (a full listing lists it too). */
  sharedArea?: SharedArea;
}

export type FolderRequest =
  /** The watcher named paths that changed. */
  | { kind: 'local-change'; paths: readonly RelPath[] }
  /** The watcher has reported every path it saw change: a pass waiting for the folder to be quiet goes on. */
  | { kind: 'quiet' }
  /** The poll timer: is there news on the drive? */
  | { kind: 'poll' }
  /** The user opened the window or the tray menu: the drive is looked at now, not at the next tick. */
  | { kind: 'look' }
  /** A full scan on a timer: hourly, while the watcher is down, once a burst of changes settled. */
  | { kind: 'rescan'; listRemote: boolean }
  /** Held disappearances or items another program locked are due for another look. */
  | { kind: 'retry' }
  /** The machine slept: what changed meanwhile may have gone unreported. */
  | { kind: 'wake' }
  /** A pass asked for by name (the first pass, `sync --once`, "sync now", a full sync after a settings change). */
  | { kind: 'sync'; fullScan: boolean; listRemote: boolean }
  | { kind: 'pause' }
  /** `fullScan`: the watcher cannot say what changed while paused. */
  | { kind: 'resume'; fullScan: boolean }
  /** The user said yes to the deletions the guard stopped at. */
  | { kind: 'consent' }
  /** The user said no to them: keep the items (undo the deletions where they were made). */
  | { kind: 'keep' }
  /** The folder was left alone a while: base may be kept in the mirror only until the next pass. */
  | { kind: 'release' }
  | { kind: 'stop' };

/** What a request asks the loop to do, once its effects are applied. */
export type Work = { pass: PassRequest } | { check: true } | null;

export interface FolderWork<S> {
  /** Applies what a request changes at once, and says what it asks for: a pass, a look at the drive, or nothing. */
  take(request: FolderRequest): Work;
  /** A cheap look at the drive: the pass it asks for, or null when nothing changed. */
  check(): Promise<PassRequest | null>;
  pass(request: PassRequest): Promise<S>;
  /** After every pass, once it no longer counts as running (a listener may ask for the next one from here). */
  passed(summary: S): void;
  /** What a pass asked for after the loop stopped answers. */
  empty(): S;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T | Promise<T>): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T | Promise<T>) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

type Job<S> = { kind: 'pass'; request: PassRequest; done: Deferred<S> } | { kind: 'check'; done: Deferred<S | null> };

const merge = (a: PassRequest, b: PassRequest): PassRequest => {
  const sharedArea = b.sharedArea ?? a.sharedArea;
  const merged = {
    fullScan: a.fullScan || b.fullScan,
    listRemote: a.listRemote || b.listRemote,
    ...(sharedArea ? { sharedArea } : {}),
  };
  if (merged.listRemote || !(a.remoteDelta || b.remoteDelta)) return merged;
  const deltas = [a.remoteDelta, b.remoteDelta].filter((d) => d !== undefined);
  // The later answer about an entry is the one that holds.
  const changed = new Map(deltas.flatMap((d) => d.changed).map((e) => [e.id, e]));
  const trashed = new Set(deltas.flatMap((d) => d.trashed));
  for (const id of trashed) changed.delete(id);
  const fetch = new Set(deltas.flatMap((d) => d.fetch));
  return { ...merged, remoteDelta: { changed: [...changed.values()], trashed: [...trashed], fetch: [...fetch] } };
};

export class FolderLoop<S> {
  private readonly queue: Array<Job<S>> = [];
  private current: Job<S> | null = null;
  private stopped = false;
  private readonly ended = deferred<null>();

  constructor(private readonly work: FolderWork<S>) {}

  /** No job runs and none waits. */
  get idle(): boolean {
    return this.current === null && this.queue.length === 0;
  }

  /** The loop was stopped: it takes no more work. */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** A pass is under way (a cheap look is not one: it only reads what is synced). */
  get passing(): boolean {
    return this.current?.kind === 'pass';
  }

  /**
   * Takes a request. Resolves to the summary of the pass that did what it asked (a look that found news: the pass
   * that brought it), null when it asked for no pass; a stop resolves once the job under way has ended.
   */
  submit(request: FolderRequest): Promise<S | null> {
    const work = this.work.take(request);
    if (request.kind === 'stop') {
      this.stop();
      return this.ended.promise;
    }
    if (work === null) return Promise.resolve(null);
    if (this.stopped) return Promise.resolve('pass' in work ? this.work.empty() : null);
    return 'pass' in work ? this.queuePass(work.pass) : this.queueCheck();
  }

  private queuePass(request: PassRequest): Promise<S> {
    const waiting = this.queue.find((job) => job.kind === 'pass');
    if (waiting?.kind === 'pass') {
      waiting.request = merge(waiting.request, request);
      return waiting.done.promise;
    }
    const job: Job<S> = { kind: 'pass', request, done: deferred<S>() };
    this.queue.push(job);
    this.serveNext();
    return job.done.promise;
  }

  private queueCheck(): Promise<S | null> {
    const waiting = this.queue.find((job) => job.kind === 'check');
    if (waiting?.kind === 'check') return waiting.done.promise;
    const job: Job<S> = { kind: 'check', done: deferred<S | null>() };
    this.queue.push(job);
    this.serveNext();
    return job.done.promise;
  }

  /** Starts the next job when none runs; a job that starts runs its first steps before `submit` returns. */
  private serveNext(): void {
    if (this.current !== null) return;
    const job = this.queue.shift();
    if (!job) {
      if (this.stopped) this.ended.resolve(null);
      return;
    }
    this.current = job;
    const finished = () => {
      this.current = null;
      this.serveNext();
    };
    if (job.kind === 'pass') {
      this.work.pass(job.request).then(
        (summary) => {
          this.current = null;
          this.work.passed(summary);
          job.done.resolve(summary);
          this.serveNext();
        },
        (error: unknown) => {
          job.done.reject(error);
          finished();
        },
      );
      return;
    }
    this.work.check().then(
      (asks) => {
        // The pass the look asks for goes behind what is already queued, or is merged into the pass that waits.
        job.done.resolve(asks && !this.stopped ? this.queuePass(asks) : null);
        finished();
      },
      (error: unknown) => {
        job.done.reject(error);
        finished();
      },
    );
  }

  /** Ends the loop: what waits is answered without running; the job under way ends at its next step. */
  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const job of this.queue.splice(0)) {
      if (job.kind === 'pass') job.done.resolve(this.work.empty());
      else job.done.resolve(null);
    }
    if (this.current === null) this.ended.resolve(null);
  }
}
