/**
 * `drivesync sync DIR [--once] [--yes]`: the engine on one folder, in the foreground. It keeps a small status file
 * per root under the state dir so `drivesync status` can say how the folder is doing.
 */
import type { Command } from 'commander';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { hostname } from 'node:os';
import { createInterface } from 'node:readline/promises';
import type { Activity, EngineState, PassSummary, SyncEngine } from '../../sync/engine.js';
import { loadConfig, saveConfig } from '../config.js';
import { CliError, failure, SilentExit } from '../errors.js';
import { log } from '../log.js';
import { safe } from '../output.js';
import { PlainReporter, TtyReporter, type Reporter } from '../progress.js';
import { canonicalPath, findRoot, isAlive, readStatus, rootOfAccount, writeStatus, type RootStatus } from '../roots.js';
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

/** One `sync` per root at a time: a lock file holding the pid, taken over when that process is gone. */
function lockRoot(file: string, root: string): () => void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number(readFileSync(file, 'utf8').trim());
      if (isAlive(pid) && pid !== process.pid) throw new CliError(`${root} is already being synced by process ${pid}`);
      rmSync(file, { force: true });
    }
  }
  throw new CliError(`cannot lock ${root} for syncing`);
}

/** Checks the folder and refuses roots nested in one another (each mirrors the whole drive). */
function checkFolder(dir: string, root: string, roots: readonly string[]): void {
  let info;
  try {
    info = statSync(root);
  } catch {
    throw new CliError(`${dir} does not exist; create the folder first`);
  }
  if (!info.isDirectory()) throw new CliError(`${dir} is not a folder`);
  for (const other of roots) {
    if (other === root) continue;
    if (findRoot([other], root)) throw new CliError(`${dir} is inside the synced folder ${other}; sync one or the other`);
    if (findRoot([root], other)) throw new CliError(`${dir} contains the synced folder ${other}; sync one or the other`);
  }
}

export interface SyncRun {
  engine: SyncEngine;
  status: RootStatus;
  /** Writes the status file now. */
  flush(): void;
  /** Stops the engine, writes the final status, releases the lock. */
  close(): Promise<void>;
}

/**
 * Prepares the engine on a root and wires its events to a reporter and the status file (shared by `sync` and
 * `demo`).
 */
export async function openSyncRun(session: Session, root: string, reporter: Reporter, options: { pollIntervalMs?: number } = {}): Promise<SyncRun> {
  const { paths, server, email, client } = session;
  const { key, mirror } = rootOfAccount(session.paths, root, server, email);
  const unlock = lockRoot(`${mirror}.lock`, root);
  const { SyncEngine } = await import('../../sync/engine.js');
  const { moveToOsTrash } = await import('../../sync/trash.js');
  let engine: SyncEngine;
  try {
    engine = new SyncEngine({
      root,
      client,
      mirrorPath: mirror,
      trash: moveToOsTrash,
      hostname: hostname(),
      pollIntervalMs: options.pollIntervalMs ?? session.config.pollIntervalSeconds * 1000,
    });
  } catch (error) {
    unlock();
    throw new CliError(`cannot open the sync database ${mirror}: ${(error as Error).message.split('\n')[0]}`);
  }

  const previous = readStatus(paths, key);
  const status: RootStatus = {
    root,
    server,
    email: email ?? null,
    state: engine.state,
    detail: null,
    pid: process.pid,
    updatedAt: new Date().toISOString(),
    lastSync: previous?.lastSync ?? null,
    inSync: previous?.inSync ?? null,
    counts: { synced: engine.syncedCount, done: 0, failed: 0 },
    errors: [],
  };
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    status.updatedAt = new Date().toISOString();
    status.counts.synced = engine.syncedCount;
    try {
      writeStatus(paths, key, status);
    } catch (error) {
      log().warn({ err: (error as Error).message }, 'cannot write the status file');
    }
  };
  const soon = () => {
    timer ??= setTimeout(flush, 250);
  };

  const shown = new Set<string>();
  const problem = (path: string, message: string) => {
    const line = path ? `${safe(path)}: ${safe(message)}` : safe(message);
    if (shown.has(line)) return;
    shown.add(line);
    reporter.problem(line);
  };

  engine.on('state', (state: EngineState, detail?: string) => {
    log().info({ root, state, detail }, 'state');
    status.state = state;
    status.detail = detail ?? null;
    reporter.state(state, detail);
    soon();
  });
  engine.on('activity', (activity: Activity) => {
    log().info({ root, kind: activity.kind, path: activity.path, rule: activity.rule }, 'done');
    reporter.activity(activity);
  });
  engine.on('transfer', (event) => reporter.transfer(event));
  engine.on('notice', (message) => {
    log().info({ root, message }, 'notice');
    reporter.info(safe(message));
  });
  engine.on('item-error', (error) => {
    log().warn({ root, path: error.path, message: error.message }, 'item error');
    status.errors = [error, ...status.errors.filter((e) => e.path !== error.path)].slice(0, 50);
    problem(error.path, error.message);
    soon();
  });
  engine.on('pass', (summary: PassSummary) => {
    log().info({ root, done: summary.done, failed: summary.failed.length, inSync: summary.inSync, needsConfirmation: summary.needsConfirmation }, 'pass');
    for (const f of summary.failed) problem(f.path, f.message);
    status.lastSync = new Date().toISOString();
    status.inSync = summary.inSync;
    status.counts.done = summary.done;
    status.counts.failed = summary.failed.length;
    if (summary.inSync && summary.failed.length === 0) {
      status.errors = [];
      // A problem that comes back after a clean pass is told again.
      shown.clear();
    }
    reporter.passEnded(summary);
    flush();
  });
  flush();

  let closed = false;
  return {
    engine,
    status,
    flush,
    close: async () => {
      if (closed) return;
      closed = true;
      await engine.stop();
      status.state = 'stopped';
      status.detail = null;
      flush();
      unlock();
    },
  };
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
  checkFolder(dir, root, session.config.roots);
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
  const run = await openSyncRun(session, root, reporter);
  const { engine } = run;
  let question = { count: 0, synced: 0 };
  engine.on('confirm-deletions', (q) => {
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
      let summary = await engine.syncOnce({ fullScan: true });
      if (summary.needsConfirmation && !stopping) {
        if (await consent()) {
          engine.confirmDeletions();
          summary = await engine.syncOnce({ fullScan: true });
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
      engine.on('pass', (summary) => {
        if (summary.needsConfirmation && !asking && !stopping) {
          asking = true;
          void consent().then(async (yes) => {
            asking = false;
            if (stopping) return;
            if (yes) {
              engine.confirmDeletions();
              setImmediate(() => void engine.syncOnce({ fullScan: true }));
            } else {
              reporter.problem(interactive && !options.yes ? 'deletions not confirmed; nothing was deleted; stopping' : refused());
              await stop(1);
            }
          });
        } else if (!summary.needsConfirmation && (summary.done > 0 || summary.failed.length > 0)) {
          reporter.info(summaryLine(summary));
        }
      });
      const first = await engine.start();
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
