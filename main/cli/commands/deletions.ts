/**
 * `drivesync deletions [DIR] [--json] [--delete | --keep]`: the deletions a synced folder holds for an answer (the
 * mass-delete guard's question), listed, and answered for whoever syncs the folder — a `sync DIR`, the window, the
 * service — or, when nothing runs, for the next start. Meanwhile everything else goes on syncing.
 */
import type { Command } from 'commander';
import { loadConfig } from '../../state/config.js';
import { answerDeletions } from '../../state/control.js';
import type { DeletionQuestion } from '../../state/folder.js';
import { statePaths, type StatePaths } from '../../state/paths.js';
import { rootOfAccount } from '../../state/roots.js';
import { emailFor, serverOf } from '../../state/server.js';
import { readStatus, type RootStatus } from '../../state/status-file.js';
import { describeDeletions } from '../deletions.js';
import { CliError, usageError } from '../errors.js';
import { humanBytes, print, printJson, safe } from '../output.js';
import { namedRoots, runner } from './control.js';

interface Waiting {
  path: string;
  /** The process that syncs the folder now, or null (the question is its last run's, asked again at the next start). */
  pid: number | null;
  question: DeletionQuestion;
}

/** How long the command waits for the running sync to take the answer up. */
const TAKE_UP_MS = 15_000;

function statusOf(paths: StatePaths, root: string): RootStatus | null {
  const config = loadConfig(paths);
  const server = serverOf(config);
  return server ? readStatus(paths, rootOfAccount(paths, root, server, emailFor(config, server)).key) : null;
}

/** The folders (all, or DIR's) whose deletions wait for an answer. */
function waiting(paths: StatePaths, dir: string | undefined): Waiting[] {
  const out: Waiting[] = [];
  for (const root of namedRoots(paths, dir)) {
    const question = statusOf(paths, root)?.deletions;
    if (question) out.push({ path: root, pid: runner(paths, root), question });
  }
  return out;
}

const items = (n: number) => `${n} item${n === 1 ? '' : 's'}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function printWaiting(list: readonly Waiting[]): void {
  if (list.length === 0) {
    print('no deletions wait for an answer');
    return;
  }
  for (const [i, w] of list.entries()) {
    if (i > 0) print();
    const who = w.pid ? `the sync in process ${w.pid} holds them; everything else goes on syncing` : 'nothing syncs this folder now; its next start asks again';
    print(`${safe(w.path)} (${who})`);
    for (const line of describeDeletions(w.question, 20)) print(`  ${line}`);
  }
  print();
  print(`answer with drivesync deletions --delete${list.length > 1 ? ' DIR' : ''} (delete them) or --keep${list.length > 1 ? ' DIR' : ''} (keep them: put back where they were deleted)`);
}

/** Writes the answer, and waits a while for the running sync to say it took it up. */
async function answer(paths: StatePaths, dir: string | undefined, choice: 'delete' | 'keep'): Promise<void> {
  const list = waiting(paths, dir);
  if (list.length === 0) throw new CliError(`no deletions wait for an answer${dir !== undefined ? ` in ${dir}` : ''} (drivesync status shows each folder)`);
  if (list.length > 1) throw usageError(`deletions wait in ${list.length} folders (${list.map((w) => safe(w.path)).join(', ')}): name one, as drivesync deletions --${choice} DIR`);
  const { path, pid, question } = list[0]!;
  const before = statusOf(paths, path)?.answer?.at ?? '';
  answerDeletions(paths, path, { answer: choice, count: question.count });
  const what = `${items(question.count)} (${humanBytes(question.bytes)})`;
  if (!pid) {
    print(`nothing syncs ${safe(path)} now: the answer is kept, and its next start ${choice === 'delete' ? 'deletes' : 'keeps'} the ${what} if they are still what waits`);
    return;
  }
  for (let waited = 0; waited < TAKE_UP_MS; waited += 200) {
    const taken = statusOf(paths, path)?.answer;
    if (taken && taken.at !== before) {
      if (!taken.taken) {
        throw new CliError(`nothing was done: the question changed meanwhile (${items(taken.asked)} wait now, not ${question.count}); drivesync deletions lists them`);
      }
      print(choice === 'delete'
        ? `deleting ${what} in ${safe(path)} (the sync in process ${pid} does it now)`
        : `keeping ${what} in ${safe(path)}: what was deleted on the drive is restored there, and what was deleted here comes back from the drive`);
      return;
    }
    await sleep(200);
  }
  print(`the answer is written; the sync in process ${pid} takes it up at its next pass`);
}

export function registerDeletionsCommand(program: Command): void {
  program
    .command('deletions')
    .description('list the deletions a synced folder holds for your answer, or answer them (--delete or --keep)')
    .argument('[dir]', 'a synced folder (every one when none is named)')
    .option('--json', 'print JSON')
    .option('--delete', 'delete them (to the drive\'s trash, or the OS trash here)')
    .option('--keep', 'keep them: put them back where they were deleted')
    .action(async (dir: string | undefined, options: { json?: boolean; delete?: boolean; keep?: boolean }) => {
      if (options.delete && options.keep) throw usageError('--delete and --keep answer the same question both ways; give one of them');
      const paths = statePaths();
      if (options.delete || options.keep) return answer(paths, dir, options.delete ? 'delete' : 'keep');
      const list = waiting(paths, dir);
      if (options.json) return printJson({ folders: list.map((w) => ({ path: w.path, running: w.pid !== null, pid: w.pid, ...w.question })) });
      printWaiting(list);
    });
}
