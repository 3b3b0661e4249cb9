/** `star|unstar PATH` and `trash [ls | restore PATH]`: the drive's stars and its trash. */
import type { Command } from 'commander';
import picomatch from 'picomatch';
import type { FileEntry } from '../../api/schemas.js';
import { CliError, failure, usageError } from '../errors.js';
import { log } from '../log.js';
import { findEntry } from '../../api/carry.js';
import { restoreEntries, restoreVersion, sortTrash } from '../../api/versions.js';
import { humanBytes, localTime, note, print, printJson, printTable, safe } from '../output.js';
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

/** The drive's trash, deletions and earlier versions apart (main/api/versions.ts says which is which). */
interface Trash {
  /** Every entry below, and every file a version is of, as listed. */
  byId: Map<number, FileEntry>;
  deletions: TrashedEntry[];
  versions: Array<TrashedEntry & { of: number; current: boolean }>;
}

async function readTrash(session: Session): Promise<Trash> {
  const { deletions, versions } = await sortTrash(session.client);
  const all = [...deletions, ...versions.map((v) => v.entry)];
  const parents = new Set(all.map((e) => e.parent_id).filter((id): id is number => typeof id === 'number'));
  const known = await parentPaths(session, parents);
  const shown = (e: FileEntry): TrashedEntry => {
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
  };
  const byId = new Map([...all, ...versions.map((v) => v.of)].map((e) => [e.id, e]));
  return { byId, deletions: deletions.map(shown), versions: versions.map((v) => ({ ...shown(v.entry), of: v.of.id, current: v.current })) };
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
      .action(async (path: string) => starOrUnstar(action, path));
  }

  const trash = program
    .command('trash')
    .description("the drive's trash: list it (default) or restore an entry from it");

  trash
    .command('ls', { isDefault: true })
    .description("list what was deleted (earlier versions of files are kept in the drive's trash too: --versions)")
    .option('--versions', 'list the earlier versions of files instead (drivesync versions FILE shows one file\'s)')
    .option('--json', 'print JSON')
    .action(listTrash);

  trash
    .command('restore')
    .description('restore entries from the trash to their folders (the next sync brings them back here)')
    .argument('[paths...]', 'paths on the drive as `trash ls` shows them (globs such as "Archive/*" too), names, ids, or old local paths')
    .option('--since <time>', 'restore what this computer moved to the trash in that time (30s, 10m, 2h, 1d)')
    .action(restoreFromTrash);
}

/** `star|unstar PATH`. */
async function starOrUnstar(action: 'star' | 'unstar', path: string): Promise<void> {
  const session = await openSession();
  const item = await locatePath(session, path);
  try {
    await (action === 'star' ? session.client.entries.star([item.remoteId]) : session.client.entries.unstar([item.remoteId]));
  } catch (error) {
    throw failure(error, session.server, `${action} failed`);
  }
  log().info({ command: action, path: item.path, remoteId: item.remoteId }, action);
  print(`${action === 'star' ? 'starred' : 'unstarred'} ${safe(item.path)}`);
}

/** `trash [ls] [--versions] [--json]`. */
async function listTrash(options: { json?: boolean; versions?: boolean }): Promise<void> {
  const session = await openSession();
  let trash: Trash;
  try {
    trash = await readTrash(session);
  } catch (error) {
    throw failure(error, session.server, 'listing the trash failed');
  }
  if (options.versions) return printTrashedVersions(trash, options.json === true);
  if (options.json) return printJson(trash.deletions);
  if (trash.deletions.length === 0) {
    return print(trash.versions.length === 0 ? 'the trash is empty' : `nothing deleted; ${trash.versions.length} earlier versions of files (--versions)`);
  }
  printTable(
    ['ID', 'DELETED', 'SIZE', 'PATH'],
    trash.deletions.map((e) => [String(e.id), localTime(e.deletedAt), e.size === null ? 'folder' : humanBytes(e.size), safe(e.path)]),
  );
}

function printTrashedVersions(trash: Trash, json: boolean): void {
  if (json) return printJson(trash.versions);
  if (trash.versions.length === 0) return print('no earlier versions in the trash');
  return printTable(
    ['ID', 'REPLACED', 'SIZE', 'PATH', 'OF'],
    trash.versions.map((v) => [String(v.id), localTime(v.deletedAt), v.size === null ? '?' : humanBytes(v.size), safe(v.path), v.current ? 'a file on the drive' : 'a deleted file']),
  );
}

/** What `trash restore` was asked for: deleted entries by id, and earlier versions by id. */
interface Chosen {
  entries: Map<number, TrashedEntry>;
  versions: Map<number, Trash['versions'][number]>;
}

/** `trash restore [PATH...] [--since TIME]`. */
async function restoreFromTrash(given: string[], options: { since?: string }): Promise<void> {
  const wanted = given.filter((g) => g.trim() !== '');
  if (wanted.length === 0 && options.since === undefined) throw usageError('restore needs paths, names or ids of trashed entries, or --since TIME');
  const since = options.since === undefined ? undefined : sinceTime(options.since);
  const session = await openSession();
  try {
    const trash = await readTrash(session);
    const chosen = chooseNamed(trash, wanted, session.config.roots);
    if (since !== undefined) {
      const found = await chooseTrashedHere(session, trash, chosen, since);
      if (found === 0 && wanted.length === 0) throw new CliError(`this computer moved nothing to the trash in the last ${options.since}`);
    }
    if (chosen.entries.size === 0 && chosen.versions.size === 0) throw new CliError('nothing in the trash matches (drivesync trash ls lists it; it may have been restored already)');
    await restoreChosenEntries(session, chosen);
    await restoreChosenVersions(session, trash, chosen);
    if (chosen.entries.size + chosen.versions.size > 1) print(`${chosen.entries.size + chosen.versions.size} entries restored; the next sync brings them back here`);
  } catch (error) {
    throw failure(error, session.server, 'restore failed');
  }
}

/** The deleted entries and earlier versions the arguments name. */
function chooseNamed(trash: Trash, wanted: readonly string[], roots: readonly string[]): Chosen {
  const chosen: Chosen = { entries: new Map(), versions: new Map() };
  for (const one of wanted) {
    const deleted = matchTrash(trash.deletions, one, roots);
    if (deleted.length > 0) {
      for (const entry of deleted) chosen.entries.set(entry.id, entry);
      continue;
    }
    const version = matchVersion(trash, one, roots);
    chosen.versions.set(version.id, version);
  }
  return chosen;
}

/** Adds what this computer moved to the trash since `since` and is in it still; how many it moved. */
async function chooseTrashedHere(session: Session, trash: Trash, chosen: Chosen, since: Date): Promise<number> {
  const inTrash = new Map(trash.deletions.map((e) => [e.id, e]));
  const mine = await trashedHereSince(session, since.toISOString());
  for (const { remoteId } of mine) {
    const entry = inTrash.get(remoteId);
    if (entry) chosen.entries.set(remoteId, entry);
  }
  return mine.length;
}

async function restoreChosenEntries(session: Session, chosen: Chosen): Promise<void> {
  // A folder brings back what is inside it: its own restore covers entries chosen below it.
  const entries = [...chosen.entries.values()];
  await restoreEntries(session.client, entries);
  if (entries.length > 0) log().info({ command: 'trash restore', remoteIds: entries.map((e) => e.id) }, 'restored');
  for (const entry of entries.sort((a, b) => (a.path < b.path ? -1 : 1))) print(`restored ${safe(entry.path)}`);
}

async function restoreChosenVersions(session: Session, trash: Trash, chosen: Chosen): Promise<void> {
  for (const version of chosen.versions.values()) {
    let current = trash.byId.get(version.of)!;
    // An earlier version of a deleted file: the file comes back first, then holds that version.
    if (!version.current && !chosen.entries.has(current.id)) await restoreEntries(session.client, [current]);
    current = (await findEntry(session.client, current.id, current.parent_id ?? null, current.name)) ?? current;
    await restoreVersion(session.client, current, trash.byId.get(version.id)!, (message) => note(message));
    log().info({ command: 'trash restore', version: version.id, replaced: current.id }, 'version restored');
    print(`${safe(version.path)} holds the version saved ${localTime(trash.byId.get(version.id)!.created_at)} again; what it held is an earlier version now`);
  }
}

/** The earlier version one argument names (its id, or its path when only one version has it). */
function matchVersion(trash: Trash, given: string, roots: readonly string[]): Trash['versions'][number] {
  const wanted = trashPath(given, roots);
  const id = /^\d+$/.test(given.trim()) ? Number(given.trim()) : NaN;
  const matches = trash.versions.filter((v) => v.id === id || v.path === wanted);
  if (matches.length === 0) throw new CliError(`nothing in the trash matches ${safe(given)} (drivesync trash ls lists it)`);
  if (matches.length > 1) {
    throw new CliError(
      `${matches.length} earlier versions of ${safe(wanted)} are in the trash: drivesync versions ${safe(wanted)} lists them (or give the id: ${matches.map((m) => m.id).join(', ')})`,
    );
  }
  return matches[0]!;
}

/** The deleted entries one argument names: a path or a glob over the paths `trash ls` shows, a name, an id; none. */
function matchTrash(entries: readonly TrashedEntry[], given: string, roots: readonly string[]): TrashedEntry[] {
  const wanted = trashPath(given, roots);
  if (picomatch.scan(wanted).isGlob) {
    const matches = picomatch(wanted, { dot: true });
    return entries.filter((e) => matches(e.path));
  }
  let matches = entries.filter((e) => e.path === wanted);
  if (matches.length === 0) matches = entries.filter((e) => e.name === wanted || e.name === given);
  if (matches.length === 0 && /^\d+$/.test(given.trim())) matches = entries.filter((e) => e.id === Number(given.trim()));
  if (matches.length > 1) {
    throw new CliError(`${matches.length} entries in the trash match ${safe(given)}: give the id (${matches.map((m) => m.id).join(', ')})`);
  }
  return matches;
}

/** `10m` → the time ten minutes ago; a usage error for anything else. */
function sinceTime(text: string): Date {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d)\s*$/i.exec(text);
  if (!match) throw usageError(`--since takes a time such as 30s, 10m, 2h or 1d (got ${text})`);
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2]!.toLowerCase() as 's' | 'm' | 'h' | 'd'];
  return new Date(Date.now() - Number(match[1]) * unit);
}

/** What this computer moved to the drive's trash since `since`, from the mirrors of its synced folders. */
async function trashedHereSince(session: Session, since: string): Promise<Array<{ remoteId: number }>> {
  const out: Array<{ remoteId: number }> = [];
  for (const root of session.config.roots) {
    const { mirror } = rootOfAccount(session.paths, root, session.server, session.email);
    out.push(...((await withMirror(mirror, (reader) => reader.trashedSince(since)).catch(() => null)) ?? []));
  }
  return out;
}
