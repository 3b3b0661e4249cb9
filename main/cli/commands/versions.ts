/** `versions PATH [--restore N]`: a file's earlier versions, and bringing one back. */
import type { Command } from 'commander';
import type { FileEntry } from '../../api/schemas.js';
import { currentFile, restoreVersion, versionsOf } from '../../api/versions.js';
import { CliError, failure, usageError } from '../errors.js';
import { log } from '../log.js';
import { humanBytes, localTime, note, print, printJson, printTable, safe } from '../output.js';
import { isKeepDays, loadConfig, saveConfig } from '../../state/config.js';
import { statePaths } from '../../state/paths.js';
import { openSession } from '../session.js';
import { locatePath } from './share.js';

/** A version as `versions --json` prints it; `number` is what `--restore` takes (1 is the newest earlier version). */
export interface VersionLine {
  number: number;
  id: number;
  size: number | null;
  /** When this content was saved (its upload). */
  savedAt: string | null;
  /** When a newer version replaced it. */
  replacedAt: string | null;
}

export function versionLines(versions: readonly FileEntry[]): VersionLine[] {
  return versions.map((v, i) => ({ number: i + 1, id: v.id, size: v.file_size ?? null, savedAt: v.created_at ?? null, replacedAt: v.deleted_at ?? null }));
}

function versionNumber(text: string, count: number, shown: string): number {
  const n = /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
  if (count === 0) throw new CliError(`${shown} has no earlier versions`);
  if (!Number.isInteger(n) || n < 1 || n > count) throw usageError(`--restore takes a version number from 1 to ${count} (drivesync versions ${shown} lists them)`);
  return n;
}

/** Shows or sets how long earlier versions are kept (the engines of running syncs read it when they look). */
function keepSetting(given: string | undefined, json: boolean): void {
  const paths = statePaths();
  const config = loadConfig(paths);
  if (given !== undefined) {
    const text = given.trim().toLowerCase().replace(/d(ays?)?$/, '');
    const days = text === 'forever' ? undefined : Number(text);
    if (days !== undefined && !isKeepDays(days)) throw usageError(`--keep takes a whole number of days from 1, or forever (got ${given})`);
    const { keepVersionsDays: _old, ...rest } = config;
    saveConfig(paths, days === undefined ? rest : { ...rest, keepVersionsDays: days });
    config.keepVersionsDays = days;
  }
  const days = config.keepVersionsDays;
  if (json) return printJson({ keepVersionsDays: days ?? null });
  print(
    days === undefined
      ? "earlier versions are kept until the drive's trash is emptied (drivesync versions --keep DAYS to delete them after a time)"
      : `earlier versions are deleted for good ${days} day${days === 1 ? '' : 's'} after a newer one replaced them; a file's newest version is always kept`,
  );
}

export function registerVersionCommands(program: Command): void {
  program
    .command('versions')
    .description("a file's earlier versions, newest first (each save makes one); --restore N makes version N the current one")
    .argument('[path]', 'a file inside a synced folder')
    .option('--restore <n>', 'make version N the content of the file on the drive, and so on every computer')
    .option('--keep <days>', "how long earlier versions are kept: a number of days, or 'forever' (the default); without a path")
    .option('--json', 'print JSON')
    .action(async (path: string | undefined, options: { restore?: string; keep?: string; json?: boolean }) => {
      if (options.keep !== undefined || path === undefined) {
        if (path !== undefined || options.restore !== undefined) throw usageError('--keep is a setting of its own: drivesync versions --keep DAYS|forever');
        return keepSetting(options.keep, options.json === true);
      }
      const session = await openSession();
      const item = await locatePath(session, path);
      const shown = safe(item.shown);
      if (item.type === 'folder') throw new CliError(`${shown} is a folder: versions are kept for each file (drivesync versions FILE)`);
      const current = await currentFile(session.client, { id: item.remoteId, parentId: item.parentId, name: item.remoteName });
      if (!current) throw new CliError(`${shown} is no longer on the drive (run drivesync sync ${safe(item.root)})`);
      let versions: FileEntry[];
      try {
        versions = await versionsOf(session.client, { id: current.id, parentId: current.parent_id ?? null, name: current.name });
      } catch (error) {
        throw failure(error, session.server, 'listing the versions failed');
      }
      if (options.restore !== undefined) {
        const n = versionNumber(options.restore, versions.length, shown);
        const chosen = versions[n - 1]!;
        try {
          await restoreVersion(session.client, current, chosen, (message) => note(message));
        } catch (error) {
          throw failure(error, session.server, `restoring version ${n} failed`);
        }
        log().info({ command: 'versions --restore', path: item.path, version: chosen.id, replaced: current.id }, 'version restored');
        print(`${shown} is version ${n} again (saved ${localTime(chosen.created_at)}); what it held until now is version 1`);
        print('every computer syncing it gets this content at its next poll');
        return;
      }
      const lines = versionLines(versions);
      if (options.json) return printJson({ path: item.path, current: { id: current.id, size: current.file_size ?? null, savedAt: current.created_at ?? null }, versions: lines });
      print(`${shown}: saved ${localTime(current.created_at)}, ${humanBytes(current.file_size ?? NaN)} (current)`);
      if (lines.length === 0) return print('no earlier versions');
      printTable(
        ['N', 'SAVED', 'SIZE', 'REPLACED'],
        lines.map((l) => [String(l.number), localTime(l.savedAt), l.size === null ? '?' : humanBytes(l.size), localTime(l.replacedAt)]),
      );
      print(`drivesync versions ${shown} --restore N brings one back`);
    });
}
