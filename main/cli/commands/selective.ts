/**
 * Selective sync from the command line: `drivesync exclude PATH…`, `include PATH…` and `excluded [DIR] [--json]`.
 * An exclusion is kept in the config by entry id; a running sync (or the window) follows the config and applies it.
 * While nothing runs, the command applies it itself with one pass, and says what it freed or downloaded.
 */
import type { Command } from 'commander';
import { ApiError } from '../../api/errors.js';
import { runningSync } from '../../state/control.js';
import type { PassSummary } from '../../state/folder.js';
import { canonicalPath, findRoot } from '../../state/roots.js';
import { loadDriveTree, saveSelection, selectionOf, withExcluded, withIncluded, type DriveFolder, type DriveTree } from '../../state/selection.js';
import { CliError, SilentExit } from '../errors.js';
import { inSyncedFolder } from '../locate.js';
import { humanBytes, note, print, printJson, safe } from '../output.js';
import { PlainReporter } from '../progress.js';
import { driveTree, folderAt, sharedPlaceOf, size } from '../selection.js';
import { openSession, type Session } from '../session.js';
import { openSyncRun, summaryLine } from './sync.js';

/** The synced folder a path lies in, and the path inside it; a one-line failure otherwise. */
async function rootOf(session: Session, given: string): Promise<{ root: string; rel: string }> {
  const itself = `${given} is the synced folder itself; name a folder inside it (drivesync remove stops syncing the whole folder)`;
  const { root, rel } = await inSyncedFolder(session.config.roots, given, itself);
  return { root, rel };
}

/** Runs one pass of the folder here (nothing else syncs it), telling what it removes or downloads. */
async function applyNow(session: Session, root: string, shown: string): Promise<PassSummary> {
  const reporter = new PlainReporter();
  const run = await openSyncRun(session, root, reporter, { shown });
  try {
    return await run.syncOnce({ fullScan: true });
  } finally {
    await run.close();
    reporter.close();
  }
}

/** What to say after a pass that applied a selection change; exit status 1 when it did not finish. */
function finish(summary: PassSummary): void {
  if (summary.needsConfirmation) {
    throw new CliError('the change is made; the folder also has deletions waiting for an answer (drivesync deletions lists them and answers)');
  }
  if (summary.offline) throw new CliError('offline: the server cannot be reached; the change is kept and applied at the next sync');
  note(summaryLine(summary));
  if (!summary.inSync) throw new SilentExit(1);
}

/** The paths a command names, by the synced folder each lies in. */
async function byRoot(session: Session, paths: readonly string[]): Promise<Map<string, Array<{ rel: string; given: string }>>> {
  const out = new Map<string, Array<{ rel: string; given: string }>>();
  for (const given of paths) {
    const { root, rel } = await rootOf(session, given);
    out.set(root, [...(out.get(root) ?? []), { rel, given }]);
  }
  return out;
}

/**
 * Excludes or includes folders, per synced folder: each named folder changes the selection (or is said to need no
 * change), the config is written once, what changed is told, and the change is applied.
 */
async function changeSelection(
  paths: readonly string[],
  change: (tree: DriveTree, excluded: ReadonlySet<number>, folder: DriveFolder, given: string) => Set<number> | null,
  told: (tree: DriveTree, folder: DriveFolder) => string,
  applied: string,
): Promise<void> {
  const session = await openSession();
  for (const [root, wanted] of await byRoot(session, paths)) {
    let excluded = selectionOf(session.config, root).excluded;
    const tree = await driveTree(session, excluded, root);
    const changed: DriveFolder[] = [];
    for (const { rel, given } of wanted) {
      const folder = folderAt(tree, rel, given);
      const next = change(tree, excluded, folder, given);
      if (!next) continue;
      excluded = next;
      changed.push(folder);
    }
    if (changed.length === 0) continue;
    saveSelection(session.paths, root, (own) => ({ ...own, excluded: [...excluded] }));
    for (const f of changed) print(told(tree, f));
    await applyHere(session, root, applied);
  }
}

const exclude = (paths: string[]) =>
  changeSelection(
    paths,
    (tree, excluded, folder, given) => {
      if (!folder.excluded) return withExcluded(tree, excluded, folder.id);
      const by = tree.ancestry(folder.id).find((f) => f.excludedHere)!;
      note(by.id === folder.id ? `${safe(given)} is already excluded` : `${safe(given)} is already left out: ${safe(by.path)} is excluded`);
      return null;
    },
    (_tree, f) => `excluded ${safe(f.path)} (${size(f)} on the drive)`,
    'removes its copy here once everything in it is on the drive',
  );

const include = (paths: string[]) =>
  changeSelection(
    paths,
    (tree, excluded, folder, given) => {
      if (folder.excluded) return withIncluded(tree, excluded, folder.id);
      note(`${safe(given)} is not excluded`);
      return null;
    },
    (tree, f) => {
      const partly = tree.ancestry(f.id).filter((a) => a.id !== f.id && a.excludedHere);
      const with_ = partly.length > 0 ? `; ${partly.map((a) => safe(a.path)).join(', ')} comes back with only it inside` : '';
      return `included ${safe(f.path)} (${size(f)} to download${with_})`;
    },
    'downloads it',
  );

/** A running sync applies the change (it follows the config); otherwise one pass here does. */
async function applyHere(session: Session, root: string, what: string): Promise<void> {
  const running = runningSync(session.paths, root, session.server, session.email);
  if (running !== null) {
    note(`the running sync of ${safe(root)} (process ${running}) ${what}`);
    return;
  }
  finish(await applyNow(session, root, root));
}

interface ExcludedRow {
  id: number;
  /** Where it is on the drive now (it follows renames and moves); null when it is no longer on the drive. */
  path: string | null;
  bytes: number | null;
  files: number | null;
}

async function listExcluded(dir: string | undefined, options: { json?: boolean }): Promise<void> {
  const session = await openSession();
  const roots = dir === undefined ? session.config.roots : [rootOfDir(session, dir)];
  let tree: DriveTree | null = null;
  let unreachable: string | null = null;
  const all = new Set(roots.flatMap((root) => [...selectionOf(session.config, root).excluded]));
  if (all.size > 0) {
    try {
      tree = await loadDriveTree(session.client, all, undefined, sharedPlaceOf(session, roots[0]));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      unreachable = error.summary;
    }
  }
  const result = roots.map((root) => {
    const selection = selectionOf(session.config, root);
    const excluded: ExcludedRow[] = [...selection.excluded].map((id) => {
      const f = tree?.folders.get(id);
      return { id, path: f?.path ?? null, bytes: f?.bytes ?? null, files: f?.files ?? null };
    });
    excluded.sort((a, b) => (a.path ?? '').localeCompare(b.path ?? ''));
    return { root, newFolders: selection.newFolders ?? 'sync', excluded };
  });
  if (options.json) return printJson({ roots: result, ...(unreachable ? { error: `cannot list the drive: ${unreachable}` } : {}) });
  if (unreachable) note(`cannot list the drive (${safe(unreachable)}): showing entry ids only`);
  if (result.length === 0) print('no folder is synced yet (drivesync sync DIR syncs one)');
  for (const r of result) {
    print(safe(r.root));
    if (r.excluded.length === 0) print('  nothing excluded: every folder of the drive is synced here');
    for (const e of r.excluded) {
      if (e.path === null) print(`  ${unreachable ? `entry ${e.id}` : `entry ${e.id} (no longer on the drive)`}`);
      else print(`  ${safe(e.path)}/  ${humanBytes(e.bytes!)}, ${e.files} file${e.files === 1 ? '' : 's'}`);
    }
    if (r.newFolders === 'exclude') print('  new folders made elsewhere are left out until included (drivesync sync DIR --new-folders sync changes it)');
  }
}

function rootOfDir(session: Session, dir: string): string {
  const found = findRoot(session.config.roots, canonicalPath(dir));
  if (!found) throw new CliError(`${dir} is not in a synced folder (drivesync status lists them)`);
  return found.root;
}

export function registerSelectiveCommands(program: Command): void {
  program
    .command('exclude')
    .description("leave folders of the drive out of this computer (their copy here goes once everything in it is on the drive)")
    .argument('<path...>', 'folders inside a synced folder (present here or not)')
    .action((paths: string[]) => exclude(paths));
  program
    .command('include')
    .description('sync excluded folders here again (they are downloaded)')
    .argument('<path...>', 'folders inside a synced folder')
    .action((paths: string[]) => include(paths));
  program
    .command('excluded')
    .description('list the folders each synced folder leaves out, with their size on the drive')
    .argument('[dir]', 'a synced folder (every one when none is named)')
    .option('--json', 'print JSON')
    .action((dir: string | undefined, options: { json?: boolean }) => listExcluded(dir, options));
}
