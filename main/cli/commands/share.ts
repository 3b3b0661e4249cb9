/**
 * `share PATH (--email E ... | --list LIST) [--perm view,edit,download]` and `unshare PATH --email E`, for a path
 * inside a synced folder (turned into its remote entry through the folder's mirror).
 */
import type { Command } from 'commander';
import { findEntry as findEntryOnDrive } from '../../api/carry.js';
import { listSharedTops, ownerOf } from '../../state/access.js';
import type { FileEntry, Permission } from '../../api/schemas.js';
import { ApiError } from '../../api/errors.js';
import { CliError, failure, usageError } from '../errors.js';
import { log } from '../log.js';
import { SUBSCRIBER_PAGE } from '../output.js';
import { print, safe } from '../output.js';
import { locate, type Located } from '../locate.js';
import { listLabel, noteListUse, resolveListId } from '../remembered-lists.js';
import { openSession, type Session } from '../session.js';

const PERMISSIONS: readonly Permission[] = ['view', 'edit', 'download'];
const SHARE_BATCH = 100;
const EMAIL = /^[^@\s,]+@[^@\s,]+$/;

export function parsePermissions(text: string): Permission[] {
  const perms = text
    .split(',')
    .map((p) => p.trim().toLowerCase())
    .filter((p) => p !== '');
  if (perms.length === 0) throw usageError('--perm needs at least one of view, edit, download');
  for (const p of perms) {
    if (!PERMISSIONS.includes(p as Permission)) throw usageError(`--perm: "${p}" is not one of view, edit, download`);
  }
  return [...new Set(perms as Permission[])];
}

function parseEmails(values: readonly string[]): string[] {
  const emails = values.flatMap((v) => v.split(',')).map((e) => e.trim()).filter((e) => e !== '');
  for (const e of emails) if (!EMAIL.test(e)) throw usageError(`--email: "${e}" is not an e-mail address`);
  return [...new Set(emails)];
}

/** Resolves a local path, turning a failure of the lookup into its one line. */
export async function locatePath(session: Session, path: string): Promise<Located> {
  return locate(session.paths, session.config.roots, session.server, session.email, path);
}

/** The entry as the service lists it now (with its users), found among its parent's children. */
export async function findEntry(session: Session, item: Located): Promise<FileEntry> {
  if (item.remoteId < 0) throw new CliError(`${item.shown} is the folder drivesync keeps what others share with you in; it is not on the drive`);
  // What others share with the account is at the top of the shared listing, not in a folder of the account's own.
  const entry =
    item.parentId !== null && item.parentId < 0
      ? (await listSharedTops(session.client, session.email)).find((e) => e.id === item.remoteId)
      : await findEntryOnDrive(session.client, item.remoteId, item.parentId, item.remoteName);
  if (entry) return entry;
  throw new CliError(`${item.shown} is no longer on the drive (run drivesync sync ${item.root})`);
}

/** The entry shared with the account that a located item is or is inside, as the drive lists it now. */
export async function sharedTopOf(session: Session, item: Located): Promise<FileEntry | undefined> {
  if (item.sharedTopId === undefined) return undefined;
  return (await listSharedTops(session.client, session.email)).find((e) => e.id === item.sharedTopId);
}

/** Sharing is the owner's: an item others share with the account is refused in words before the drive's 403. */
export async function requireOwn(session: Session, item: Located, doing: string): Promise<void> {
  if (!item.sharedWithMe) return;
  if (item.remoteId < 0) throw new CliError(`${item.shown} is the folder drivesync keeps what others share with you in; it is not on the drive`);
  const owner = ownerOf((await sharedTopOf(session, item)) ?? (await findEntry(session, item)));
  throw new CliError(`${item.shown} is shared with you${owner ? ` by ${owner}` : ''}: only its owner can ${doing}`);
}

/** Every `subscribed` member of a mailing list, all pages. */
async function subscribedMembers(session: Session, listId: string): Promise<string[]> {
  const emails = new Set<string>();
  for await (const subscriber of session.client.lists.subscribers(listId, SUBSCRIBER_PAGE)) {
    if (subscriber.status === 'subscribed' && subscriber.email) emails.add(subscriber.email);
  }
  return [...emails];
}

/** Registers `share` and `unshare`; answers `share`, which `share ls` is added to. */
export function registerShareCommands(program: Command): Command {
  const share = program
    .command('share')
    .description('share a synced file or folder with people (by e-mail) or with the subscribed members of a mailing list')
    .argument('<path>', 'a file or folder inside a synced folder')
    .option('--email <email...>', 'an address to share with (repeat the option, or separate with commas)')
    .option('--list <list>', 'share with every subscribed member of this mailing list (its id or remembered name)')
    .option('--perm <perms>', 'permissions, comma-separated, of view, edit, download', 'view,download')
    .action(async (path: string, options: { email?: string[]; list?: string; perm: string }) => {
      if (options.email && options.list) throw usageError('give --email or --list, not both');
      if (!options.email && !options.list) throw usageError('give --email E (one or more) or --list LIST_ID');
      if (options.list !== undefined && options.list.trim() === '') throw usageError('--list needs a list id');
      const permissions = parsePermissions(options.perm);
      const emails = options.email ? parseEmails(options.email) : [];
      const session = await openSession();
      const item = await locatePath(session, path);
      await requireOwn(session, item, 'share it');
      try {
        let asked = emails;
        const listId = options.list ? resolveListId(session, options.list) : undefined;
        if (listId) {
          try {
            asked = await subscribedMembers(session, listId);
          } catch (error) {
            if (error instanceof ApiError && error.kind === 'not-found') throw new CliError(`there is no mailing list ${safe(listId)}; nothing was shared`);
            throw error;
          }
          noteListUse(session, listId, { subscribers: asked.length, used: true, entry: item.remoteId });
          if (asked.length === 0) throw new CliError(`mailing list ${safe(listLabel(session, listId))} has no subscribed members; nothing was shared`);
        }
        const shared = new Set<string>();
        const unknown: string[] = [];
        for (let i = 0; i < asked.length; i += SHARE_BATCH) {
          const batch = asked.slice(i, i + SHARE_BATCH);
          const result = await session.client.sharing.share(item.remoteId, batch, permissions);
          const missing = new Set(result.unknown);
          for (const e of batch) if (!missing.has(e)) shared.add(e);
          unknown.push(...result.unknown);
        }
        log().info({ command: 'share', path: item.path, remoteId: item.remoteId, list: listId, shared: shared.size, unknown: unknown.length }, 'shared');
        const perms = permissions.join(', ');
        if (shared.size > 0) {
          print(`shared ${safe(item.path)} (${perms}) with ${shared.size} ${shared.size === 1 ? 'person' : 'people'}:`);
          for (const e of shared) print(`  ${safe(e)}`);
        }
        if (unknown.length > 0) {
          print(`not shared, no account on the drive: ${unknown.length}`);
          for (const e of unknown) print(`  ${safe(e)}`);
        }
        if (shared.size === 0) throw new CliError(`nothing was shared: none of the addresses has an account on the drive`);
      } catch (error) {
        throw failure(error, session.server, 'share failed');
      }
    });

  program
    .command('unshare')
    .description("remove a person's access to a synced file or folder")
    .argument('<path>', 'a file or folder inside a synced folder')
    .requiredOption('--email <email>', 'the address whose access is removed')
    .action(async (path: string, options: { email: string }) => {
      const [email] = parseEmails([options.email]);
      if (!email) throw usageError('--email needs an address');
      const session = await openSession();
      const item = await locatePath(session, path);
      await requireOwn(session, item, 'change who it is shared with');
      try {
        const entry = await findEntry(session, item);
        const user = (entry.users ?? []).find((u) => u.email.toLowerCase() === email.toLowerCase() && u.owns_entry !== true);
        if (!user) throw new CliError(`${safe(item.path)} is not shared with ${safe(email)}`);
        await session.client.sharing.unshare(item.remoteId, user.id);
        log().info({ command: 'unshare', path: item.path, remoteId: item.remoteId, userId: user.id }, 'unshared');
        print(`${safe(item.path)} is no longer shared with ${safe(email)}`);
      } catch (error) {
        throw failure(error, session.server, 'unshare failed');
      }
    });
  return share;
}
