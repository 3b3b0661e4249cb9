/**
 * `drivesync check DIR [--sample N] [--repair] [--json]`: the ground truth of a synced folder. Every synced file's
 * bytes here are compared with the drive's (as rclone's `check --download` does), with a progress bar on a terminal;
 * a check stopped by Ctrl-C or a crash goes on where it stopped when run again. `--repair` settles each difference as
 * a conflict at the next pass, made at once: both versions are kept, nothing is overwritten.
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import { checkSyncedFolder, type CheckFinding, type CheckProgress, type CheckReport } from '../../state/check-folder.js';
import { canonicalPath, findRoot, rootOfAccount } from '../../state/roots.js';
import { CliError, failure, SilentExit, usageError } from '../errors.js';
import { humanBytes, localTime, print, printJson, safe } from '../output.js';
import { PlainReporter, TtyReporter } from '../progress.js';
import { openSession, type Session } from '../session.js';
import { openSyncRun } from './sync.js';

interface CheckOptions {
  sample?: string;
  repair?: boolean;
  json?: boolean;
  fromStart?: boolean;
}

const KIND_WORDS: Record<CheckFinding['kind'], string> = {
  different: 'different bytes',
  'only-here': 'only here',
  'only-on-drive': 'only on the drive',
};

function sampleOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw usageError(`--sample takes a number of files from 1 (got ${text})`);
  return n;
}

/** The synced folder DIR is, and its mirror for the signed-in account; a folder never synced has nothing to check. */
function syncedFolder(session: Session, dir: string): { root: string; mirror: string } {
  const root = canonicalPath(dir);
  const known = findRoot(session.config.roots, root);
  if (!known || known.rel !== '') {
    throw new CliError(
      known ? `${safe(dir)} is inside the synced folder ${safe(known.root)}: check that folder` : `${safe(dir)} is not a synced folder (drivesync status lists them)`,
    );
  }
  const { mirror } = rootOfAccount(session.paths, root, session.server, session.email);
  if (!existsSync(mirror)) throw new CliError(`${safe(dir)} has not been synced with this account yet: nothing to check`);
  return { root, mirror };
}

/** A bar on a terminal; elsewhere a line at each tenth of the way. */
function progressView(json: boolean): { update(p: CheckProgress): void; stop(): void } {
  if (json) return { update: () => undefined, stop: () => undefined };
  if (!process.stderr.isTTY) {
    let shown = -1;
    return {
      update: (p) => {
        const tenth = p.total === 0 ? 10 : Math.floor((p.checked / p.total) * 10);
        if (tenth === shown) return;
        shown = tenth;
        process.stderr.write(`checked ${p.checked} of ${p.total} files (${humanBytes(p.bytes)})\n`);
      },
      stop: () => undefined,
    };
  }
  const bar = new cliProgress.SingleBar(
    { format: 'checking {bar} {percentage}% | {value}/{total} files | {compared} | {left}', hideCursor: true, clearOnComplete: true, stream: process.stderr },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  const began = Date.now();
  let from = 0;
  // Time left from this run's own pace (a check that goes on from a stopped one did not take the time of the rest).
  const left = (p: CheckProgress) => {
    const done = p.checked - from;
    if (done <= 0 || p.checked >= p.total) return 'time left --';
    const seconds = ((Date.now() - began) / done) * (p.total - p.checked) / 1000;
    return `time left ${seconds < 60 ? `${Math.ceil(seconds)} s` : `${Math.ceil(seconds / 60)} min`}`;
  };
  return {
    update: (p) => {
      if (!started) {
        from = p.checked;
        bar.start(p.total, p.checked, { compared: humanBytes(p.bytes), left: left(p) });
      }
      started = true;
      bar.update(p.checked, { compared: humanBytes(p.bytes), left: left(p) });
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
}

function printFindings(report: CheckReport): void {
  const resumed = report.resumedAt !== undefined ? ` (going on from ${report.resumedAt}, begun ${localTime(report.startedAt)})` : '';
  const what = report.sample !== null ? `${report.checked} of a sample of ${report.total} files` : `${report.checked} of ${report.total} synced files`;
  for (const kind of ['different', 'only-here', 'only-on-drive'] as const) {
    const found = report.findings.filter((f) => f.kind === kind);
    if (found.length === 0) continue;
    print(`${KIND_WORDS[kind]} (${found.length}):`);
    for (const f of found) print(`  ${safe(f.path)}: ${safe(f.detail)}`);
  }
  const differences = report.findings.length;
  print(
    `checked ${what}, ${humanBytes(report.bytes)} compared${resumed}: ` +
      (differences === 0 ? 'the same here and on the drive' : `${differences} difference${differences === 1 ? '' : 's'}`),
  );
}

/** Settles the differences as conflicts in one sync pass of the folder (which must not be syncing elsewhere now). */
async function repair(session: Session, root: string, dir: string, findings: readonly CheckFinding[], json: boolean): Promise<boolean> {
  const changedOnBoth = findings.filter((f) => f.kind === 'different').map((f) => f.remoteId);
  const forget = findings.filter((f) => f.kind !== 'different').map((f) => f.remoteId);
  const reporter = json ? new PlainReporter() : process.stdout.isTTY ? new TtyReporter() : new PlainReporter();
  const folder = await openSyncRun(session, root, json ? quietReporter() : reporter, { shown: dir, settleChecked: { changedOnBoth, forget } });
  try {
    let summary = await folder.syncOnce({ fullScan: true });
    for (let pass = 0; pass < 2 && !summary.inSync && summary.failed.length === 0 && !summary.needsConfirmation; pass++) summary = await folder.syncOnce();
    return summary.inSync;
  } finally {
    await folder.close();
    reporter.close();
  }
}

const quietReporter = () => ({
  state: () => undefined,
  activity: () => undefined,
  transfer: () => undefined,
  info: () => undefined,
  problem: (line: string) => process.stderr.write(`drivesync: ${line}\n`),
  passEnded: () => undefined,
  suspend: () => undefined,
  resume: () => undefined,
  close: () => undefined,
});

async function runCheck(dir: string, options: CheckOptions): Promise<void> {
  const sample = sampleOf(options.sample);
  const json = options.json === true;
  const session = await openSession();
  const { root, mirror } = syncedFolder(session, dir);
  const stop = new AbortController();
  const onSignal = () => {
    if (stop.signal.aborted) process.exit(130);
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const view = progressView(json);
  let report: CheckReport;
  try {
    report = await checkSyncedFolder({
      root,
      mirror,
      client: session.client,
      ...(sample !== undefined ? { sample } : {}),
      ...(options.fromStart ? { fromStart: true } : {}),
      signal: stop.signal,
      onProgress: (p) => view.update(p),
    });
  } catch (error) {
    throw failure(error, session.server, 'the check stopped (run it again to go on)');
  } finally {
    view.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  const differences = report.findings.map((f) => ({ kind: f.kind, path: f.path, detail: f.detail }));
  if (!report.complete) {
    if (json) printJson({ complete: false, checked: report.checked, total: report.total, bytes: report.bytes, differences });
    else print(`stopped after ${report.checked} of ${report.total} files: run drivesync check ${safe(dir)} again to go on`);
    throw new SilentExit(1);
  }
  let repaired: boolean | null = null;
  if (options.repair && report.findings.length > 0) repaired = await repair(session, root, dir, report.findings, json);
  if (json) printJson({ complete: true, checked: report.checked, total: report.total, bytes: report.bytes, differences, repaired });
  else {
    printFindings(report);
    if (repaired === true) print('repaired: every difference is now a conflict settled on both sides (both versions kept), and the folder is in sync');
    if (repaired === false) print('repaired in part: the folder is not in sync yet (drivesync status says why)');
  }
  if (report.findings.length > 0 && repaired !== true) throw new SilentExit(1);
}

export function registerCheckCommand(program: Command): void {
  program
    .command('check')
    .description("compare every synced file's bytes here with the drive's, and list what differs; --repair keeps both versions of each")
    .argument('<dir>', 'a synced folder')
    .option('--sample <n>', 'check this many files picked at random')
    .option('--repair', 'settle each difference as a conflict: both versions are kept, nothing is overwritten')
    .option('--from-start', 'start over instead of going on with a check that was stopped')
    .option('--json', 'print JSON')
    .action(async (dir: string, options: CheckOptions) => runCheck(dir, options));
}
