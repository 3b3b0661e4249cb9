/**
 * The host's sharing job: people an entry is shared with, sharing with the subscribed members of a mailing list, the
 * lists remembered by name, and the entry's shareable link (made, changed, removed, copied).
 */
import type { DriveClient } from '../../api/client.js';
import { ApiError } from '../../api/errors.js';
import type { FileEntry, LinkSettings, ShareableLink, User } from '../../api/index.js';
import type { InvokeArg, LinkInput, LinkView, ListShareOutcome, Permission, Person } from '../../contract/index.js';
import type { HandlersOf, HostContext } from './context.js';
import type { Folders } from './folders.js';
import { HostError } from './failures.js';
import type { MirrorEntry } from '../../sync/mirror-read.js';
import { countSubscribed, forgetList, listsInOrder, loadSavedLists, rememberList } from './saved-lists.js';

type SharingCalls =
  | 'share:list'
  | 'share:add'
  | 'share:change'
  | 'share:remove'
  | 'share:list-members'
  | 'link:get'
  | 'link:create'
  | 'link:update'
  | 'link:delete'
  | 'link:copy'
  | 'lists:list'
  | 'lists:save'
  | 'lists:forget';

function peopleOf(users: ReadonlyArray<User & { entry_permissions?: Record<Permission, boolean>; owns_entry?: boolean }> | undefined): Person[] {
  return (users ?? [])
    .filter((u) => !u.owns_entry)
    .map((u) => ({
      userId: u.id,
      email: u.email,
      name: u.display_name ?? null,
      permissions: (['view', 'edit', 'download'] as const).filter((p) => u.entry_permissions?.[p]),
    }));
}

/** A list that cannot be added, said in words rather than as the call's "not found on the drive: List not found". */
function noSuchList(error: unknown, listId: string): unknown {
  if (!(error instanceof ApiError)) return error;
  if (error.kind === 'not-found') return new HostError('not-found', `There is no mailing list with the ID ${listId}. Check the ID where your lists are managed.`);
  if (error.kind === 'forbidden') return new HostError('forbidden', `The mailing list ${listId} belongs to another account: only your own lists can be shared with.`);
  return error;
}

/** The drive answers a link's password as its hash (null or absent without one). */
const hasPassword = (link: ShareableLink) => typeof link.password === 'string' && link.password !== '';

export class SharingJob {
  /**
   * The passwords this host gave links, by the link's address, with the hash the drive answered for each: the drive
   * keeps only the hash and resets a password an update does not carry, so keeping one means sending it again. Held
   * in memory only, never written anywhere; a password set elsewhere (or before a restart) is asked for again.
   */
  private readonly passwords = new Map<string, { hash: string; password: string }>();

  constructor(
    private readonly host: HostContext,
    private readonly folders: Folders,
  ) {}

  readonly handlers: HandlersOf<SharingCalls> = {
    'share:list': async (ref) => {
      const { client, item } = this.folders.resolve(ref);
      return this.peopleOfEntry(client, item);
    },
    'share:add': async (arg) => {
      const { client, item } = this.folders.resolve(arg);
      const emails = [...new Set(arg.emails.map((e) => e.trim()).filter((e) => e !== ''))];
      if (emails.length === 0) throw new HostError('invalid', 'Enter at least one e-mail address.', { emails: 'Enter at least one e-mail address.' });
      const result = await client.sharing.share(item.remoteId, emails, arg.permissions);
      return { people: peopleOf(result.users), unknown: result.unknown };
    },
    'share:change': async (arg) => {
      const { client, item } = this.folders.resolve(arg);
      return peopleOf(await client.sharing.changePermissions(item.remoteId, arg.userId, arg.permissions));
    },
    'share:remove': async (arg) => {
      const { client, item } = this.folders.resolve(arg);
      return peopleOf(await client.sharing.unshare(item.remoteId, arg.userId));
    },
    'share:list-members': async (arg) => this.shareWithList(arg),
    'link:get': async (ref) => {
      const { client, item } = this.folders.resolve(ref);
      const info = await client.links.get(item.remoteId);
      return info ? this.linkView(client, info.link) : null;
    },
    'link:create': async (arg) => {
      const { client, item } = this.folders.resolve(arg);
      const settings = this.linkSettings(arg);
      return this.saved(client, await client.links.create(item.remoteId, settings), settings);
    },
    'link:update': async (arg) => {
      const { client, item } = this.folders.resolve(arg);
      const settings = this.linkSettings(arg);
      if (settings.password === undefined) {
        // Not asked to change it: the service resets a password an update does not carry, so it goes along again.
        const current = (await client.links.get(item.remoteId))?.link;
        if (current && hasPassword(current)) {
          const known = this.knownPassword(client, current);
          if (known === null) {
            throw new HostError(
              'invalid',
              'This link has a password drivesync does not know (it was set elsewhere, or before drivesync last started), and the drive drops it when other settings are saved without it. Enter the password again to keep it, or remove it.',
              { password: 'Enter the link’s current password to keep it.' },
            );
          }
          settings.password = known;
        }
      }
      return this.saved(client, await client.links.update(item.remoteId, settings), settings);
    },
    'link:delete': async (ref) => {
      const { client, item } = this.folders.resolve(ref);
      await client.links.delete(item.remoteId);
    },
    'link:copy': async (ref) => {
      const { client, item } = this.folders.resolve(ref);
      const link = (await client.links.get(item.remoteId))?.link ?? (await client.links.create(item.remoteId, { allowDownload: true }));
      const url = client.links.publicUrl(link);
      await this.host.options.platform.copyText(url);
      return url;
    },
    'lists:list': async () => {
      this.host.requireClient();
      return listsInOrder(loadSavedLists(this.host.paths, this.host.account!));
    },
    'lists:save': async ({ id, name }) => {
      const client = this.host.requireClient();
      const listId = id.trim().toLowerCase();
      const label = name.trim();
      if (!/^[0-9a-f]{13}$/i.test(listId)) {
        throw new HostError('invalid', 'A list ID is 13 letters and digits (0–9, a–f), as shown where your lists are managed.', { id: 'Enter the 13-character ID of the list.' });
      }
      if (label === '') throw new HostError('invalid', 'Give the list a name you will recognise.', { name: 'Enter a name for the list.' });
      const subscribers = await countSubscribed(client, listId).catch((error: unknown) => {
        throw noSuchList(error, listId);
      });
      return rememberList(this.host.paths, this.host.account!, { id: listId, name: label, subscribers });
    },
    'lists:forget': async ({ id }) => {
      this.host.requireClient();
      return forgetList(this.host.paths, this.host.account!, id);
    },
  };

  private async peopleOfEntry(client: DriveClient, item: MirrorEntry): Promise<Person[]> {
    // There is no "show entry" endpoint: the entry is found in its folder's listing (or by name at the root).
    const filter = item.parentId !== null ? { parentIds: [item.parentId], perPage: 200 } : { query: item.remoteName, perPage: 200 };
    for await (const entry of client.entries.list(filter)) {
      if (entry.id === item.remoteId) return peopleOf((entry as FileEntry).users as Parameters<typeof peopleOf>[0]);
    }
    return [];
  }

  private async shareWithList(arg: InvokeArg<'share:list-members'>): Promise<ListShareOutcome> {
    const { client, item } = this.folders.resolve(arg);
    const listId = arg.listId.trim();
    const emails: string[] = [];
    let skipped = 0;
    for await (const subscriber of client.lists.subscribers(listId, 100)) {
      if (subscriber.status === 'subscribed' && subscriber.email) emails.push(subscriber.email);
      else skipped += 1;
    }
    const unique = [...new Set(emails)];
    if (unique.length === 0) {
      throw new HostError('invalid', `The list ${listId} has no subscribed members.`, { listId: 'This list has no subscribed members.' });
    }
    let people: Person[] = [];
    const unknown: string[] = [];
    for (let i = 0; i < unique.length; i += 50) {
      const result = await client.sharing.share(item.remoteId, unique.slice(i, i + 50), arg.permissions);
      people = peopleOf(result.users);
      unknown.push(...result.unknown);
    }
    rememberList(this.host.paths, this.host.account!, { id: listId, subscribers: unique.length, lastUsed: new Date(this.host.now()).toISOString() });
    return { listId, subscribed: unique.length, skipped, people, unknown };
  }

  private linkSettings(input: LinkInput): LinkSettings {
    const settings: LinkSettings = {
      allowDownload: input.allowDownload ?? true,
      allowEdit: input.allowEdit ?? false,
      expiresAt: null,
    };
    if (input.password !== undefined) settings.password = input.password === '' ? null : input.password;
    if (input.expiresAt) {
      const time = Date.parse(input.expiresAt);
      if (Number.isNaN(time)) throw new HostError('invalid', 'The expiry is not a date.', { expiresAt: 'Enter a date.' });
      if (time <= this.host.now()) throw new HostError('invalid', 'The expiry must be in the future.', { expiresAt: 'Choose a date in the future.' });
      settings.expiresAt = new Date(time).toISOString();
    }
    return settings;
  }

  /** A link just made or changed; the password it was given is remembered with the hash the drive keeps of it. */
  private saved(client: DriveClient, link: ShareableLink, settings: LinkSettings): LinkView {
    const url = client.links.publicUrl(link);
    if (typeof settings.password === 'string' && settings.password !== '' && hasPassword(link)) this.passwords.set(url, { hash: link.password!, password: settings.password });
    else this.passwords.delete(url);
    return this.linkView(client, link);
  }

  /** The password of a link as this host set it, while the drive still holds that one (the same hash); else null. */
  private knownPassword(client: DriveClient, link: ShareableLink): string | null {
    const known = this.passwords.get(client.links.publicUrl(link));
    return known && known.hash === link.password ? known.password : null;
  }

  private linkView(client: DriveClient, link: ShareableLink): LinkView {
    return {
      url: client.links.publicUrl(link),
      hasPassword: hasPassword(link),
      passwordKnown: hasPassword(link) && this.knownPassword(client, link) !== null,
      expiresAt: link.expires_at ?? null,
      allowDownload: link.allow_download ?? true,
      allowEdit: link.allow_edit ?? false,
    };
  }
}
