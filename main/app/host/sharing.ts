/**
 * The host's sharing job: people an entry is shared with, sharing with the subscribed members of a mailing list, the
 * lists remembered by name, and the entry's shareable link (made, changed, removed, copied).
 */
import type { DriveClient } from '../../api/client.js';
import { findEntry as findEntryOnDrive } from '../../api/carry.js';
import { ApiError } from '../../api/errors.js';
import type { FileEntry, LinkSettings, ShareableLink, User } from '../../api/index.js';
import type { EntryAccess, EntryRef, InvokeArg, LinkInput, LinkView, ListShareOutcome, Permission, Person } from '../../contract/index.js';
import { accessOf, myPermissions } from '../../state/access.js';
import { listsSharedWith } from '../../state/saved-lists.js';
import { readMirror, type MirrorEntry } from '../../state/mirror-view.js';
import type { HandlersOf, HostContext } from './context.js';
import type { Folders } from './folders.js';
import { HostError } from './failures.js';
import { onlyTheOwner } from './plain-words.js';
import { countSubscribed, forgetList, listsInOrder, loadSavedLists, rememberList } from './saved-lists.js';
import { inSharedFolder, isGroupingFolder, nearestTop, type SharedTop } from './shared-with-me.js';

type SharingCalls =
  | 'share:access'
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

const nameOf = (ref: EntryRef) => ref.path.slice(ref.path.lastIndexOf('/') + 1);

/** An entry as its folder's listing answers it (there is no "show entry" endpoint), or by name at the root. */
const findEntry = (client: DriveClient, item: MirrorEntry) => findEntryOnDrive(client, item.remoteId, item.parentId, item.remoteName);

/** The parts of the state layer's `Access` the window shows, with each person's display name where the drive gives one. */
function accessView(access: Awaited<ReturnType<typeof accessOf>>, entry: FileEntry, me: string): Omit<EntryAccess, 'sharedWithMe' | 'owner' | 'myPermissions' | 'canShare'> {
  const names = new Map((entry.users ?? []).map((u) => [u.id, (u as { display_name?: string | null }).display_name ?? null]));
  return {
    name: access.name,
    type: access.type,
    people: access.people.map((p) => ({ ...p, name: names.get(p.userId) ?? null, ...(p.email.toLowerCase() === me.toLowerCase() ? { you: true } : {}) })),
    link: access.link,
    lists: access.lists,
  };
}

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
    'share:access': async (ref) => this.access(ref),
    'share:list': async (ref) => {
      const { client, item } = this.folders.resolve(ref);
      return this.peopleOfEntry(client, item);
    },
    'share:add': (arg) =>
      this.byOwner(arg, async () => {
        const { client, item } = this.folders.resolve(arg);
        const emails = [...new Set(arg.emails.map((e) => e.trim()).filter((e) => e !== ''))];
        if (emails.length === 0) throw new HostError('invalid', 'Enter at least one e-mail address.', { emails: 'Enter at least one e-mail address.' });
        const result = await client.sharing.share(item.remoteId, emails, arg.permissions);
        return { people: peopleOf(result.users), unknown: result.unknown };
      }),
    'share:change': (arg) =>
      this.byOwner(arg, async () => {
        const { client, item } = this.folders.resolve(arg);
        return peopleOf(await client.sharing.changePermissions(item.remoteId, arg.userId, arg.permissions));
      }),
    'share:remove': (arg) =>
      this.byOwner(arg, async () => {
        const { client, item } = this.folders.resolve(arg);
        return peopleOf(await client.sharing.unshare(item.remoteId, arg.userId));
      }),
    'share:list-members': (arg) => this.byOwner(arg, () => this.shareWithList(arg)),
    'link:get': async (ref) => {
      const { client, item } = this.folders.resolve(ref);
      const info = await client.links.get(item.remoteId);
      return info ? this.linkView(client, info.link) : null;
    },
    'link:create': (arg) =>
      this.byOwner(arg, async () => {
        const { client, item } = this.folders.resolve(arg);
        const settings = this.linkSettings(arg);
        return this.saved(client, await client.links.create(item.remoteId, settings), settings);
      }),
    'link:update': (arg) =>
      this.byOwner(arg, async () => {
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
      }),
    'link:delete': (ref) =>
      this.byOwner(ref, async () => {
        const { client, item } = this.folders.resolve(ref);
        await client.links.delete(item.remoteId);
      }),
    'link:copy': (ref) =>
      this.byOwner(ref, async () => {
        const { client, item } = this.folders.resolve(ref);
        const link = (await client.links.get(item.remoteId))?.link ?? (await client.links.create(item.remoteId, { allowDownload: true }));
        const url = client.links.publicUrl(link);
        await this.host.options.platform.copyText(url);
        return url;
      }),
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
    const entry = await findEntry(client, item);
    return entry ? peopleOf(entry.users as Parameters<typeof peopleOf>[0]) : [];
  }

  /**
   * Who has access to an entry. For one another account shares with this one, the owner and what this account may do
   * come from the shares listing (the nearest shared entry it lies in); such an entry is never this account's to share.
   */
  private async access(ref: EntryRef): Promise<EntryAccess> {
    const { client, item } = this.folders.resolve(ref);
    const run = this.folders.require(ref.root);
    const me = this.host.account!.email;
    if (!inSharedFolder(this.host.readConfig(), run.root, ref.path)) {
      const entry = await findEntry(client, item);
      if (!entry) throw new HostError('not-found', `“${nameOf(ref)}” is no longer on the drive; the next sync catches up.`);
      const access = await accessOf(client, entry, listsSharedWith(loadSavedLists(this.host.paths, this.host.account!), item.remoteId));
      return { ...accessView(access, entry, me), sharedWithMe: false, owner: access.owner ?? me, myPermissions: null, canShare: true };
    }
    if (isGroupingFolder(item.remoteId)) {
      throw new HostError('invalid', `“${nameOf(ref)}” holds what others share with you: it is not on the drive, so it has no one to share with.`);
    }
    let top = await this.sharedTop(ref, false);
    // Shared since the window last listed what is shared with the account: listed again.
    if (!top) top = await this.sharedTop(ref, true);
    const listed = (await this.folders.shared.tops()).find((t) => t.entryId === item.remoteId)?.entry;
    const entry = listed ?? (await findEntry(client, item));
    if (!entry) throw new HostError('not-found', `“${nameOf(ref)}” is no longer shared with you, or no longer on the drive.`);
    const access = await accessOf(client, entry, []);
    return {
      ...accessView(access, entry, me),
      sharedWithMe: true,
      owner: access.owner ?? top?.owner ?? null,
      myPermissions: myPermissions(entry, me) ?? top?.permissions ?? null,
      canShare: false,
    };
  }

  /** The entry shared with the account that `ref` is or lies in, by the mirror of its synced folder. */
  private async sharedTop(ref: EntryRef, again: boolean): Promise<SharedTop | null> {
    const tops = await this.folders.shared.tops(again);
    const byId = new Map(tops.map((t) => [t.entryId, t]));
    return readMirror(this.folders.require(ref.root).mirror, (mirror) => nearestTop(mirror, ref.path, byId)) ?? null;
  }

  /**
   * Sharing and links are the owner's: the drive refuses them (403) on an entry shared with the account, which is
   * said as such rather than as a missing permission.
   */
  private async byOwner<T>(ref: EntryRef, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof ApiError) || error.kind !== 'forbidden') throw error;
      const top = inSharedFolder(this.host.readConfig(), ref.root, ref.path) ? await this.sharedTop(ref, false).catch(() => null) : null;
      throw new HostError('forbidden', onlyTheOwner(nameOf(ref), top?.owner ?? null));
    }
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
    // The drive does not say which lists an entry went to: this computer remembers it, for "who has access".
    rememberList(this.host.paths, this.host.account!, { id: listId, subscribers: unique.length, lastUsed: new Date(this.host.now()).toISOString(), entries: [item.remoteId] });
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
