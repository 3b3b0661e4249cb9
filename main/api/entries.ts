import type { Http } from './http.js';
import { BadResponseError } from './errors.js';
import { EntriesResponse, EntryListResponse, EntryResponse, FolderResponse, Status, TagResponse } from './checks.js';
import type { FileEntry, Tag } from './schemas.js';

export type EntryId = number;

export interface ListFilter {
  perPage?: number;
  deletedOnly?: boolean;
  starredOnly?: boolean;
  recentOnly?: boolean;
  sharedOnly?: boolean;
  query?: string;
  type?: string;
  parentIds?: readonly EntryId[];
  workspaceId?: number;
}

export interface Page {
  entries: FileEntry[];
  /** The next page number, or null at the end. */
  next: number | null;
  /** How many entries match in all, when the server says (the paginator's `total`). */
  total?: number;
}

/** The service caps moves per request (30 in deployed versions). */
export const MOVE_BATCH = 30;
/** Folder ids per breadth-first listing request; keeps the query string short. */
const PARENT_BATCH = 50;
/** No listing of a real drive has this many pages; a server ignoring `page` must not loop forever. */
const MAX_PAGES = 1_000_000;
/** A page past the end of any listing: its answer holds no entries, only the paginator's total. */
const PAST_THE_END = 1_000_000;

const DEFAULT_PER_PAGE = 50;

function flagParam(value: boolean | undefined): string | undefined {
  return value ? 'true' : undefined;
}

/** Files and folders: listing, rename, describe, folders, move, duplicate, trash, restore, delete forever, stars. */
export class EntriesApi {
  constructor(private readonly http: Http) {}

  /** One page of `GET /drive/file-entries`, whichever of the two answer shapes the server uses. */
  async page(filter: ListFilter, page: number, signal?: AbortSignal): Promise<Page> {
    const perPage = filter.perPage ?? DEFAULT_PER_PAGE;
    const { body } = await this.http.json({
      endpoint: 'GET /drive/file-entries',
      method: 'GET',
      path: 'drive/file-entries',
      check: EntryListResponse,
      signal,
      searchParams: {
        page,
        perPage,
        deletedOnly: flagParam(filter.deletedOnly),
        starredOnly: flagParam(filter.starredOnly),
        recentOnly: flagParam(filter.recentOnly),
        sharedOnly: flagParam(filter.sharedOnly),
        query: filter.query,
        type: filter.type,
        parentIds: filter.parentIds?.join(','),
        workspaceId: filter.workspaceId,
      },
    });
    if (Array.isArray(body)) {
      // A bare array says nothing of pages: a short or empty one is the last.
      return { entries: body, next: body.length < perPage || body.length === 0 ? null : page + 1 };
    }
    const data = body.data;
    let next: number | null;
    if (data.length === 0) next = null;
    else if (body.next_page !== undefined) next = body.next_page;
    else if (body.last_page !== undefined && body.last_page !== null) next = page < body.last_page ? page + 1 : null;
    else if (body.next_page_url !== undefined) next = body.next_page_url ? page + 1 : null;
    else next = data.length < (body.per_page ?? perPage) ? null : page + 1;
    if (next !== null && next <= page) {
      throw new BadResponseError('GET /drive/file-entries', `page ${page} names page ${next} as the next one`);
    }
    return { entries: data, next, ...(typeof body.total === 'number' ? { total: body.total } : {}) };
  }

  /**
   * How many entries match, from the paginator's total of a page past the end (no entries moved); null where the
   * server gives no total or answers entries for a page past the end (it ignores the page asked for).
   */
  async count(filter: Omit<ListFilter, 'perPage'>, signal?: AbortSignal): Promise<number | null> {
    const past = await this.page({ ...filter, perPage: 1 }, PAST_THE_END, signal);
    return past.entries.length > 0 || past.total === undefined ? null : past.total;
  }

  /** Every entry matching the filter, page by page, without holding more than one page. */
  async *list(filter: ListFilter = {}, signal?: AbortSignal): AsyncGenerator<FileEntry> {
    let page: number | null = 1;
    let previousFirst: number | undefined;
    while (page !== null) {
      if (page > MAX_PAGES) throw new BadResponseError('GET /drive/file-entries', 'the listing does not end');
      const answer: Page = await this.page(filter, page, signal);
      const first = answer.entries[0]?.id;
      if (page > 1 && first !== undefined && first === previousFirst) {
        // The server ignored `page` and answered the same page again.
        throw new BadResponseError('GET /drive/file-entries', `page ${page} repeats page ${page - 1}`);
      }
      previousFirst = first;
      yield* answer.entries;
      page = answer.next;
    }
  }

  /**
   * The whole drive (or the trees under `rootId`, or under each of `rootIds`: what they hold, not themselves). The documents say a listing without parentIds holds every entry;
   * deployed versions answer only the root's children. So: list without parentIds, and if no entry there has a
   * parent, walk the folders breadth-first with many parentIds per request.
   */
  async *tree(
    options: { rootId?: EntryId | null; rootIds?: readonly EntryId[]; perPage?: number; type?: string; signal?: AbortSignal } = {},
  ): AsyncGenerator<FileEntry> {
    const { perPage, signal, type } = options;
    let frontier: EntryId[] = [];
    if (options.rootIds) {
      frontier = [...new Set(options.rootIds)];
    } else if (options.rootId) {
      frontier = [options.rootId];
    } else {
      let nested = false;
      for await (const entry of this.list({ perPage, ...(type ? { type } : {}) }, signal)) {
        if (entry.parent_id !== null && entry.parent_id !== undefined) nested = true;
        else if (entry.type === 'folder') frontier.push(entry.id);
        yield entry;
      }
      if (nested) return;
    }
    const seen = new Set<EntryId>(frontier);
    while (frontier.length > 0) {
      const next: EntryId[] = [];
      for (let i = 0; i < frontier.length; i += PARENT_BATCH) {
        const parentIds = frontier.slice(i, i + PARENT_BATCH);
        for await (const entry of this.list({ perPage, parentIds, ...(type ? { type } : {}) }, signal)) {
          if (entry.type === 'folder' && !seen.has(entry.id)) {
            seen.add(entry.id);
            next.push(entry.id);
          }
          yield entry;
        }
      }
      frontier = next;
    }
  }

  async rename(id: EntryId, name: string): Promise<FileEntry> {
    return this.update(id, { name });
  }

  async update(id: EntryId, fields: { name?: string; description?: string | null }): Promise<FileEntry> {
    const { body } = await this.http.json({
      endpoint: 'PUT /file-entries/{entryId}',
      method: 'PUT',
      path: `file-entries/${id}`,
      json: fields,
      check: EntryResponse,
    });
    return body.fileEntry;
  }

  async createFolder(name: string, parentId: EntryId | null): Promise<FileEntry> {
    const { body } = await this.http.json({
      endpoint: 'POST /folders',
      method: 'POST',
      path: 'folders',
      json: { name, parentId },
      check: FolderResponse,
    });
    return body.folder;
  }

  /** Moves in batches the service accepts; `destinationId` null is the root. */
  async move(ids: readonly EntryId[], destinationId: EntryId | null): Promise<FileEntry[]> {
    const moved: FileEntry[] = [];
    for (let i = 0; i < ids.length; i += MOVE_BATCH) {
      const { body } = await this.http.json({
        endpoint: 'POST /file-entries/move',
        method: 'POST',
        path: 'file-entries/move',
        json: { entryIds: ids.slice(i, i + MOVE_BATCH), destinationId },
        check: EntriesResponse,
      });
      moved.push(...body.entries);
    }
    return moved;
  }

  async duplicate(ids: readonly EntryId[], destinationId?: EntryId | null): Promise<FileEntry[]> {
    const { body } = await this.http.json({
      endpoint: 'POST /file-entries/duplicate',
      method: 'POST',
      path: 'file-entries/duplicate',
      json: destinationId === undefined ? { entryIds: ids } : { entryIds: ids, destinationId },
      check: EntriesResponse,
    });
    return body.entries;
  }

  /** To the remote trash, restorable. `deleteForever` is always sent: one deployment deletes for good without it. */
  async trash(ids: readonly EntryId[]): Promise<void> {
    await this.delete(ids, false);
  }

  async deleteForever(ids: readonly EntryId[]): Promise<void> {
    await this.delete(ids, true);
  }

  private async delete(ids: readonly EntryId[], forever: boolean): Promise<void> {
    await this.http.json({
      endpoint: 'DELETE /file-entries',
      method: 'DELETE',
      path: 'file-entries',
      json: { entryIds: ids.map(String), deleteForever: forever ? 'true' : 'false' },
      check: Status,
    });
  }

  async restore(ids: readonly EntryId[]): Promise<void> {
    await this.http.json({
      endpoint: 'POST /file-entries/restore',
      method: 'POST',
      path: 'file-entries/restore',
      json: { entryIds: ids },
      check: Status,
    });
  }

  async star(ids: readonly EntryId[]): Promise<Tag> {
    return this.tag('star', ids);
  }

  async unstar(ids: readonly EntryId[]): Promise<Tag> {
    return this.tag('unstar', ids);
  }

  private async tag(action: 'star' | 'unstar', ids: readonly EntryId[]): Promise<Tag> {
    const { body } = await this.http.json({
      endpoint: `POST /file-entries/${action}`,
      method: 'POST',
      path: `file-entries/${action}`,
      json: { entryIds: ids },
      check: TagResponse,
    });
    return body.tag;
  }
}
