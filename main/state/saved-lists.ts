/**
 * The mailing lists a user has shared with or added, remembered per account in `lists.json` beside `config.json`:
 * the service has no endpoint that lists a user's lists, so the window and `drivesync lists` both read and add to
 * these, by the name the user gave.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DriveClient } from '../api/client.js';
import { writeJsonAtomic } from './json-file.js';
import type { StatePaths } from './paths.js';

export interface SavedList {
  id: string;
  /** The name the user gave it. */
  name: string;
  /** Subscribed members when last looked at; null when unknown. */
  subscribers: number | null;
  lastUsed: string | null;
  /** The entries shared with its members from this computer (the drive does not say which lists an entry went to). */
  entries: number[];
}

/** Whose lists: the same list id means nothing on another server or account. */
export interface ListAccount {
  server: string;
  email: string;
}

type Stored = Record<string, SavedList[]>;

export const savedListsFile = (paths: StatePaths) => join(paths.configDir, 'lists.json');
const accountKey = (account: ListAccount) => `${account.server} ${account.email}`;

function readAll(paths: StatePaths): Stored {
  try {
    const raw = JSON.parse(readFileSync(savedListsFile(paths), 'utf8')) as unknown;
    return raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Stored) : {};
  } catch {
    return {};
  }
}

const valid = (l: unknown): l is SavedList =>
  !!l && typeof (l as SavedList).id === 'string' && typeof (l as SavedList).name === 'string';

export function loadSavedLists(paths: StatePaths, account: ListAccount): SavedList[] {
  const lists = readAll(paths)[accountKey(account)];
  if (!Array.isArray(lists)) return [];
  return lists.filter(valid).map((l) => ({
    id: l.id,
    name: l.name,
    subscribers: typeof l.subscribers === 'number' ? l.subscribers : null,
    lastUsed: typeof l.lastUsed === 'string' ? l.lastUsed : null,
    entries: Array.isArray(l.entries) ? l.entries.filter((id) => Number.isSafeInteger(id)) : [],
  }));
}

function store(paths: StatePaths, account: ListAccount, lists: SavedList[]): SavedList[] {
  const all = readAll(paths);
  all[accountKey(account)] = lists;
  writeJsonAtomic(savedListsFile(paths), all, 0o600);
  return lists;
}

/** Most recently used first, then by name. */
export const listsInOrder = (lists: SavedList[]) =>
  [...lists].sort((a, b) => (b.lastUsed ?? '').localeCompare(a.lastUsed ?? '') || a.name.localeCompare(b.name));

/** Adds or renames a list; keeps what else is known of it (`entries` are added to those it had). */
export function rememberList(paths: StatePaths, account: ListAccount, list: Partial<SavedList> & { id: string }): SavedList[] {
  const lists = loadSavedLists(paths, account);
  const had = lists.find((l) => l.id === list.id);
  const next: SavedList = {
    id: list.id,
    name: list.name ?? had?.name ?? `List ${list.id}`,
    subscribers: list.subscribers !== undefined ? list.subscribers : (had?.subscribers ?? null),
    lastUsed: list.lastUsed !== undefined ? list.lastUsed : (had?.lastUsed ?? null),
    entries: [...new Set([...(had?.entries ?? []), ...(list.entries ?? [])])],
  };
  return store(paths, account, listsInOrder([next, ...lists.filter((l) => l.id !== list.id)]));
}

/** The remembered lists an entry was shared with from this computer. */
export const listsSharedWith = (lists: readonly SavedList[], entryId: number) =>
  lists.filter((l) => l.entries.includes(entryId)).map((l) => ({ id: l.id, name: l.name }));

export function forgetList(paths: StatePaths, account: ListAccount, id: string): SavedList[] {
  return store(paths, account, loadSavedLists(paths, account).filter((l) => l.id !== id));
}

/** Subscribed members of a list on the drive (every page); a missing list fails as the service answers. */
export async function countSubscribed(client: DriveClient, id: string): Promise<number> {
  let count = 0;
  for await (const subscriber of client.lists.subscribers(id, 100)) if (subscriber.status === 'subscribed') count += 1;
  return count;
}
