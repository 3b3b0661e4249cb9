/**
 * `drivesync sync DIR [--once] [--yes]`: one folder synced in the foreground, opened through the shared openFolder
 * (which also keeps the status file `drivesync status` reads).
 */
import type { Command } from 'commander';
import { createInterface } from 'node:readline/promises';
import { loadConfig, saveConfig } from '../../state/config.js';
import { openFolder, type Activity, type EngineState, type PassSummary, type SyncedFolder } from '../../state/folder.js';
import { canonicalPath, checkFolder } from '../../state/roots.js';
import { failure, SilentExit } from '../errors.js';
import { log } from '../log.js';
import { safe } from '../output.js';
import { PlainReporter, TtyReporter, type Reporter } from '../progress.js';
import { openSession, type Session } from '../session.js';

interface SyncOptions {
  once?: boolean;
  yes?: boolean;
}

/** Asks a yes/no question on the terminal; anything but y/yes is no. */
export async function askYesNo(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    return /^\s*y(es)?\s*$/i.test(answer);
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
  options: { pollIntervalMs?: number; shown?: string } = {},
): Promise<SyncedFolder> {
  const folder = await openFolder(root, {
    paths: session.paths,
    server: session.server,
    email: session.email,
    client: session.client,
    otherRoots: session.config.roots,
    pollIntervalMs: options.pollIntervalMs ?? session.config.pollIntervalSeconds * 1000,
    ...(options.shown !== undefined ? { shown: options.shown } : {}),
    onStatusWriteError: (message) => log().warn({ err: message }, 'cannot write the status file'),
  });

  const shown = new Set<string>();
  const problem = (path: string, message: string) => {
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
    log().info({ root, done: summary.done, failed: summary.failed.length, inSync: summary.inSync, needsConfirmation: summary.needsConfirmation }, 'pass');
    for (const f of summary.failed) problem(f.path, f.message);
    // A problem that comes back after a clean pass is told again.
    if (summary.inSync && summary.failed.length === 0) shown.clear();
    reporter.passEnded(summary);
  });
  return folder;
}

export function summaryLine(summary: PassSummary): string {
  const changes = `${summary.done} change${summary.done === 1 ? '' : 's'}`;
  if (summary.inSync) return `in sync (${changes})`;
  if (summary.failed.length > 0) return `not in sync: ${summary.failed.length} item${summary.failed.length === 1 ? '' : 's'} failed (${changes})`;
  return `not in sync (${changes})`;
}

async function runSync(dir: string, options: SyncOptions): Promise<void> {
  // A long-running sync rides out short outages: the engine retries on the next pass anyway.
  const session = await openSession({ retry: { limit: 3, baseDelayMs: 500 } });
  const root = canonicalPath(dir);
  // Before the account is asked: a folder that cannot be synced is told without a round trip (openFolder checks again).
  checkFolder(root, session.config.roots, dir);
  // The account answers before anything is touched: a bad token or an unreachable server is one clear line.
  try {
    await session.client.entries.page({ perPage: 1 }, 1);
  } catch (error) {
    throw failure(error, session.server);
  }
  const config = loadConfig(session.paths);
  if (!config.roots.includes(root)) saveConfig(session.paths, { ...config, roots: [...config.roots, root] });

  const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true;
  const reporter: Reporter = process.stdout.isTTY ? new TtyReporter() : new PlainReporter();
  const run = await openSyncRun(session, root, reporter, { shown: dir });
  let question = { count: 0, synced: 0 };
  run.on('confirm-deletions', (q) => {
    question = q;
  });

  let exitCode: 0 | 1 = 0;
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  let stopping = false;
  const stop = async (code: 0 | 1, line?: string) => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    if (line) reporter.info(line);
    await run.close();
    reporter.close();
    finish();
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130); // a second Ctrl-C: leave at once
    log().info({ signal }, 'stopping');
    void stop(options.once ? 1 : 0, `stopping (${signal})`);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const refused = () =>
    `this pass would delete ${question.count} of ${question.synced} synced items; nothing was deleted: re-run with --yes to allow it`;
  /** Whether the deletions may go ahead: --yes, or the user said so on the terminal. */
  const consent = async (): Promise<boolean> => {
    if (options.yes) return true;
    if (!interactive) return false;
    reporter.suspend();
    const yes = await askYesNo(`This pass would delete ${question.count} of ${question.synced} synced items. Delete them?`);
    reporter.resume();
    return yes;
  };

  try {
    if (options.once) {
      let summary = await run.syncOnce({ fullScan: true });
      if (summary.needsConfirmation && !stopping) {
        if (await consent()) {
          run.confirmDeletions();
          summary = await run.syncOnce({ fullScan: true });
        } else {
          reporter.problem(interactive && !options.yes ? 'deletions not confirmed; nothing was deleted' : refused());
          await stop(1);
          return finishWith(1);
        }
      }
      if (!stopping) {
        reporter.info(summaryLine(summary));
        await stop(summary.inSync && summary.failed.length === 0 ? 0 : 1);
      }
    } else {
      let asking = false;
      run.on('pass', (summary) => {
        if (summary.needsConfirmation && !asking && !stopping) {
          asking = true;
          void consent().then(async (yes) => {
            asking = false;
            if (stopping) return;
            if (yes) {
              run.confirmDeletions();
              setImmediate(() => void run.syncOnce({ fullScan: true }));
            } else {
              reporter.problem(interactive && !options.yes ? 'deletions not confirmed; nothing was deleted; stopping' : refused());
              await stop(1);
            }
          });
        } else if (!summary.needsConfirmation && (summary.done > 0 || summary.failed.length > 0)) {
          reporter.info(summaryLine(summary));
        }
      });
      const first = await run.start();
      if (!stopping) {
        if (first.inSync && first.done === 0) reporter.info('in sync');
        reporter.info(`watching ${safe(root)} for changes (Ctrl-C to stop)`);
      }
    }
    await finished;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await run.close().catch(() => undefined);
    reporter.close();
  }
  finishWith(exitCode);
}

function finishWith(code: 0 | 1): void {
  if (code !== 0) throw new SilentExit(code);
}

export function registerSyncCommand(program: Command): void {
  program
    .command('sync')
    .description('keep a folder in two-way sync with the drive (foreground; Ctrl-C stops)')
    .argument('<dir>', 'the local folder')
    .option('--once', 'one full pass, then exit: 0 when in sync, 1 when items failed')
    .option('--yes', 'allow a pass that deletes many items (the mass-delete guard) without asking')
    .action((dir: string, options: SyncOptions) => runSync(dir, options));
}
