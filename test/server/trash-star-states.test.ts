// The "States and transitions" table of docs/spec/files-api.md, transition by transition, against the real server:
// active / in trash / removed permanently, and starred / not starred (per user).
import { describe, expect, it } from 'vitest';
import type { TSchema } from '@sinclair/typebox';
import { freshAccount, uploadForm, useTestServer, type Account, type Answer } from '../helpers/server.js';
import { checkedBody, expectSchema } from '../helpers/schema.js';
import { ErrorBody, FileEntry, FolderResponse, Paginator, Status, TagResponse, UploadResponse, UsersResponse, ValidationErrorBody } from '../../main/api/schemas.js';

const API = '/api/v1';
const ISO_MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

const server = useTestServer();

type Entry = FileEntry & { id: number };

const account = () => freshAccount(server, 'states');

async function list(who: Account, params: Record<string, string> = {}): Promise<Entry[]> {
  const search = new URLSearchParams({ perPage: '1000', ...params });
  const answer = await server.call(who.token, 'GET', `${API}/drive/file-entries?${search}`);
  return checkedBody(answer, Paginator).data;
}

async function upload(who: Account, name: string, parentId?: number): Promise<Entry> {
  const answer = await server.call(who.token, 'POST', `${API}/uploads`, uploadForm(name, `content of ${name}`, parentId ? { parentId } : {}));
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  expectSchema(UploadResponse, answer.body);
  return answer.body.fileEntry;
}

async function folder(who: Account, name: string): Promise<Entry> {
  return checkedBody(await server.call(who.token, 'POST', `${API}/folders`, { name, parentId: null }), FolderResponse).folder;
}

const trash = (who: Account, id: number, deleteForever?: string) =>
  server.call(who.token, 'DELETE', `${API}/file-entries`, deleteForever === undefined ? { entryIds: [id] } : { entryIds: [id], deleteForever });
const restore = (who: Account, id: number) => server.call(who.token, 'POST', `${API}/file-entries/restore`, { entryIds: [id] });
const star = (who: Account, id: number) => server.call(who.token, 'POST', `${API}/file-entries/star`, { entryIds: [id] });
const unstar = (who: Account, id: number) => server.call(who.token, 'POST', `${API}/file-entries/unstar`, { entryIds: [id] });

type Life = 'active' | 'trash' | 'removed';
interface State {
  life: Life;
  starred: boolean;
}
interface Observed {
  life: Life;
  /** In the caller's starredOnly listing (which holds active entries only). */
  listedStarred: boolean;
  deletedAt: string | null;
}

/** What the API shows of an entry at the top of the caller's tree. */
async function observe(who: Account, id: number): Promise<Observed> {
  const active = (await list(who)).find((e) => e.id === id);
  const trashed = (await list(who, { deletedOnly: 'true' })).find((e) => e.id === id);
  const starred = (await list(who, { starredOnly: 'true' })).some((e) => e.id === id);
  expect(active && trashed, 'an entry is never both active and in trash').toBeFalsy();
  if (active) {
    expect(active.deleted_at ?? null).toBeNull();
    return { life: 'active', listedStarred: starred, deletedAt: null };
  }
  if (trashed) {
    expect(trashed.deleted_at).toMatch(ISO_MICROS);
    return { life: 'trash', listedStarred: starred, deletedAt: trashed.deleted_at! };
  }
  // gone from both listings: it must not exist any more (starring an unknown entry is a 404 and changes nothing)
  const probe = await star(who, id);
  expect(probe.status).toBe(404);
  expectSchema(ErrorBody, probe.body);
  return { life: 'removed', listedStarred: starred, deletedAt: null };
}

/** A child file below the target: active (listed), hidden in trash (bytes still there) or removed. */
async function observeChild(who: Account, child: Entry): Promise<Life> {
  if ((await list(who)).some((e) => e.id === child.id)) return 'active';
  const content = await server.call(who.token, 'GET', `/${child.url}`);
  if (content.status === 200) return 'trash';
  expect(content.status).toBe(404);
  return 'removed';
}

interface Transition {
  name: string;
  from: State;
  trigger: (who: Account, id: number) => Promise<Answer>;
  response: TSchema;
  to: State;
  /** trash → trash keeps the time it first went to trash. */
  keepsDeletedAt?: boolean;
}

const ACTIVE = { life: 'active', starred: false } as const;
const ACTIVE_STARRED = { life: 'active', starred: true } as const;
const TRASH = { life: 'trash', starred: false } as const;
const TRASH_STARRED = { life: 'trash', starred: true } as const;
const REMOVED = { life: 'removed', starred: false } as const;

const transitions: Transition[] = [
  { name: 'active → in trash: DELETE, deleteForever absent', from: ACTIVE, trigger: (w, id) => trash(w, id), response: Status, to: TRASH },
  { name: 'active → in trash: DELETE, deleteForever "false"', from: ACTIVE, trigger: (w, id) => trash(w, id, 'false'), response: Status, to: TRASH },
  { name: 'active → removed: DELETE, deleteForever "true"', from: ACTIVE, trigger: (w, id) => trash(w, id, 'true'), response: Status, to: REMOVED },
  { name: 'in trash → removed: DELETE, deleteForever "true"', from: TRASH, trigger: (w, id) => trash(w, id, 'true'), response: Status, to: REMOVED },
  { name: 'in trash → active: restore', from: TRASH, trigger: restore, response: Status, to: ACTIVE },
  { name: 'not starred → starred: star', from: ACTIVE, trigger: star, response: TagResponse, to: ACTIVE_STARRED },
  { name: 'starred → not starred: unstar', from: ACTIVE_STARRED, trigger: unstar, response: TagResponse, to: ACTIVE },
  // idempotent repeats
  { name: 'starred → starred: star again', from: ACTIVE_STARRED, trigger: star, response: TagResponse, to: ACTIVE_STARRED },
  { name: 'not starred → not starred: unstar', from: ACTIVE, trigger: unstar, response: TagResponse, to: ACTIVE },
  { name: 'active → active: restore an active entry', from: ACTIVE, trigger: restore, response: Status, to: ACTIVE },
  { name: 'in trash → in trash: DELETE again', from: TRASH, trigger: (w, id) => trash(w, id), response: Status, to: TRASH, keepsDeletedAt: true },
  // the two dimensions are independent
  { name: 'starred, active → starred, in trash: DELETE', from: ACTIVE_STARRED, trigger: (w, id) => trash(w, id), response: Status, to: TRASH_STARRED },
  { name: 'starred, in trash → starred, active: restore', from: TRASH_STARRED, trigger: restore, response: Status, to: ACTIVE_STARRED },
  { name: 'starred → removed: DELETE, deleteForever "true"', from: ACTIVE_STARRED, trigger: (w, id) => trash(w, id, 'true'), response: Status, to: REMOVED },
  { name: 'in trash, not starred → in trash, starred: star', from: TRASH, trigger: star, response: TagResponse, to: TRASH_STARRED },
];

/** Brings a fresh entry to a state through the API. */
async function reach(who: Account, id: number, state: State): Promise<void> {
  if (state.starred) checkedBody(await star(who, id), TagResponse);
  if (state.life === 'trash') checkedBody(await trash(who, id), Status);
  if (state.life === 'removed') throw new Error('no transition starts from removed');
}

/** The starred dimension of an entry in trash does not show in listings: restore it to look (only in a copy of the world). */
async function starredAfterRestore(who: Account, id: number): Promise<boolean> {
  checkedBody(await restore(who, id), Status);
  return (await list(who, { starredOnly: 'true' })).some((e) => e.id === id);
}

describe('states and transitions', () => {
  for (const kind of ['file', 'folder'] as const) {
    describe(`of a ${kind}`, () => {
      it.each(transitions)('$name', async (t) => {
        const me = await account();
        const target = kind === 'file' ? await upload(me, 'target.txt') : await folder(me, 'target-folder');
        const child = kind === 'folder' ? await upload(me, 'child.txt', target.id) : null;
        const bystander = await upload(me, 'bystander.txt');
        await reach(me, target.id, t.from);
        const before = await observe(me, target.id);
        expect(before.life).toBe(t.from.life);
        expect(before.listedStarred).toBe(t.from.life === 'active' && t.from.starred);

        const answer = await t.trigger(me, target.id);
        const body = checkedBody(answer, t.response);
        expect(body.status).toBe('success');
        if (t.response === TagResponse) expect(body.tag.name).toBe('starred');

        const after = await observe(me, target.id);
        expect(after.life).toBe(t.to.life);
        expect(after.listedStarred).toBe(t.to.life === 'active' && t.to.starred);
        if (t.to.life === 'trash') {
          expect(after.deletedAt).toMatch(ISO_MICROS);
          if (t.keepsDeletedAt) expect(after.deletedAt).toBe(before.deletedAt);
          if (before.life === 'active') expect(Date.parse(after.deletedAt!)).toBeGreaterThanOrEqual(Date.parse((target.created_at as string) ?? ''));
        } else {
          expect(after.deletedAt).toBeNull();
        }
        // a folder's subtree follows it
        if (child) expect(await observeChild(me, child)).toBe(t.to.life);
        // nothing else changed
        expect((await list(me)).some((e) => e.id === bystander.id)).toBe(true);
        expect((await list(me, { starredOnly: 'true' })).some((e) => e.id === bystander.id)).toBe(false);
        // the starred mark of an entry in trash shows once it is back
        if (t.to.life === 'trash') expect(await starredAfterRestore(me, target.id)).toBe(t.to.starred);
      });
    });
  }

  it('walks one entry through every state in turn', async () => {
    const me = await account();
    const entry = await upload(me, 'walker.txt');
    const steps: Array<[string, () => Promise<Answer>, Life, boolean]> = [
      ['star', () => star(me, entry.id), 'active', true],
      ['trash', () => trash(me, entry.id, 'false'), 'trash', false],
      ['restore', () => restore(me, entry.id), 'active', true],
      ['unstar', () => unstar(me, entry.id), 'active', false],
      ['unstar again', () => unstar(me, entry.id), 'active', false],
      ['trash', () => trash(me, entry.id), 'trash', false],
      ['delete forever', () => trash(me, entry.id, 'true'), 'removed', false],
    ];
    for (const [name, step, life, listedStarred] of steps) {
      const answer = await step();
      expect(answer.status, `${name}: ${JSON.stringify(answer.body)}`).toBe(200);
      const seen = await observe(me, entry.id);
      expect({ name, life: seen.life, listedStarred: seen.listedStarred }).toEqual({ name, life, listedStarred });
    }
    // removed is final: nothing brings it back
    expect((await restore(me, entry.id)).status).toBe(404);
    expect((await trash(me, entry.id)).status).toBe(404);
    expect((await unstar(me, entry.id)).status).toBe(404);
  });

  it('restores to the original folder, or to the root when that folder is in trash', async () => {
    const me = await account();
    const home = await folder(me, 'home');
    const file = await upload(me, 'moving.txt', home.id);
    checkedBody(await trash(me, file.id), Status);
    checkedBody(await restore(me, file.id), Status);
    expect((await list(me)).find((e) => e.id === file.id)).toMatchObject({ parent_id: home.id, path: `${home.id}/${file.id}` });
    checkedBody(await trash(me, file.id), Status);
    checkedBody(await trash(me, home.id), Status);
    // the file went to trash on its own, but with its folder in trash only the folder is listed
    expect((await list(me, { deletedOnly: 'true' })).map((e) => e.id)).toEqual([home.id]);
    checkedBody(await restore(me, file.id), Status);
    expect((await list(me)).find((e) => e.id === file.id)).toMatchObject({ parent_id: null, path: String(file.id) });
    expect((await list(me, { deletedOnly: 'true' })).map((e) => e.id)).toEqual([home.id]);
  });
});

describe('stars are per user', () => {
  async function sharedFile() {
    const owner = await account();
    const friend = await account();
    const entry = await upload(owner, 'shared.txt');
    const answer = await server.call(owner.token, 'POST', `${API}/file-entries/${entry.id}/share`, { emails: [friend.email], permissions: ['view'] });
    checkedBody(answer, UsersResponse);
    return { owner, friend, entry };
  }
  const starredIds = async (who: Account) => (await list(who, { starredOnly: 'true' })).map((e) => e.id);

  it('the owner\'s star is not seen by a user the entry is shared with, and the other way round', async () => {
    const { owner, friend, entry } = await sharedFile();
    checkedBody(await star(owner, entry.id), TagResponse);
    expect(await starredIds(owner)).toEqual([entry.id]);
    expect(await starredIds(friend)).toEqual([]);
    expect((await list(friend, { sharedOnly: 'true' })).map((e) => e.id)).toEqual([entry.id]);

    checkedBody(await star(friend, entry.id), TagResponse);
    expect(await starredIds(friend)).toEqual([entry.id]);
    checkedBody(await unstar(owner, entry.id), TagResponse);
    expect(await starredIds(owner)).toEqual([]);
    expect(await starredIds(friend)).toEqual([entry.id]);
    checkedBody(await unstar(friend, entry.id), TagResponse);
    expect(await starredIds(friend)).toEqual([]);
  });

  it('a star of a shared entry follows the owner\'s trash and restore', async () => {
    const { owner, friend, entry } = await sharedFile();
    checkedBody(await star(friend, entry.id), TagResponse);
    checkedBody(await trash(owner, entry.id), Status);
    expect(await starredIds(friend)).toEqual([]);
    checkedBody(await restore(owner, entry.id), Status);
    expect(await starredIds(friend)).toEqual([entry.id]);
    checkedBody(await trash(owner, entry.id, 'true'), Status);
    expect(await starredIds(friend)).toEqual([]);
  });

  it('a user who lost access no longer lists the entry as starred', async () => {
    const { owner, friend, entry } = await sharedFile();
    checkedBody(await star(friend, entry.id), TagResponse);
    expect(await starredIds(friend)).toEqual([entry.id]);
    const unshared = await server.call(owner.token, 'DELETE', `${API}/file-entries/${entry.id}/unshare`, { userId: friend.id });
    checkedBody(unshared, UsersResponse);
    expect(await starredIds(friend)).toEqual([]);
    // sharing again brings the star back: it was the friend's all along
    checkedBody(await server.call(owner.token, 'POST', `${API}/file-entries/${entry.id}/share`, { emails: [friend.email], permissions: ['view'] }), UsersResponse);
    expect(await starredIds(friend)).toEqual([entry.id]);
  });

  it('a stranger cannot star; star and unstar answer 401, 404 and 422', async () => {
    const { owner, entry } = await sharedFile();
    const stranger = await account();
    const refused = await star(stranger, entry.id);
    expect(refused.status).toBe(403);
    expectSchema(ErrorBody, refused.body);
    expect((await unstar(stranger, entry.id)).status).toBe(403);
    expect(await starredIds(stranger)).toEqual([]);
    for (const action of ['star', 'unstar']) {
      const noToken = await server.call(null, 'POST', `${API}/file-entries/${action}`, { entryIds: [entry.id] });
      expect(noToken.status).toBe(401);
      expectSchema(ErrorBody, noToken.body);
      const unknown = await server.call(owner.token, 'POST', `${API}/file-entries/${action}`, { entryIds: [99999999] });
      expect(unknown.status).toBe(404);
      expectSchema(ErrorBody, unknown.body);
      for (const body of [{}, { entryIds: [] }, { entryIds: ['abc'] }, { entryIds: 'nope' }]) {
        const bad = await server.call(owner.token, 'POST', `${API}/file-entries/${action}`, body);
        expect(bad.status, JSON.stringify(body)).toBe(422);
        expectSchema(ValidationErrorBody, bad.body);
        expect(typeof bad.body.status).toBe('string');
        expect(Object.keys(bad.body.errors).join(' ')).toContain('entryIds');
      }
    }
    // one unknown id among known ones: nothing is starred
    expect((await server.call(owner.token, 'POST', `${API}/file-entries/star`, { entryIds: [entry.id, 99999999] })).status).toBe(404);
    expect(await starredIds(owner)).toEqual([]);
  });
});
