/**
 * `drivesync run`: every configured folder synced in this one process, in the foreground — what the background
 * service runs (`drivesync service install`). It follows the config as it changes: a folder added is opened, one
 * removed is closed and forgotten, pauses and transfer limits apply at once. A folder another process syncs is left
 * to it and tried again each minute. Its lines go to stdout (the journal, under the service), each named by its folder.
 */
import { basename } from 'node:path';
import type { Command } from 'commander';
import { type Config, loadConfig } from '../../state/config.js';
import { controlOf, followConfig, forgetFolder } from '../../state/control.js';
import { socketFolderOf } from '../../state/file-manager-folder.js';
import { FileManagerSocket, type SocketFolder } from '../../state/file-manager-socket.js';
import type { DeletionQuestion, PassSummary, SyncedFolder } from '../../state/folder.js';
import { takeService } from '../../state/service.js';
import { askedLine, describeDeletions, waitsForAnswer } from '../deletions.js';
import { CliError } from '../errors.js';
import { log } from '../log.js';
import { safe } from '../output.js';
import { describeActivity, PlainReporter, type Reporter } from '../progress.js';
import { openSession, type Session } from '../session.js';
import { openSyncRun, summaryLine } from './sync.js';

/** How often a folder that could not be opened (another process syncs it, its disk is gone) is tried again. */
const RETRY_MS = 60_000;

/** Plain lines, each named by its folder. */
class FolderReporter extends PlainReporter implements Reporter {
  constructor(private readonly name: string) {
    super();
  }

  override activity(activity: Parameters<Reporter['activity']>[0]): void {
    const line = describeActivity(activity);
    if (line) process.stdout.write(`${this.name}: ${line}\n`);
  }

  override info(line: string): void {
    process.stdout.write(`${this.name}: ${line}\n`);
  }

  override problem(line: string): void {
    process.stderr.write(`drivesync: ${this.name}: ${line.split('\n')[0]}\n`);
  }
}

interface Running {
  run: SyncedFolder;
  socket: SocketFolder;
  reporter: FolderReporter;
  pausedHere: boolean;
}

class Service {
  private readonly runs = new Map<string, Running>();
  private readonly opening = new Set<string>();
  private stopping = false;

  constructor(private readonly session: Session) {}

  folders(): SocketFolder[] {
    return [...this.runs.values()].map((r) => r.socket);
  }

  /** Opens what the config lists and is not open yet; closes what it no longer lists; pauses and resumes. */
  async follow(config: Config): Promise<void> {
    if (this.stopping) return;
    this.session.client.http.bandwidth.set(config.bandwidth ?? {});
    for (const [root, running] of [...this.runs]) {
      const control = controlOf(config, root);
      if (control.removed) {
        this.runs.delete(root);
        await running.run.close().catch(() => undefined);
        forgetFolder(this.session.paths, root, this.session.server, this.session.email);
        running.reporter.info('no longer synced (drivesync remove); its files stay');
      } else if (control.paused && !running.pausedHere) {
        running.pausedHere = true;
        running.run.pause();
        running.reporter.info('paused');
      } else if (!control.paused && running.pausedHere) {
        running.pausedHere = false;
        running.reporter.info('resumed');
        void running.run.resume().catch(() => undefined);
      }
    }
    for (const root of config.roots) if (!this.runs.has(root)) await this.open(root, config);
  }

  private async open(root: string, config: Config): Promise<void> {
    if (this.opening.has(root) || this.stopping) return;
    this.opening.add(root);
    const reporter = new FolderReporter(basename(root) || root);
    try {
      const run = await openSyncRun({ ...this.session, config }, root, reporter, { shown: root });
      const running: Running = { run, socket: socketFolderOf(run, this.session.client), reporter, pausedHere: false };
      this.runs.set(root, running);
      tellPasses(run, reporter);
      if (controlOf(config, root).paused) {
        running.pausedHere = true;
        run.pause();
        reporter.info('paused (drivesync resume goes on)');
      }
      reporter.info(`syncing ${safe(root)}`);
      void run.start().catch((error: unknown) => reporter.problem((error as Error).message));
    } catch (error) {
      reporter.problem(`${(error as Error).message.split('\n')[0]}; tried again in a minute`);
    } finally {
      this.opening.delete(root);
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.runs.values()].map((r) => r.run.close().catch(() => undefined)));
    this.runs.clear();
  }
}

/** Each pass that did or failed something in a line; a deletion question said once, with how to answer it. */
function tellPasses(run: SyncedFolder, reporter: Reporter): void {
  let question: DeletionQuestion | null = null;
  let told = false;
  run.on('confirm-deletions', (q) => {
    question = q;
    told = false;
  });
  run.on('pass', (summary: PassSummary) => {
    if (summary.needsConfirmation && question && !told) {
      told = true;
      for (const line of describeDeletions(question, 10, askedLine(question))) reporter.info(line);
      reporter.problem(waitsForAnswer(run.root));
    }
    if (summary.done > 0 || summary.failed.length > 0) reporter.info(summaryLine(summary));
  });
}

async function runService(): Promise<void> {
  const session = await openSession({ retry: { limit: 3, baseDelayMs: 500 } });
  const held = takeService(session.paths);
  if ('runningAs' in held) throw new CliError(`drivesync run already runs in process ${held.runningAs} for this state folder; one is enough (drivesync service status)`);
  const service = new Service(session);
  let socket: FileManagerSocket | null = null;
  try {
    socket = await FileManagerSocket.serve(() => service.folders());
  } catch (error) {
    log().warn({ err: (error as Error).message }, 'no file manager socket');
  }
  const config = loadConfig(session.paths);
  process.stdout.write(`drivesync run: ${config.roots.length === 0 ? 'no folder is synced yet; waiting for one (drivesync sync DIR --once, or the window)' : `syncing ${config.roots.length} folder${config.roots.length === 1 ? '' : 's'}`} (process ${process.pid})\n`);
  let queue = service.follow(config);
  const followNow = (next: Config) => {
    queue = queue.then(() => service.follow(next)).catch((error: unknown) => log().warn({ err: (error as Error).message }, 'follow'));
  };
  const unfollow = followConfig(session.paths, followNow);
  const retry = setInterval(() => {
    try {
      followNow(loadConfig(session.paths));
    } catch {
      // A damaged config: read again at its next change.
    }
  }, RETRY_MS);
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.stdout.write(`drivesync run: stopping (${signal})\n`);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  clearInterval(retry);
  unfollow();
  await queue.catch(() => undefined);
  await service.stop();
  await socket?.close().catch(() => undefined);
  held.release();
}

export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('sync every configured folder in this one process, in the foreground (what the background service runs)')
    .action(() => runService());
}
