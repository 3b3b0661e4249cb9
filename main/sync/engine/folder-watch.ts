/**
 * The engine's watch over its folder: the watcher while one runs, whether it fell back to rescans, the paths it
 * named that no pass has taken yet, and the passes waiting for it to go quiet. The engine starts and stops it between
 * passes; a pass sees only what it lends (pending paths, a wait for quiet, the named paths as data).
 */
import type { Clock } from '../local/ports.js';
import { STATE_DIR } from '../local/state-dir.js';
import { watchTree, type Watcher, type WatchTree } from '../local/watcher.js';
import type { RelPath } from '../model/types.js';
import type { DisappearanceHold } from './hold.js';
import { describeError } from './pass/summary.js';

export interface FolderWatchOptions {
  root: string;
  clock: Clock;
  hold: DisappearanceHold;
  watch?: WatchTree;
  stabilityMs?: number;
  /** Paths changed and held still (the engine queues a local change). */
  changed(paths: RelPath[]): void;
  /** A path seen changing, before it holds still. */
  seen(path: RelPath): void;
  /** The watcher has reported every path it saw change. */
  quiet(): void;
  /** A sentence for the person: watching failed, or from now on the folder is rescanned instead. */
  notice(message: string): void;
  /** The watcher cannot go on: the folder is found by rescans from now on (the engine keeps their timer). */
  degraded(): void;
  /** The engine stopped: nothing more is told. */
  stopped(): boolean;
}

export class FolderWatch {
  private watcher: Watcher | null = null;
  private degradedNow = false;
  /** Paths the watcher named since a pass last took them. */
  private readonly named = new Set<RelPath>();
  /** Paths seen changing and not named yet (in their stability wait). */
  private readonly settling = new Set<RelPath>();
  /** Passes waiting for the watcher to report every path it saw change. */
  private readonly quietWaiters = new Set<() => void>();

  constructor(private readonly options: FolderWatchOptions) {}

  get running(): boolean {
    return this.watcher !== null;
  }

  /** Whether a pass must scan in full to see what changed: no watcher, or one that fell back to rescans. */
  get blind(): boolean {
    return this.watcher === null || this.degradedNow;
  }

  async start(): Promise<void> {
    const { options } = this;
    const watcher = await (options.watch ?? watchTree)(options.root, {
      ignoreDirs: [STATE_DIR],
      clock: options.clock,
      ...(options.stabilityMs !== undefined ? { stabilityMs: options.stabilityMs } : {}),
      onChange: (paths) => {
        for (const path of paths) this.settling.delete(path);
        options.changed(paths);
      },
      onSeen: (path) => {
        if (this.settling.size < 100_000) this.settling.add(path);
        options.seen(path);
      },
      onQuiet: () => options.quiet(),
      onError: (error, failure) => {
        if (options.stopped()) return;
        if (failure?.fallback !== 'rescan') return options.notice(`watching the folder failed: ${describeError(error)}`);
        // The watcher says this once, in a sentence of its own; from now on local changes are found by scanning.
        options.notice(error.message);
        this.degradedNow = true;
        options.degraded();
      },
    });
    if (options.stopped()) return void (await watcher.close());
    this.watcher = watcher;
  }

  async stop(): Promise<void> {
    const watcher = this.watcher;
    this.watcher = null;
    this.quietNow();
    this.settling.clear();
    this.degradedNow = false;
    await watcher?.close();
  }

  /** Paths the watcher has settling, or null when none runs. */
  pending(): number | null {
    return this.watcher?.pending() ?? null;
  }

  add(paths: readonly RelPath[]): void {
    for (const path of paths) this.named.add(path);
  }

  /** The paths named that no pass has taken yet, and those seen changing and not named yet. */
  get waiting(): RelPath[] {
    return [...this.named, ...this.settling];
  }

  /** The paths named since a pass last took them, as data. */
  take(): ReadonlySet<RelPath> {
    const paths = new Set(this.named);
    this.named.clear();
    return paths;
  }

  /** What was named is of a folder no longer there: the one that comes back is scanned in full. */
  forget(): void {
    this.named.clear();
  }

  /** The watcher has paths settling, or named paths no pass has taken yet. */
  get busy(): boolean {
    return (this.watcher?.pending() ?? 0) > 0 || this.named.size > 0;
  }

  /**
   * Until the watcher has reported what it saw change, at most `limitMs`. The folder counts as changing until then,
   * for the deletions the hold keeps back (hold.ts).
   */
  untilQuiet(limitMs: number): Promise<void> {
    const { clock, hold } = this.options;
    if ((this.watcher?.pending() ?? 0) === 0 || this.options.stopped()) return Promise.resolve();
    hold.changed(clock.now().getTime());
    return new Promise<void>((resolve) => {
      const done = () => {
        cancel();
        this.quietWaiters.delete(done);
        hold.changed(clock.now().getTime());
        resolve();
      };
      const cancel = clock.after(limitMs, done);
      this.quietWaiters.add(done);
    });
  }

  /** The folder is quiet (or no longer watched): the passes waiting for it go on. */
  quietNow(): void {
    for (const done of [...this.quietWaiters]) done();
  }
}
