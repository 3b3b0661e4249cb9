/**
 * `drivesync sync DIR --dry-run [--json]`: what one pass would do — each upload, download, move, rename, deletion on
 * either side and conflict, with counts and bytes — changing nothing: not the folder, not the drive, not the mirror,
 * not the config (the folder is not added to the synced folders).
 */
import { ApiError } from '../../api/errors.js';
import { dryRunFolder, type DryRunItem, type DryRunKind, type DryRunReport } from '../../state/dry-run.js';
import { canonicalPath, checkFolder } from '../../state/roots.js';
import { failure } from '../errors.js';
import { humanBytes, print, printJson, safe } from '../output.js';
import { openSession } from '../session.js';

/** Each kind in a few words, in the order a person reads them. */
const WORDS: Record<DryRunKind, [one: string, many: string]> = {
  upload: ['upload', 'uploads'],
  'upload-new-version': ['new version to upload', 'new versions to upload'],
  'create-folder-on-drive': ['folder to make on the drive', 'folders to make on the drive'],
  download: ['download', 'downloads'],
  'create-folder-here': ['folder to make here', 'folders to make here'],
  'rename-on-drive': ['rename on the drive', 'renames on the drive'],
  'move-on-drive': ['move on the drive', 'moves on the drive'],
  'move-here': ['move or rename here', 'moves or renames here'],
  'delete-on-drive': ["item to delete on the drive (to its trash)", "items to delete on the drive (to its trash)"],
  'delete-here': ['item to delete here (to the OS trash)', 'items to delete here (to the OS trash)'],
  conflict: ['conflict (a copy is kept)', 'conflicts (a copy is kept each)'],
  compare: ['file new on both sides, compared (a copy is kept when they differ)', 'files new on both sides, compared (a copy is kept when they differ)'],
};

/** What each item's line starts with. */
const VERB: Record<DryRunKind, string> = {
  upload: 'upload',
  'upload-new-version': 'upload new version',
  'create-folder-on-drive': 'make folder on the drive',
  download: 'download',
  'create-folder-here': 'make folder here',
  'rename-on-drive': 'rename on the drive',
  'move-on-drive': 'move on the drive',
  'move-here': 'move here',
  'delete-on-drive': 'delete on the drive',
  'delete-here': 'delete here',
  conflict: 'conflict',
  compare: 'compare',
};

/** Items listed in the text output; --json lists all. */
const SHOWN = 200;

export async function runDryRun(dir: string, options: { json?: boolean }): Promise<void> {
  const session = await openSession({ retry: { limit: 3, baseDelayMs: 500 } });
  const root = canonicalPath(dir);
  checkFolder(root, session.config.roots, dir);
  let report: DryRunReport;
  try {
    report = await dryRunFolder(root, session);
  } catch (error) {
    if (error instanceof ApiError) throw failure(error, session.server);
    throw error;
  }
  if (options.json) return printJson({ dryRun: true, folders: [{ path: root, ...report }] });
  printReport(dir, report);
}

const bytesOf = (kind: DryRunKind) => kind === 'upload' || kind === 'upload-new-version' || kind === 'download' || kind.startsWith('delete');

function printReport(dir: string, report: DryRunReport): void {
  print(`dry run of ${safe(dir)}: nothing was changed (${report.synced} items synced now)`);
  const kinds = (Object.keys(WORDS) as DryRunKind[]).filter((kind) => report.totals[kind]);
  if (kinds.length === 0) print('  in sync: a pass would change nothing');
  for (const kind of kinds) {
    const { count, bytes } = report.totals[kind]!;
    print(`  ${String(count).padStart(7)} ${WORDS[kind][count === 1 ? 0 : 1]}${bytesOf(kind) ? ` (${humanBytes(bytes)})` : ''}`);
  }
  if (report.deletionsAsked !== null) {
    print(`  the ${report.deletionsAsked} deletions would wait for your answer (the mass-delete guard); everything else would be done`);
  }
  if (report.items.length > 0) print();
  for (const item of report.items.slice(0, SHOWN)) print(`  ${line(item)}`);
  if (report.items.length > SHOWN) print(`  and ${report.items.length - SHOWN} more (--json lists them all)`);
  for (const skip of report.skipped.slice(0, 20)) print(`  left out: ${safe(skip.path)}: ${safe(skip.reason)}`);
  for (const problem of report.unreadable.slice(0, 20)) print(`  cannot be read: ${safe(problem.path)}: ${safe(problem.message)}`);
}

function line(item: DryRunItem): string {
  const to = item.to !== undefined ? ` → ${safe(item.to)}` : '';
  const size = bytesOf(item.kind) ? ` (${item.count > 1 ? `${item.count} items, ` : ''}${humanBytes(item.bytes)})` : '';
  return `${VERB[item.kind].padEnd(24)} ${safe(item.path)}${to}${size}`;
}
