/**
 * `drivesync activity [DIR] [--json] [--follow] [--last N]`: what changed recently in the synced folders, on which
 * side (up to the drive, down to this computer, or both for a conflict), from the activity logs whoever syncs them
 * keeps (main/state/activity-log.ts). `--follow` goes on printing as things happen, until Ctrl-C.
 */
import type { Command } from 'commander';
import { activityFile, readLines, type ActivityLine } from '../../state/activity-log.js';
import { loadConfig } from '../../state/config.js';
import { statePaths, type StatePaths } from '../../state/paths.js';
import { canonicalPath, findRoot, rootOfAccount } from '../../state/roots.js';
import { emailFor, serverOf } from '../../state/server.js';
import { CliError, usageError } from '../errors.js';
import { localTime, print, safe } from '../output.js';
import { describeActivity } from '../progress.js';
import { followFiles } from '../follow-files.js';

const SIDE_WORDS = { up: 'up  ', down: 'down', both: 'both' } as const;

/** The activity files of the folders named (DIR's, or every synced folder), by folder. */
function filesOf(paths: StatePaths, dir: string | undefined): Array<{ root: string; file: string }> {
  const config = loadConfig(paths);
  const server = serverOf(config);
  if (!server) throw new CliError('not signed in: run drivesync login');
  let roots = config.roots;
  if (dir !== undefined) {
    const found = findRoot(roots, canonicalPath(dir));
    if (!found) throw new CliError(`${dir} is not in a synced folder (drivesync status lists them)`);
    roots = [found.root];
  }
  return roots.map((root) => ({ root, file: activityFile(paths, rootOfAccount(paths, root, server, emailFor(config, server)).key) }));
}

/** One line of activity as a person reads it. */
export function activityText(line: ActivityLine): string {
  const said = line.kind === 'conflict' ? `kept both versions of ${safe(line.path)} (a conflict)` : line.kind === 'merge' ? `compared ${safe(line.path)}` : describeActivity({ at: line.at, kind: line.kind, path: line.path });
  return `${localTime(line.at)}  ${SIDE_WORDS[line.side]}  ${said ?? `${line.kind} ${safe(line.path)}`}  (${safe(line.root)})`;
}

export function registerActivityCommand(program: Command): void {
  program
    .command('activity')
    .description('what changed recently in the synced folders, on which side; --follow goes on as it happens')
    .argument('[dir]', 'a synced folder (every one when none is named)')
    .option('--json', 'print JSON (with --follow: one JSON object a line)')
    .option('--follow', 'go on printing what happens, until Ctrl-C')
    .option('--last <n>', 'how many of the latest items to print first (default 50)')
    .action(async (dir: string | undefined, options: { json?: boolean; follow?: boolean; last?: string }) => {
      const last = options.last === undefined ? 50 : Number(options.last);
      if (!Number.isSafeInteger(last) || last < 0) throw usageError(`--last takes a whole number (got ${options.last})`);
      const paths = statePaths();
      const files = filesOf(paths, dir);
      const lines = files.flatMap(({ file }) => readLines(file)).sort((a, b) => a.at.localeCompare(b.at)).slice(-last || Infinity);
      const show = (line: ActivityLine) => print(options.json && options.follow ? JSON.stringify(line) : activityText(line));
      if (options.json && !options.follow) return print(JSON.stringify(last === 0 ? [] : lines, null, 2));
      if (last > 0) for (const line of lines) show(line);
      if (!options.follow) {
        if (lines.length === 0 && !options.json) print('nothing has changed yet (activity is kept while drivesync syncs: sync DIR, the window)');
        return;
      }
      await followFiles(files.map((f) => f.file), (raw) => {
        try {
          show(JSON.parse(raw) as ActivityLine);
        } catch {
          // not a whole line
        }
      });
    });
}
