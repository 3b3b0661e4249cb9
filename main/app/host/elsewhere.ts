/**
 * Folders another process on this computer syncs — the background service (`drivesync run`) or a `drivesync sync` in
 * a terminal. One engine syncs a folder, whoever starts it, so the window does not start a second: it shows the folder
 * from that process's status file (its state, last sync, the deletions it holds for an answer), acts on it through
 * the config that process follows (pause, resume, the answer to its deletions), and opens the folder itself once
 * that process has ended.
 */
import type { DeletionQuestion, FolderState } from '../../contract/index.js';
import { runningSync } from '../../state/control.js';
import { ENGINE_STATES } from '../../state/folder.js';
import { rootOfAccount } from '../../state/roots.js';
import { runningService } from '../../state/service.js';
import { readStatus, type RootStatus } from '../../state/status-file.js';
import type { HostContext } from './context.js';
import type { Feed, FolderRun } from './feed.js';

/** How often the other process's status file is read. */
const EVERY_MS = 2000;
/** Items of each side the window lists of a question. */
const LISTED = 1000;

interface Watched {
  run: FolderRun;
  server: string;
  email: string | undefined;
}

export class ElsewhereFolders {
  private readonly watched = new Map<string, Watched>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly host: HostContext,
    private readonly feed: () => Feed,
    private readonly takeOver: (run: FolderRun) => Promise<void>,
  ) {}

  /** A folder the window could not lock: followed when a live process here holds it (else its error stands). */
  watch(run: FolderRun, server: string, email: string | undefined): void {
    const pid = runningSync(this.host.paths, run.root, server, email);
    if (pid === null) return;
    run.elsewhere = pid;
    this.watched.set(run.root, { run, server, email });
    this.show({ run, server, email }, pid);
    this.timer ??= setInterval(() => this.tick(), EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.watched.clear();
  }

  private tick(): void {
    for (const [root, watched] of [...this.watched]) {
      const pid = runningSync(this.host.paths, root, watched.server, watched.email);
      if (pid !== null) {
        this.show(watched, pid);
        continue;
      }
      this.watched.delete(root);
      delete watched.run.elsewhere;
      this.feed().pending.delete(root);
      void this.takeOver(watched.run);
    }
    if (this.watched.size === 0) this.stop();
    this.feed().emitState();
  }

  /** The folder as the other process's status file has it. */
  private show({ run, server, email }: Watched, pid: number): void {
    const status = readStatus(this.host.paths, rootOfAccount(this.host.paths, run.root, server, email).key);
    if (!status) return;
    const who = runningService(this.host.paths) === pid ? 'the drivesync service' : 'drivesync sync';
    const state = (ENGINE_STATES as readonly string[]).includes(status.state) && status.state !== 'stopped' ? (status.state as FolderState) : 'idle';
    run.elsewhere = pid;
    run.status.state = state;
    run.status.detail = `Synced by ${who} (process ${pid})${status.detail ? `: ${status.detail}` : ''}.`;
    run.status.lastSync = status.lastSync;
    run.status.inSync = status.inSync;
    run.status.synced = status.counts.synced;
    this.question(run.root, status);
  }

  /** The deletions the other process holds for an answer, asked in the window too (answered through the config). */
  private question(root: string, status: RootStatus): void {
    const pending = this.feed().pending;
    const q = status.deletions;
    if (!q) {
      pending.delete(root);
      return;
    }
    const before = pending.get(root);
    if (before && before.count === q.count) return;
    const asked: DeletionQuestion = { root, count: q.count, synced: q.synced, bytes: q.bytes, groups: q.groups.map((g) => ({ ...g, items: g.items.slice(0, LISTED) })) };
    if (q.excluded && q.excluded.items > 0) asked.excluded = { ...q.excluded };
    pending.set(root, asked);
    this.host.emit('confirm-deletions', asked);
  }
}
