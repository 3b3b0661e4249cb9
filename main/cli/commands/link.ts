/**
 * `link PATH [--password P] [--expires ISO] [--no-download] [--allow-edit]` creates the shareable link of a synced
 * entry (or updates the one it has); `--show` prints it; `--delete` removes it. The password is never printed or
 * logged.
 */
import type { Command } from 'commander';
import type { ShareableLink } from '../../api/schemas.js';
import { CliError, failure, usageError } from '../errors.js';
import { log } from '../log.js';
import { note, print, safe } from '../output.js';
import { openSession } from '../session.js';
import { locatePath, requireOwn } from './share.js';

interface LinkOptions {
  /** A new password; false (`--no-password`) removes the one it has. */
  password?: string | false;
  expires?: string;
  download: boolean;
  allowEdit?: boolean;
  show?: boolean;
  delete?: boolean;
}

function parseExpiry(text: string): string {
  if (!/^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text.trim()) || Number.isNaN(Date.parse(text))) {
    throw usageError(`--expires must be an ISO 8601 date or time, e.g. 2030-01-31 or 2030-01-31T12:00:00Z (got ${text})`);
  }
  const when = new Date(Date.parse(text));
  if (when.getTime() <= Date.now()) throw usageError(`--expires is in the past (${text})`);
  return when.toISOString();
}

function describe(link: ShareableLink): string {
  const expires = link.expires_at ? link.expires_at : 'never';
  return `password: ${link.password ? 'yes' : 'no'}, expires: ${expires}, download: ${link.allow_download === false ? 'no' : 'yes'}, edit: ${link.allow_edit ? 'yes' : 'no'}`;
}

/** Said wherever a file's link is shown: its address belongs to the entry, and a save makes a new entry. */
const ADDRESS_CHANGES =
  'the address changes when the file is saved again (each save is a new entry on this drive); drivesync gives the new version a link with the same settings and prints its address';

export function registerLinkCommand(program: Command): void {
  program
    .command('link')
    .description('create or update the shareable link of a synced file or folder and print its public URL; --show, --delete')
    .argument('<path>', 'a file or folder inside a synced folder')
    .option('--password <password>', 'protect the link with a password (never printed or logged)')
    .option('--no-password', 'remove the password of the link')
    .option('--expires <iso>', 'the link stops working at this time (ISO 8601)')
    .option('--no-download', 'the link shows the file but does not let it be downloaded')
    .option('--allow-edit', 'the link lets its holders edit')
    .option('--show', 'print the link and its settings')
    .option('--delete', 'delete the link')
    .action(async (path: string, options: LinkOptions) => {
      const settingsGiven = options.password !== undefined || options.expires !== undefined || options.download === false || options.allowEdit === true;
      if (options.show && options.delete) throw usageError('give --show or --delete, not both');
      if ((options.show || options.delete) && settingsGiven) {
        throw usageError(`--${options.show ? 'show' : 'delete'} takes no link settings (--password, --expires, --no-download, --allow-edit)`);
      }
      if (options.password === '') throw usageError('--password is empty');
      const expiresAt = options.expires !== undefined ? parseExpiry(options.expires) : null;
      const session = await openSession();
      const item = await locatePath(session, path);
      if (!options.show) await requireOwn(session, item, 'make or change its link');
      const links = session.client.links;
      try {
        const existing = await links.get(item.remoteId);
        if (options.show || options.delete) {
          if (!existing) throw new CliError(`${safe(item.path)} has no shareable link`);
          if (options.delete) {
            await links.delete(item.remoteId);
            log().info({ command: 'link', action: 'delete', path: item.path, remoteId: item.remoteId }, 'link deleted');
            print(`deleted the link of ${safe(item.path)}`);
            return;
          }
          print(links.publicUrl(existing.link));
          print(describe(existing.link));
          if (item.type === 'file') note(ADDRESS_CHANGES);
          return;
        }
        // The drive keeps a hash of a link's password, and an update that gives none removes it: it is removed only
        // when asked (--no-password), never as a side effect of changing another setting.
        if (existing?.link.password && options.password === undefined) {
          throw new CliError(`the link of ${safe(item.path)} has a password, and the drive removes it on any change that does not give it again: add --password P to keep one, or --no-password to remove it; nothing was changed`);
        }
        const settings = {
          ...(typeof options.password === 'string' ? { password: options.password } : {}),
          expiresAt,
          allowEdit: options.allowEdit === true,
          allowDownload: options.download !== false,
        };
        const link = existing ? await links.update(item.remoteId, settings) : await links.create(item.remoteId, settings);
        log().info(
          { command: 'link', action: existing ? 'update' : 'create', path: item.path, remoteId: item.remoteId, withPassword: typeof options.password === 'string', expiresAt },
          existing ? 'link updated' : 'link created',
        );
        if (existing?.link.password && options.password === false) note('the link no longer has a password');
        print(links.publicUrl(link));
        print(describe(link));
        if (item.type === 'file') note(ADDRESS_CHANGES);
      } catch (error) {
        throw failure(error, session.server, 'link failed');
      }
    });
}
