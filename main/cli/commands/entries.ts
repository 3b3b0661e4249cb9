/** `star|unstar PATH` and `trash [ls | restore PATH]`: the drive's stars and its trash. */
import type { Command } from 'commander';
import type { FileEntry } from '../../api/schemas.js';
import { CliError, failure, usageError } from '../errors.js';
import { log } from '../log.js';
import { humanBytes, print, printJson, printTable, safe } from '../output.js';
import { canonicalPath, findRoot, rootOfAccount } from '../../state/roots.js';
import { withMirror } from '../locate.js';
import { openSession, type Session } from '../session.js';
import { locatePath } from './share.js';

interface TrashedEntry {
  id: number;
  name: string;
  /** Path on the drive as far as it is known (the parent's synced path, else its name). */
  path: string;
  type: string;
  size: number | null;
  deletedAt: string | null;
}

/** Paths of parent folders, from the mirrors of the synced roots (the drive's root is the roots' root). */
async function parentPaths(session: Session, ids: ReadonlySet<number>): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  for (const root of session.config.roots) {
    const { mirror } = rootOfAccount(session.paths, root, session.server, session.email);
    await withMirror(mirror, (reader) => {
      for (const id of ids) {
        if (found.has(id)) continue;
        const item = reader.itemById(id);
        if (item) found.set(id, item.path);
      }
    }).catch(() => undefined);
  }
  return found;
}

async function listTrash(session: Session): Promise<TrashedEntry[]> {
  const entries: FileEntry[] = [];
  for await (const entry of session.client.entries.list({ deletedOnly: true, perPage: 1000 })) entries.push(entry);
  const parents = new Set(entries.map((e) => e.parent_id).filter((id): id is number => typeof id === 'number'));
  const known = await parentPaths(session, parents);
  return entries.map((e) => {
    const parent = e.parent_id ?? null;
    const parentPath = parent === null ? '' : (known.get(parent) ?? e.parent?.name ?? `#${parent}`);
    return {
      id: e.id,
      name: e.name,
      path: parentPath === '' ? e.name : `${parentPath}/${e.name}`,
      type: e.type,
      size: e.type === 'folder' ? null : (e.file_size ?? null),
      deletedAt: e.deleted_at ?? null,
    };
  });
}

/** A path as the trash shows it: a local path inside a synced root becomes its path relative to the root. */
function trashPath(given: string, roots: readonly string[]): string {
  const inRoot = findRoot(roots, canonicalPath(given));
  if (inRoot && inRoot.rel !== '') return inRoot.rel;
  return given.replace(/\\/g, '/').replace(/^\.?\/+/, '').replace(/\/+$/, '');
}

export function registerEntryCommands(program: Command): void {
  for (const action of ['star', 'unstar'] as const) {
    program
      .command(action)
      .description(action === 'star' ? 'star a synced file or folder' : 'remove the star of a synced file or folder')
      .argument('<path>', 'a file or folder inside a synced folder')
      .action(async (path: string) => {
        const session = await openSession();
        const item = await locatePath(session, path);
        try {
          await (action === 'star' ? session.client.entries.star([item.remoteId]) : session.client.entries.unstar([item.remoteId]));
        } catch (error) {
          throw failure(error, session.server, `${action} failed`);
        }
        log().info({ command: action, path: item.path, remoteId: item.remoteId }, action);
        print(`${action === 'star' ? 'starred' : 'unstarred'} ${safe(item.path)}`);
      });
  }

  const trash = program
    .command('trash')
    .description("the drive's trash: list it (default) or restore an entry from it");

  trash
    .command('ls', { isDefault: true })
    .description("list the drive's trash")
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const session = await openSession();
      let entries: TrashedEntry[];
      try {
        entries = await listTrash(session);
      } catch (error) {
        throw failure(error, session.server, 'listing the trash failed');
      }
      if (options.json) return printJson(entries);
      if (entries.length === 0) return print('the trash is empty');
      printTable(
        ['ID', 'DELETED', 'SIZE', 'PATH'],
        entries.map((e) => [String(e.id), e.deletedAt ?? '-', e.size === null ? 'folder' : humanBytes(e.size), safe(e.path)]),
      );
    });

  trash
    .command('restore')
    .description('restore an entry from the trash to its folder (the next sync brings it back locally)')
    .argument('<path>', 'its path on the drive as `trash ls` shows it, its name, its id, or its old local path')
    .action(async (given: string) => {
      if (given.trim() === '') throw usageError('restore needs the path, name or id of a trashed entry');
      const session = await openSession();
      try {
        const entries = await listTrash(session);
        const wanted = trashPath(given, session.config.roots);
        let matches = entries.filter((e) => e.path === wanted);
        if (matches.length === 0) matches = entries.filter((e) => e.name === wanted || e.name === given);
        if (matches.length === 0 && /^\d+$/.test(given.trim())) matches = entries.filter((e) => e.id === Number(given.trim()));
        if (matches.length === 0) throw new CliError(`nothing in the trash matches ${safe(given)} (drivesync trash ls lists it)`);
        if (matches.length > 1) {
          throw new CliError(`${matches.length} entries in the trash match ${safe(given)}: give the id (${matches.map((m) => m.id).join(', ')})`);
        }
        const entry = matches[0]!;
        await session.client.entries.restore([entry.id]);
        log().info({ command: 'trash restore', remoteId: entry.id, path: entry.path }, 'restored');
        print(`restored ${safe(entry.path)}`);
      } catch (error) {
        throw failure(error, session.server, 'restore failed');
      }
    });
}
