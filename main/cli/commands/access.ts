/**
 * Who has access, from the command line: `drivesync share ls PATH [--json]` (the people and their permissions, the
 * link and its settings, the mailing lists this computer shared it with) and `drivesync shared [--json]` (what the
 * account shares, and what others share with it).
 */
import type { Command } from 'commander';
import { accessOf, mayDo, ownerOf, sharedByMe, sharedWithMe, type Access, type Person } from '../../state/access.js';
import { listsSharedWith } from '../../state/saved-lists.js';
import { failure } from '../errors.js';
import { print, printJson, printTable, safe } from '../output.js';
import { savedLists } from '../remembered-lists.js';
import { openSession } from '../session.js';
import { findEntry, locatePath, sharedTopOf } from './share.js';

const permissionsText = (p: Person['permissions']) => (p === null ? 'not said by the drive' : p.join(', ') || 'none');

function printAccess(path: string, access: Access, mine: boolean): void {
  print(`${safe(path)} (${access.type})`);
  print(`  owner: ${mine ? 'you' : safe(access.owner ?? 'someone else (the drive does not say who)')}`);
  if (access.people.length === 0) print('  people: none');
  else {
    print('  people:');
    for (const person of access.people) print(`    ${safe(person.email)}  ${permissionsText(person.permissions)}`);
  }
  const link = access.link;
  if (!link) print('  link: none');
  else {
    const expires = link.expiresAt ?? 'never';
    print(`  link: ${link.url}`);
    print(`    password: ${link.hasPassword ? 'yes' : 'no'}, expires: ${expires}, download: ${link.allowDownload ? 'yes' : 'no'}, edit: ${link.allowEdit ? 'yes' : 'no'}`);
  }
  if (access.lists.length === 0) print('  mailing lists: none that this computer shared it with (the drive does not list them)');
  else print(`  mailing lists (as far as this computer knows): ${access.lists.map((l) => `${safe(l.name)} (${l.id})`).join(', ')}`);
}

export function registerShareLs(share: Command): void {
  share
    .command('ls')
    .description('who has access to a synced file or folder: people and permissions, the link, the mailing lists')
    .argument('<path>', 'a file or folder inside a synced folder')
    .option('--json', 'print JSON')
    .action(async (path: string, options: { json?: boolean }) => {
      const session = await openSession();
      const item = await locatePath(session, path);
      try {
        const entry = await findEntry(session, item);
        const access = await accessOf(session.client, entry, listsSharedWith(savedLists(session), entry.id));
        const mine = !item.sharedWithMe;
        // Inside what is shared with the account, the shared entry says who owns it and what the account may do.
        const top = mine ? undefined : ((await sharedTopOf(session, item)) ?? entry);
        if (top && access.owner === null) access.owner = ownerOf(top);
        const may = top ? mayDo(top, session.email) : undefined;
        if (options.json) {
          printJson({ path: item.path, ...access, owner: mine ? (session.email ?? null) : access.owner, mine, ...(may ? { yourPermissions: may } : {}) });
          return;
        }
        printAccess(item.path, access, mine);
        if (may) {
          print(`  you may: view${may.download ? ', download' : ''}${may.edit ? ', edit' : ''}${may.edit ? '' : ' (your changes here stay on this computer)'}`);
        }
      } catch (error) {
        throw failure(error, session.server, 'share ls failed');
      }
    });
}

export function registerSharedCommand(program: Command): void {
  program
    .command('shared')
    .description('what you share with others, and what others share with you (lists your whole drive)')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const session = await openSession();
      try {
        const byMe = await sharedByMe(session.client);
        const withMe = (await sharedWithMe(session.client, session.email)).map(({ entryId, name, type, owner, entry }) => ({
          entryId,
          name,
          type,
          owner,
          permissions: mayDo(entry, session.email),
        }));
        if (options.json) {
          printJson({ sharedByMe: byMe, sharedWithMe: withMe });
          return;
        }
        print(`shared by you: ${byMe.length === 0 ? 'nothing' : ''}`.trimEnd());
        if (byMe.length > 0) {
          printTable(
            ['  name', 'type', 'with'],
            byMe.map((s) => [`  ${safe(s.name)}`, s.type, s.people.map((p) => `${safe(p.email)} (${permissionsText(p.permissions)})`).join('; ')]),
          );
        }
        print(`shared with you: ${withMe.length === 0 ? 'nothing' : ''}`.trimEnd());
        if (withMe.length > 0) {
          printTable(
            ['  name', 'type', 'by', 'you may'],
            withMe.map((s) => [
              `  ${safe(s.name)}`,
              s.type,
              safe(s.owner ?? '(the drive does not say)'),
              `view${s.permissions.download ? ', download' : ''}${s.permissions.edit ? ', edit' : ''}`,
            ]),
          );
        }
      } catch (error) {
        throw failure(error, session.server, 'shared failed');
      }
    });
}
