// Pagination of GET /drive/file-entries in both list formats: the default paginator object and the bare array
// (--list-format array), against two real servers on loopback ports.
import { beforeAll, describe, expect, it } from 'vitest';
import { Value } from '@sinclair/typebox/value';
import { Type } from '@sinclair/typebox';
import { freshAccount, uploadForm, useTestServer, type Account, type TestServer } from '../helpers/server.js';
import { checkedBody, expectSchema } from '../helpers/schema.js';
import { EntryListResponse, FileEntry, FolderResponse, Paginator, Status, UploadResponse, ValidationErrorBody } from '../../main/api/schemas.js';

const API = '/api/v1';
const EntryArray = Type.Array(FileEntry);

const paginated = useTestServer();
const bare = useTestServer({ listFormat: 'array' });

type Entry = FileEntry & { id: number };

const account = (server: TestServer) => freshAccount(server, 'pages');

/** n entries: files at the root and in a folder, and folders, so that the listing spans depths. */
async function fill(server: TestServer, who: Account, n: number): Promise<number[]> {
  const made: number[] = [];
  let parent: number | null = null;
  for (let i = 0; made.length < n; i++) {
    if (i % 4 === 0) {
      const answer = await server.call(who.token, 'POST', `${API}/folders`, { name: `folder-${i}`, parentId: null });
      const folder = checkedBody(answer, FolderResponse).folder as Entry;
      made.push(folder.id);
      parent = folder.id;
    } else {
      const fields = i % 2 === 0 && parent !== null ? { parentId: parent } : {};
      const answer = await server.call(who.token, 'POST', `${API}/uploads`, uploadForm(`file-${i}.txt`, `#${i}`, fields));
      expect(answer.status).toBe(201);
      expectSchema(UploadResponse, answer.body);
      made.push(answer.body.fileEntry.id);
    }
  }
  return made;
}

const listPath = (params: Record<string, string | number>) =>
  `${API}/drive/file-entries?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]))}`;

async function page(server: TestServer, who: Account, params: Record<string, string | number>): Promise<any> {
  const body = checkedBody(await server.call(who.token, 'GET', listPath(params)), EntryListResponse);
  return body;
}

async function paginatorPage(who: Account, params: Record<string, string | number>): Promise<any> {
  const body = await page(paginated, who, params);
  expectSchema(Paginator, body);
  for (const entry of body.data) expectSchema(FileEntry, entry);
  return body;
}

async function arrayPage(who: Account, params: Record<string, string | number>): Promise<Entry[]> {
  const body = await page(bare, who, params);
  expect(Array.isArray(body)).toBe(true);
  expectSchema(EntryArray, body);
  return body;
}

const ids = (entries: ReadonlyArray<{ id: number }>) => entries.map((e) => e.id);

describe('paginator format', () => {
  let who: Account;
  let all: number[];
  const N = 11;
  beforeAll(async () => {
    who = await account(paginated);
    all = await fill(paginated, who, N);
  });

  it('without page or perPage answers one page of up to 50 with the totals', async () => {
    const body = await paginatorPage(who, {});
    expect(ids(body.data)).toEqual(all);
    expect(body).toMatchObject({ current_page: 1, from: 1, to: N, last_page: 1, next_page: null, prev_page: null, per_page: 50, total: N });
  });

  it('perPage 1..n+1: every page has the right slice, numbers and links, and the walk returns each entry once', async () => {
    for (let perPage = 1; perPage <= N + 1; perPage++) {
      const lastPage = Math.ceil(N / perPage);
      const seen: number[] = [];
      let current: number | null = 1;
      let pages = 0;
      while (current !== null) {
        const body = await paginatorPage(who, { perPage, page: current });
        const start = (current - 1) * perPage;
        expect({ perPage, page: current, ids: ids(body.data) }).toEqual({ perPage, page: current, ids: all.slice(start, start + perPage) });
        expect(body).toMatchObject({
          current_page: current,
          per_page: perPage,
          total: N,
          last_page: lastPage,
          from: start + 1,
          to: Math.min(start + perPage, N),
          prev_page: current > 1 ? current - 1 : null,
          next_page: current < lastPage ? current + 1 : null,
        });
        seen.push(...ids(body.data));
        current = body.next_page;
        pages++;
        expect(pages).toBeLessThanOrEqual(lastPage);
      }
      expect(pages).toBe(lastPage);
      expect(seen).toEqual(all);
      expect(new Set(seen).size).toBe(N);
    }
  });

  it('a page past the end has empty data, null from/to and no next page', async () => {
    for (const [perPage, pageNo] of [
      [5, 4],
      [5, 100],
      [50, 2],
      [1, N + 1],
      [1000, 2],
    ] as const) {
      const body = await paginatorPage(who, { perPage, page: pageNo });
      expect(body).toMatchObject({
        current_page: pageNo,
        data: [],
        from: null,
        to: null,
        next_page: null,
        total: N,
        per_page: perPage,
        last_page: Math.ceil(N / perPage),
      });
    }
  });

  it('an empty drive is one empty page', async () => {
    const empty = await account(paginated);
    const body = await paginatorPage(empty, { perPage: 3 });
    expect(body).toMatchObject({ current_page: 1, data: [], from: null, to: null, last_page: 1, next_page: null, prev_page: null, total: 0 });
  });

  it('the default of 50 per page and the maximum of 1000', async () => {
    const many = await account(paginated);
    const made = await fill(paginated, many, 53);
    const first = await paginatorPage(many, {});
    expect(ids(first.data)).toEqual(made.slice(0, 50));
    expect(first).toMatchObject({ per_page: 50, total: 53, last_page: 2, next_page: 2, from: 1, to: 50 });
    const second = await paginatorPage(many, { page: 2 });
    expect(ids(second.data)).toEqual(made.slice(50));
    expect(second).toMatchObject({ from: 51, to: 53, next_page: null, prev_page: 1 });
    const max = await paginatorPage(many, { perPage: 1000 });
    expect(ids(max.data)).toEqual(made);
    expect(max.last_page).toBe(1);
  });

  it('totals and pages follow the filter: trashed entries (newest first) and a type', async () => {
    const mine = await account(paginated);
    const made = await fill(paginated, mine, 12);
    const texts = (await paginatorPage(mine, { type: 'text', perPage: 1000 })).data as Entry[];
    expect(texts.length).toBeGreaterThan(3);
    const seen: number[] = [];
    for (let p = 1; ; p++) {
      const body = await paginatorPage(mine, { type: 'text', perPage: 2, page: p });
      expect(body.total).toBe(texts.length);
      for (const entry of body.data) expect(entry.type).toBe('text');
      seen.push(...ids(body.data));
      if (body.next_page === null) break;
    }
    expect(seen).toEqual(ids(texts));

    // trash three root files one by one: deletedOnly lists them newest first, across pages
    const rootFiles = ((await paginatorPage(mine, { perPage: 1000 })).data as Entry[]).filter((e) => e.type !== 'folder' && e.parent_id === null);
    const trashed = rootFiles.slice(0, 3).map((e) => e.id);
    expect(trashed).toHaveLength(3);
    for (const id of trashed) {
      checkedBody(await paginated.call(mine.token, 'DELETE', `${API}/file-entries`, { entryIds: [id] }), Status);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const trashPages: number[] = [];
    for (let p = 1; p <= 3; p++) {
      const body = await paginatorPage(mine, { deletedOnly: 'true', perPage: 1, page: p });
      expect(body).toMatchObject({ total: 3, last_page: 3, current_page: p });
      trashPages.push(...ids(body.data));
    }
    expect(trashPages).toEqual([...trashed].reverse());
    const active = await paginatorPage(mine, { perPage: 5 });
    expect(active.total).toBe(made.length - 3);
    expect(active.last_page).toBe(Math.ceil((made.length - 3) / 5));
  });

  it('refuses perPage and page outside their ranges with 422', async () => {
    const bad: Array<Record<string, string | number>> = [{ perPage: 0 }, { perPage: 1001 }, { perPage: -5 }, { page: 0 }, { page: 'two' }, { perPage: '1.5' }];
    for (const params of bad) {
      const answer = await paginated.call(who.token, 'GET', listPath(params));
      expect(answer.status, JSON.stringify(params)).toBe(422);
      expectSchema(ValidationErrorBody, answer.body);
      expect(typeof answer.body.status).toBe('string');
      expect(Object.keys(answer.body.errors).join(' ')).toMatch(/perPage|page/);
    }
  });
});

describe('array format', () => {
  let who: Account;
  let all: number[];
  const N = 9;
  beforeAll(async () => {
    who = await account(bare);
    all = await fill(bare, who, N);
  });

  it('answers the page as a bare array, 50 by default', async () => {
    const body = await arrayPage(who, {});
    expect(ids(body)).toEqual(all);
    const many = await account(bare);
    const made = await fill(bare, many, 52);
    expect(ids(await arrayPage(many, {}))).toEqual(made.slice(0, 50));
    expect(ids(await arrayPage(many, { page: 2 }))).toEqual(made.slice(50));
  });

  it('perPage 1..n+1: walking pages until an empty one returns every entry exactly once', async () => {
    for (let perPage = 1; perPage <= N + 1; perPage++) {
      const seen: number[] = [];
      let pageNo = 1;
      for (;;) {
        const body = await arrayPage(who, { perPage, page: pageNo });
        const start = (pageNo - 1) * perPage;
        expect({ perPage, pageNo, ids: ids(body) }).toEqual({ perPage, pageNo, ids: all.slice(start, start + perPage) });
        if (body.length === 0) break;
        expect(body.length).toBeLessThanOrEqual(perPage);
        seen.push(...ids(body));
        pageNo++;
        expect(pageNo).toBeLessThanOrEqual(N + 2);
      }
      expect(pageNo - 1).toBe(Math.ceil(N / perPage));
      expect(seen).toEqual(all);
      expect(new Set(seen).size).toBe(N);
    }
  });

  it('a page past the end is []', async () => {
    for (const [perPage, pageNo] of [
      [3, 4],
      [3, 50],
      [50, 2],
      [1000, 7],
    ] as const) {
      expect(await arrayPage(who, { perPage, page: pageNo })).toEqual([]);
    }
    const empty = await account(bare);
    expect(await arrayPage(empty, {})).toEqual([]);
  });

  it('filters page the same way, and refuses bad numbers with 422', async () => {
    const folders = await arrayPage(who, { type: 'folder', perPage: 1000 });
    expect(folders.length).toBeGreaterThan(1);
    const walked: number[] = [];
    for (let p = 1; p <= folders.length + 1; p++) walked.push(...ids(await arrayPage(who, { type: 'folder', perPage: 1, page: p })));
    expect(walked).toEqual(ids(folders));
    const bad: Array<Record<string, string | number>> = [{ perPage: 0 }, { perPage: 1001 }, { page: 0 }];
    for (const params of bad) {
      const answer = await bare.call(who.token, 'GET', listPath(params));
      expect(answer.status).toBe(422);
      expectSchema(ValidationErrorBody, answer.body);
    }
  });

  it('holds the same entries as the paginator would: same fields per entry', async () => {
    const body = await arrayPage(who, { perPage: 2 });
    expect(Value.Check(Paginator, body)).toBe(false);
    for (const entry of body) {
      expect(entry).toHaveProperty('hash');
      expect(entry).toHaveProperty('path');
      expect(entry).toHaveProperty('users');
      expect(entry).toHaveProperty('parent');
    }
  });
});
