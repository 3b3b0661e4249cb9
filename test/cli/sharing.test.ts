import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSavedLists } from '../../main/app/host/saved-lists.js';
import { statePaths } from '../../main/state/paths.js';
import { addList } from '../../server/lists.js';
import { cli, expectOneLineError, makeTree, newAccount, signedInHome, tempDir, useCliTestServer, type TestAccount } from './helpers.js';
import { PROFILES } from '../helpers/server.js';

// Every command runs against both profiles of the reference server: as the documents say, and as deployed versions answer.
// The tests that run a dozen commands one after another, beside the file's other concurrent tests, get room (90 s).
describe.each(PROFILES)('sharing commands against the %s profile', (profile) => {
  const server = useCliTestServer({ profile });
  let owner: TestAccount;
  let friend: TestAccount;
  let home: string;
  let dir: string;

  const FILES = {
    'share.txt': 'to share',
    'list-share.txt': 'for a mailing list',
    'link.txt': 'linked content',
    'star.txt': 'a star',
    'trash-me.txt': 'soon in the trash',
    'Folder/inner.txt': 'inside',
  };

  beforeAll(async () => {
    [owner, friend] = await Promise.all([newAccount(server, 'owner'), newAccount(server, 'friend')]);
    home = await signedInHome(server, owner);
    dir = join(tempDir(), 'Drive');
    makeTree(dir, FILES);
    const synced = await cli(['sync', dir, '--once'], { home });
    expect(synced.code, synced.stderr).toBe(0);
  });

  /** An entry of the owner's drive, as the API lists it (with its users). */
  async function entry(name: string, token = owner.token) {
    const answer = await server.call(token, 'GET', `/api/v1/drive/file-entries?perPage=1000&query=${encodeURIComponent(name)}`);
    expect(answer.status).toBe(200);
    const found = answer.body.data.find((e: { name: string }) => e.name === name) as { id: number; users: Array<{ id: number; email: string; owns_entry?: boolean }> } | undefined;
    // The people it is shared with (deployed versions name the owner among the users too).
    return found && { ...found, users: found.users.filter((u) => u.owns_entry !== true) };
  }

  describe.concurrent('share and unshare', { timeout: 90_000 }, () => {
    it('shares with people by e-mail, reports addresses the drive does not know, and unshares', async () => {
      const file = join(dir, 'share.txt');
      const shared = await cli(['share', file, '--email', friend.email, '--email', 'nobody-here@example.com', '--perm', 'view,edit'], { home });
      expect(shared.code, shared.stderr).toBe(0);
      expect(shared.stdout).toContain('shared share.txt (view, edit) with 1 person:');
      expect(shared.stdout).toContain(`  ${friend.email}`);
      expect(shared.stdout).toMatch(/not shared, no account on the drive: 1\n {2}nobody-here@example\.com/);
      expect((await entry('share.txt'))!.users.map((u) => u.email)).toEqual([friend.email]);
      // The friend can now see it.
      const sharedWithFriend = await server.call(friend.token, 'GET', '/api/v1/drive/file-entries?sharedOnly=true');
      expect(sharedWithFriend.body.data.map((e: { name: string }) => e.name)).toContain('share.txt');

      const unshared = await cli(['unshare', file, '--email', friend.email], { home });
      expect(unshared.code, unshared.stderr).toBe(0);
      expect(unshared.stdout).toContain(`share.txt is no longer shared with ${friend.email}`);
      expect((await entry('share.txt'))!.users).toEqual([]);

      const again = await cli(['unshare', file, '--email', friend.email], { home });
      expect(again.code).toBe(1);
      expectOneLineError(again, /is not shared with/);

      const nobody = await cli(['share', file, '--email', 'ghost@example.com'], { home });
      expect(nobody.code).toBe(1);
      expect(nobody.stdout).toContain('ghost@example.com');
      expectOneLineError(nobody, /nothing was shared/);
    });

    it('shares with every subscribed member of a mailing list, all pages, and reports unknown addresses', async () => {
      const listId = addList(server.context.db, 'Readers', owner.email);
      // 120 subscribers: more than a page of the index. Two have accounts; one of those unsubscribes.
      const member = await newAccount(server, 'member');
      const leaver = await newAccount(server, 'leaver');
      const emails = [member.email, leaver.email, ...Array.from({ length: 118 }, (_, i) => `reader-${i}@example.com`)];
      const uids: string[] = [];
      for (const email of emails) {
        const stored = await server.call(owner.token, 'GET', `/api/v1/lists/${listId}/subscribers/store?EMAIL=${encodeURIComponent(email)}`);
        expect(stored.status).toBe(200);
        uids.push(stored.body.subscriber_uid);
      }
      const unsub = await cli(['lists', 'unsubscribe', listId, uids[1]!], { home });
      expect(unsub.code, unsub.stderr).toBe(0);

      const result = await cli(['share', join(dir, 'list-share.txt'), '--list', listId, '--perm', 'view'], { home });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('shared list-share.txt (view) with 1 person:');
      expect(result.stdout).toContain(`  ${member.email}`);
      expect(result.stdout).toContain('not shared, no account on the drive: 118');
      expect(result.stdout).toContain('reader-117@example.com');
      expect(result.stdout).not.toContain(leaver.email);
      expect((await entry('list-share.txt'))!.users.map((u) => u.email)).toEqual([member.email]);

      const empty = addList(server.context.db, 'Empty', owner.email);
      const none = await cli(['share', join(dir, 'list-share.txt'), '--list', empty], { home });
      expect(none.code).toBe(1);
      expectOneLineError(none, /has no subscribed members/);
      const unknownList = await cli(['share', join(dir, 'list-share.txt'), '--list', 'ffffffffffff0'], { home });
      expect(unknownList.code).toBe(1);
      expectOneLineError(unknownList, /there is no mailing list ffffffffffff0; nothing was shared/);
    });

    it('fails with one line for a path outside the synced folders, not synced, or the folder itself; usage errors exit 2', async () => {
      const outside = join(tempDir(), 'elsewhere.txt');
      const [notInside, notSynced, theRoot, notSignedIn] = await Promise.all([
        cli(['share', outside, '--email', friend.email], { home }),
        cli(['share', join(dir, 'never-created.txt'), '--email', friend.email], { home }),
        cli(['share', dir, '--email', friend.email], { home }),
        cli(['share', join(dir, 'share.txt'), '--email', friend.email], { home: tempDir() }),
      ]);
      expectOneLineError(notInside, /is not inside a synced folder/);
      expectOneLineError(notSynced, /is not synced/);
      expectOneLineError(theRoot, /is the synced folder itself/);
      expectOneLineError(notSignedIn, /not signed in: run drivesync login/);
      for (const r of [notInside, notSynced, theRoot, notSignedIn]) expect(r.code).toBe(1);

      const usage = await Promise.all([
        cli(['share', join(dir, 'share.txt')], { home }),
        cli(['share', join(dir, 'share.txt'), '--email', friend.email, '--list', 'abc'], { home }),
        cli(['share', join(dir, 'share.txt'), '--email', friend.email, '--perm', 'view,own'], { home }),
        cli(['share', join(dir, 'share.txt'), '--email', 'not-an-address'], { home }),
        cli(['share', '--email', friend.email], { home }),
        cli(['unshare', join(dir, 'share.txt')], { home }),
      ]);
      for (const r of usage) {
        expect(r.code, r.stderr).toBe(2);
        expectOneLineError(r);
      }
    });
  });

  describe.concurrent('link', { timeout: 90_000 }, () => {
    it('creates a link with a password and expiry, shows, updates and deletes it; the public URL serves the file', async () => {
      const file = join(dir, 'link.txt');
      const created = await cli(['link', file, '--password', 'open-sesame', '--expires', '2099-01-01T00:00:00Z'], { home });
      expect(created.code, created.stderr).toBe(0);
      const url = created.stdout.split('\n')[0]!;
      expect(url).toMatch(new RegExp(`^${server.url}/drive/s/[A-Za-z0-9_-]+$`));
      expect(created.stdout).toContain('password: yes, expires: 2099-01-01');
      expect(created.stdout + created.stderr).not.toContain('open-sesame');
      expect((await fetch(url)).status).toBe(401);
      const opened = await fetch(`${url}?password=open-sesame`);
      expect(opened.status).toBe(200);
      expect(await opened.text()).toBe('linked content');

      const shown = await cli(['link', file, '--show'], { home });
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout.split('\n')[0]).toBe(url);
      expect(shown.stdout).toContain('password: yes');

      // Changing another setting never drops the password as a side effect: it is refused, naming both ways on.
      const refused = await cli(['link', file, '--no-download', '--allow-edit'], { home });
      expect(refused.code).toBe(1);
      expectOneLineError(refused, /has a password, and the drive removes it on any change that does not give it again: add --password P to keep one, or --no-password to remove it; nothing was changed/);
      expect((await cli(['link', file, '--show'], { home })).stdout).toContain('password: yes');
      // Updating keeps the URL; the password goes when asked.
      const updated = await cli(['link', file, '--no-download', '--allow-edit', '--no-password'], { home });
      expect(updated.code, updated.stderr).toBe(0);
      expect(updated.stdout.split('\n')[0]).toBe(url);
      expect(updated.stdout).toContain('password: no, expires: never, download: no, edit: yes');
      expect(updated.stderr).toMatch(/^drivesync: the link no longer has a password$/m);
      expect((await fetch(url)).status).toBe(403);

      const deleted = await cli(['link', file, '--delete'], { home });
      expect(deleted.code, deleted.stderr).toBe(0);
      expect(deleted.stdout).toContain('deleted the link of link.txt');
      expect((await fetch(url)).status).toBe(404);

      const none = await cli(['link', file, '--show'], { home });
      expect(none.code).toBe(1);
      expectOneLineError(none, /link\.txt has no shareable link/);
      const noneToDelete = await cli(['link', file, '--delete'], { home });
      expect(noneToDelete.code).toBe(1);
      expectOneLineError(noneToDelete, /has no shareable link/);
    });

    it('a folder gets a link too', async () => {
      const result = await cli(['link', join(dir, 'Folder')], { home });
      expect(result.code, result.stderr).toBe(0);
      const answer = await fetch(result.stdout.split('\n')[0]!);
      expect(answer.status).toBe(200);
      expect(JSON.stringify(await answer.json())).toContain('inner.txt');
    });

    it('usage errors exit 2 with one line', async () => {
      const file = join(dir, 'link.txt');
      const cases = [
        ['link', file, '--show', '--delete'],
        ['link', file, '--show', '--password', 'x'],
        ['link', file, '--delete', '--no-download'],
        ['link', file, '--expires', 'next tuesday'],
        ['link', file, '--expires', '2001-01-01'],
        ['link', file, '--password', ''],
        ['link'],
      ];
      const results = await Promise.all(cases.map((c) => cli(c, { home })));
      for (const [i, r] of results.entries()) {
        expect(r.code, `${cases[i]!.join(' ')}: ${r.stderr}`).toBe(2);
        expectOneLineError(r);
      }
    });
  });

  describe.concurrent('star, unstar', () => {
    it('stars and unstars a synced file', async () => {
      const starred = async () =>
        (await server.call(owner.token, 'GET', '/api/v1/drive/file-entries?starredOnly=true')).body.data.map((e: { name: string }) => e.name);
      const star = await cli(['star', join(dir, 'star.txt')], { home });
      expect(star.code, star.stderr).toBe(0);
      expect(star.stdout.trim()).toBe('starred star.txt');
      expect(await starred()).toContain('star.txt');
      const unstar = await cli(['unstar', join(dir, 'star.txt')], { home });
      expect(unstar.code, unstar.stderr).toBe(0);
      expect(unstar.stdout.trim()).toBe('unstarred star.txt');
      expect(await starred()).not.toContain('star.txt');

      const [missing, usage] = await Promise.all([cli(['star', join(dir, 'no-such.txt')], { home }), cli(['unstar'], { home })]);
      expect(missing.code).toBe(1);
      expectOneLineError(missing, /no-such\.txt is not synced \(no such file or folder\)/);
      expect(usage.code).toBe(2);
      expectOneLineError(usage);
    });

    it('a path made relative to the working directory works', async () => {
      const result = await cli(['star', 'Folder/inner.txt'], { home, cwd: dir });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.trim()).toBe('starred Folder/inner.txt');
    });
  });

  describe('trash', () => {
    it('lists the remote trash (table and --json) and restores by path; the next sync brings the file back', async () => {
      rmSync(join(dir, 'trash-me.txt'));
      const synced = await cli(['sync', dir, '--once'], { home });
      expect(synced.code, synced.stderr).toBe(0);
      expect(synced.stdout).toContain("moved to the drive's trash: trash-me.txt");

      const table = await cli(['trash'], { home });
      expect(table.code, table.stderr).toBe(0);
      expect(table.stdout).toMatch(/^ID\s+DELETED\s+SIZE\s+PATH$/m);
      expect(table.stdout).toMatch(/17 B\s+trash-me\.txt$/m);
      const json = await cli(['trash', 'ls', '--json'], { home });
      const listed = JSON.parse(json.stdout) as Array<{ id: number; name: string; path: string; size: number; deletedAt: string }>;
      expect(listed).toEqual([expect.objectContaining({ name: 'trash-me.txt', path: 'trash-me.txt', size: 17, type: 'text' })]);
      expect(Date.parse(listed[0]!.deletedAt)).not.toBeNaN();

      const missing = await cli(['trash', 'restore', 'not-in-trash.txt'], { home });
      expect(missing.code).toBe(1);
      expectOneLineError(missing, /nothing in the trash matches not-in-trash\.txt/);

      // By its old local path.
      const restored = await cli(['trash', 'restore', join(dir, 'trash-me.txt')], { home });
      expect(restored.code, restored.stderr).toBe(0);
      expect(restored.stdout.trim()).toBe('restored trash-me.txt');
      expect(JSON.parse((await cli(['trash', 'ls', '--json'], { home })).stdout)).toEqual([]);
      expect(await entry('trash-me.txt')).toBeTruthy();

      const back = await cli(['sync', dir, '--once'], { home });
      expect(back.code, back.stderr).toBe(0);
      expect(existsSync(join(dir, 'trash-me.txt'))).toBe(true);
      expect(readFileSync(join(dir, 'trash-me.txt'), 'utf8')).toBe('soon in the trash');

      const usage = await cli(['trash', 'restore'], { home });
      expect(usage.code).toBe(2);
      expectOneLineError(usage);
    });

    it('restores in bulk: several paths and globs at once, or what this computer trashed lately (--since)', async () => {
      const account = await newAccount(server, 'bulk-restore');
      const bulkHome = await signedInHome(server, account);
      const root = join(tempDir(), 'Drive');
      makeTree(root, { 'Archive/a.txt': 'a', 'Pictures/p.jpg': 'p', 'notes-1.md': 'n1', 'notes-2.md': 'n2', 'keep.txt': 'k' });
      expect((await cli(['sync', root, '--once'], { home: bulkHome })).code).toBe(0);
      for (const path of ['Archive', 'Pictures', 'notes-1.md', 'notes-2.md']) rmSync(join(root, path), { recursive: true });
      const trashed = await cli(['sync', root, '--once'], { home: bulkHome });
      expect(trashed.code, trashed.stderr).toBe(0);
      const several = await cli(['trash', 'restore', 'Archive', 'Pictures', 'notes-*.md'], { home: bulkHome });
      expect(several.code, several.stderr).toBe(0);
      expect(several.stdout.trim().split('\n')).toEqual([
        'restored Archive',
        'restored Pictures',
        'restored notes-1.md',
        'restored notes-2.md',
        '4 entries restored; the next sync brings them back here',
      ]);
      expect(JSON.parse((await cli(['trash', 'ls', '--json'], { home: bulkHome })).stdout)).toEqual([]);
      // Gone again; then what this computer trashed in the last ten minutes comes back at once.
      expect((await cli(['sync', root, '--once'], { home: bulkHome })).code).toBe(0);
      for (const path of ['Archive', 'notes-1.md']) rmSync(join(root, path), { recursive: true });
      expect((await cli(['sync', root, '--once'], { home: bulkHome })).code).toBe(0);
      const lately = await cli(['trash', 'restore', '--since', '10m'], { home: bulkHome });
      expect(lately.code, lately.stderr).toBe(0);
      expect(lately.stdout).toContain('restored Archive');
      expect(lately.stdout).toContain('restored notes-1.md');
      expect((await cli(['sync', root, '--once'], { home: bulkHome })).code).toBe(0);
      expect(readFileSync(join(root, 'Archive', 'a.txt'), 'utf8')).toBe('a');
      const bad = await cli(['trash', 'restore', '--since', 'yesterday'], { home: bulkHome });
      expect(bad.code).toBe(2);
      expectOneLineError(bad, /--since takes a time such as 30s, 10m, 2h or 1d/);
    });
  });

  describe.concurrent('lists', { timeout: 90_000 }, () => {
    it('adds, lists (table and --json), unsubscribes, subscribes and removes subscribers', async () => {
      const listId = addList(server.context.db, 'Club', owner.email);
      const added = await cli(['lists', 'add', listId, 'ada@example.com', '--field', 'FIRST_NAME=Ada', '--field', 'LAST_NAME=Lovelace'], { home });
      expect(added.code, added.stderr).toBe(0);
      const uid = added.stdout.trim();
      expect(uid).toMatch(/^[0-9a-f]{13}$/);

      const table = await cli(['lists', 'subscribers', listId], { home });
      expect(table.code, table.stderr).toBe(0);
      expect(table.stdout).toMatch(/^ID\s+STATUS\s+EMAIL\s+FIRST_NAME\s+LAST_NAME$/m);
      expect(table.stdout).toMatch(new RegExp(`^${uid}\\s+subscribed\\s+ada@example\\.com\\s+Ada\\s+Lovelace$`, 'm'));

      const unsub = await cli(['lists', 'unsubscribe', listId, uid], { home });
      expect(unsub.stdout.trim()).toBe(`unsubscribed ${uid}`);
      const again = await cli(['lists', 'unsubscribe', listId, uid], { home });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout.trim()).toBe(`${uid} was already unsubscribed`);
      const json = JSON.parse((await cli(['lists', 'subscribers', listId, '--json'], { home })).stdout);
      expect(json).toEqual([expect.objectContaining({ uid, email: 'ada@example.com', status: 'unsubscribed', FIRST_NAME: 'Ada' })]);
      const sub = await cli(['lists', 'subscribe', listId, uid], { home });
      expect(sub.stdout.trim()).toBe(`subscribed ${uid}`);

      const removed = await cli(['lists', 'remove', listId, uid], { home });
      expect(removed.code, removed.stderr).toBe(0);
      expect(removed.stdout.trim()).toBe(`removed ${uid} from ${listId}`);
      const empty = await cli(['lists', 'subscribers', listId], { home });
      expect(empty.stdout.trim()).toBe(`list ${listId} has no subscribers`);
      expect(JSON.parse((await cli(['lists', 'subscribers', listId, '--json'], { home })).stdout)).toEqual([]);
    });

    it('the remembered subscriber count follows add, unsubscribe, subscribe and remove', async () => {
      const myHome = await signedInHome(server, owner);
      const listId = addList(server.context.db, 'Choir', owner.email);
      expect((await cli(['lists', 'remember', listId, 'Choir'], { home: myHome })).stdout.trim()).toBe(`remembered list ${listId} as Choir (0 subscribed)`);
      const count = async () => {
        const table = await cli(['lists'], { home: myHome });
        expect(table.code, table.stderr).toBe(0);
        return Number(new RegExp(`^Choir\\s+${listId}\\s+(\\d+)\\s`, 'm').exec(table.stdout)?.[1]);
      };
      const added = await cli(['lists', 'add', 'Choir', 'ada@example.com'], { home: myHome });
      expect(added.code, added.stderr).toBe(0);
      const uid = added.stdout.trim();
      expect(await count()).toBe(1);
      expect((await cli(['lists', 'unsubscribe', 'Choir', uid], { home: myHome })).code).toBe(0);
      expect(await count()).toBe(0);
      expect((await cli(['lists', 'subscribe', 'Choir', uid], { home: myHome })).code).toBe(0);
      expect(await count()).toBe(1);
      expect((await cli(['lists', 'remove', 'Choir', uid], { home: myHome })).code).toBe(0);
      expect(await count()).toBe(0);
      // The window reads the same count.
      expect(loadSavedLists(statePaths({ DRIVESYNC_HOME: myHome }), { server: server.url, email: owner.email })).toEqual([
        { id: listId, name: 'Choir', subscribers: 0, lastUsed: expect.any(String), entries: [] },
      ]);
    });

    it('fails with one line for an unknown list, another account’s list or an unknown field; a duplicate as its profile answers', async () => {
      const theirs = addList(server.context.db, 'Theirs', friend.email);
      const mine = addList(server.context.db, 'Mine', owner.email);
      const first = await cli(['lists', 'add', mine, 'dup@example.com'], { home });
      expect(first.code, first.stderr).toBe(0);
      const results = await Promise.all([
        cli(['lists', 'subscribers', 'ffffffffffff0'], { home }),
        cli(['lists', 'subscribers', theirs], { home }),
        cli(['lists', 'add', mine, 'x@example.com', '--field', 'NOPE=1'], { home }),
        cli(['lists', 'remove', mine, 'ffffffffffff0'], { home }),
      ]);
      for (const r of results) {
        expect(r.code, r.stderr).toBe(1);
        expectOneLineError(r);
      }
      // An address the list has: refused as documented; deployed versions update that subscriber and answer its id.
      const dup = await cli(['lists', 'add', mine, 'dup@example.com'], { home });
      if (profile === 'deployed') {
        expect(dup.code, dup.stderr).toBe(0);
        expect(dup.stdout).toBe(first.stdout);
      } else {
        expect(dup.code).toBe(1);
        expectOneLineError(dup, /refused by the server/);
      }
      expect(results[0]!.stderr).toMatch(/there is no mailing list ffffffffffff0/);
      expect(results[1]!.stderr).toMatch(/not allowed/);
      expect(results[2]!.stderr).toMatch(/the list has no field NOPE \(its fields: FIRST_NAME, LAST_NAME\)/);
      // A subscriber that is not there is named as such, not as something missing from the drive.
      expect(results[3]!.stderr).toMatch(new RegExp(`remove failed: list ${mine} has no subscriber ffffffffffff0`));
      expect(results[3]!.stderr).not.toMatch(/on the drive/);
      const noList = await cli(['lists', 'remove', 'ffffffffffff0', 'ffffffffffff1'], { home });
      expect(noList.code).toBe(1);
      expectOneLineError(noList, /remove failed: there is no mailing list ffffffffffff0/);
    });

    it('remembers the lists used, by name, in the lists.json the window reads; fields match in any case', async () => {
      const myHome = await signedInHome(server, owner);
      const myDir = join(tempDir(), 'Drive');
      makeTree(myDir, { 'club.txt': 'for the club' });
      expect((await cli(['sync', myDir, '--once'], { home: myHome })).code).toBe(0);
      const listId = addList(server.context.db, 'Club', owner.email);

      const none = await cli(['lists'], { home: myHome });
      expect(none.code, none.stderr).toBe(0);
      expect(none.stdout).toMatch(/^no mailing lists remembered yet: drivesync lists remember LIST_ID NAME adds one$/m);

      const remembered = await cli(['lists', 'remember', listId, 'Chess club'], { home: myHome });
      expect(remembered.code, remembered.stderr).toBe(0);
      expect(remembered.stdout.trim()).toBe(`remembered list ${listId} as Chess club (0 subscribed)`);
      const missing = await cli(['lists', 'remember', 'ffffffffffff0', 'Ghosts'], { home: myHome });
      expect(missing.code).toBe(1);
      expectOneLineError(missing, /there is no mailing list ffffffffffff0/);

      // The remembered name stands for the id; the first subscriber teaches nothing, so fields go in upper case.
      const ada = await cli(['lists', 'add', 'chess CLUB', 'ada@example.com', '--field', 'first_name=Ada'], { home: myHome });
      expect(ada.code, ada.stderr).toBe(0);
      // From then on a field is matched against the list's own, whatever its case.
      const bob = await cli(['lists', 'add', listId, `${friend.email}`, '--field', 'First_Name=Bob', '--field', 'last_name=Ross'], { home: myHome });
      expect(bob.code, bob.stderr).toBe(0);
      const subscribers = JSON.parse((await cli(['lists', 'subscribers', 'Chess club', '--json'], { home: myHome })).stdout);
      expect(subscribers).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ email: 'ada@example.com', FIRST_NAME: 'Ada' }),
          expect.objectContaining({ email: friend.email, FIRST_NAME: 'Bob', LAST_NAME: 'Ross' }),
        ]),
      );

      const shared = await cli(['share', join(myDir, 'club.txt'), '--list', 'Chess club'], { home: myHome });
      expect(shared.code, shared.stderr).toBe(0);
      expect(shared.stdout).toContain('shared club.txt (view, download) with 1 person:');

      const table = await cli(['lists', 'ls'], { home: myHome });
      expect(table.stdout).toMatch(/^NAME\s+ID\s+SUBSCRIBED\s+LAST USED$/m);
      expect(table.stdout).toMatch(new RegExp(`^Chess club\\s+${listId}\\s+2\\s+\\d{4}-`, 'm'));
      // The window's remembered lists are these very ones.
      const inWindow = loadSavedLists(statePaths({ DRIVESYNC_HOME: myHome }), { server: server.url, email: owner.email });
      expect(inWindow).toEqual([{ id: listId, name: 'Chess club', subscribers: 2, lastUsed: expect.any(String), entries: [expect.any(Number)] }]);

      const forgot = await cli(['lists', 'forget', 'chess club'], { home: myHome });
      expect(forgot.stdout.trim()).toBe(`forgot list Chess club (${listId})`);
      expect(JSON.parse((await cli(['lists', 'ls', '--json'], { home: myHome })).stdout)).toEqual([]);
      const again = await cli(['lists', 'forget', 'chess club'], { home: myHome });
      expect(again.code).toBe(1);
      expectOneLineError(again, /no remembered list chess club/);

      // The help shows no internal default for --field.
      const help = await cli(['lists', 'add', '--help'], { home: myHome });
      expect(help.stdout).toContain('--field <key=value>');
      expect(help.stdout).not.toContain('default:');
    });

    it('usage errors exit 2 with one line', async () => {
      const cases = [
        ['lists', 'subscribers'],
        ['lists', 'add', 'abc'],
        ['lists', 'add', 'abc', 'not-an-address'],
        ['lists', 'add', 'abc', 'a@example.com', '--field', 'novalue'],
        ['lists', 'add', 'abc', 'a@example.com', '--field', 'EMAIL=x@example.com'],
        ['lists', 'subscribe', 'abc'],
        ['lists', 'remove'],
        ['lists', 'subscribers', 'abc', '--bogus'],
      ];
      const results = await Promise.all(cases.map((c) => cli(c, { home })));
      for (const [i, r] of results.entries()) {
        expect(r.code, `${cases[i]!.join(' ')}: ${r.stderr}`).toBe(2);
        expectOneLineError(r);
      }
    });
  });
  describe('who has access, and shared with me', { timeout: 120_000 }, () => {
    it('share ls tells the owner, the people, the link and the lists; the person it is shared with gets it under Shared with me, may not share it, and shared lists both sides', async () => {
      const folder = join(dir, 'Folder');
      expect((await cli(['share', folder, '--email', friend.email, '--perm', 'view,download'], { home })).code).toBe(0);
      expect((await cli(['link', folder, '--no-download'], { home })).code).toBe(0);
      const ls = await cli(['share', 'ls', folder], { home });
      expect(ls.code, ls.stderr).toBe(0);
      expect(ls.stdout).toContain('Folder (folder)\n  owner: you\n  people:\n');
      expect(ls.stdout).toContain(`    ${friend.email}  view, download`);
      expect(ls.stdout).toMatch(/ {2}link: http:\/\/127\.0\.0\.1:\d+\/drive\/s\/\S+\n {4}password: no, expires: never, download: no, edit: no/);
      expect(ls.stdout).toContain('mailing lists: none that this computer shared it with');
      const json = JSON.parse((await cli(['share', 'ls', folder, '--json'], { home })).stdout);
      expect(json).toMatchObject({ path: 'Folder', mine: true, people: [{ email: friend.email, permissions: ['view', 'download'] }], link: { allowDownload: false } });

      // The friend's computer: it arrives, and it is theirs to read, not to share.
      const friendHome = await signedInHome(server, friend);
      const friendDir = join(tempDir(), 'Drive');
      mkdirSync(friendDir, { recursive: true });
      const synced = await cli(['sync', friendDir, '--once'], { home: friendHome });
      expect(synced.code, synced.stderr).toBe(0);
      const where = profile === 'deployed' ? join(friendDir, 'Shared with me', owner.email, 'Folder') : join(friendDir, 'Shared with me', 'Folder');
      expect(readFileSync(join(where, 'inner.txt'), 'utf8')).toBe('inside');
      // status says what is shared with them, and where it is.
      const status = await cli(['status'], { home: friendHome });
      expect(status.stdout).toMatch(/\n {4}shared: {4}\d+ items? shared with you, in Shared with me\/, \d+ of them to view only \(drivesync shared lists them\)\n/);
      const statusJson = JSON.parse((await cli(['status', '--json'], { home: friendHome })).stdout);
      expect(statusJson.roots[0]).toMatchObject({ sharedFolder: 'Shared with me', shared: { folder: 'Shared with me' } });
      expect(statusJson.roots[0].shared.viewOnly).toBeGreaterThanOrEqual(1);
      const theirs = await cli(['share', 'ls', join(where, 'inner.txt')], { home: friendHome });
      expect(theirs.code, theirs.stderr).toBe(0);
      expect(theirs.stdout).toContain(`owner: ${profile === 'deployed' ? owner.email : 'someone else (the drive does not say who)'}`);
      expect(theirs.stdout).toContain('you may: view, download (your changes here stay on this computer)');
      const refused = await cli(['share', where, '--email', owner.email], { home: friendHome });
      expect(refused.code).toBe(1);
      expectOneLineError(refused, profile === 'deployed' ? new RegExp(`is shared with you by ${owner.email}: only its owner can share it`) : /is shared with you: only its owner can share it/);
      const own = await cli(['share', join(friendDir, 'Shared with me'), '--email', owner.email], { home: friendHome });
      expectOneLineError(own, /is the folder drivesync keeps what others share with you in; it is not on the drive/);

      // A shared folder can be left off this computer like a folder of one's own; drivesync's own folder cannot.
      const excluded = await cli(['exclude', where], { home: friendHome });
      expect(excluded.code, excluded.stderr).toBe(0);
      expect(existsSync(where)).toBe(false);
      const listed = JSON.parse((await cli(['excluded', '--json'], { home: friendHome })).stdout);
      expect(listed.roots[0].excluded[0].path).toBe(where.slice(friendDir.length + 1));
      const included = await cli(['include', where], { home: friendHome });
      expect(included.code, included.stderr).toBe(0);
      expect(readFileSync(join(where, 'inner.txt'), 'utf8')).toBe('inside');
      expectOneLineError(await cli(['exclude', join(friendDir, 'Shared with me')], { home: friendHome }), /is drivesync's own folder for what others share with you/);

      const shared = JSON.parse((await cli(['shared', '--json'], { home: friendHome })).stdout);
      // The file's other tests share more with the friend meanwhile.
      expect(shared.sharedWithMe).toContainEqual({ entryId: (await entry('Folder'))!.id, name: 'Folder', type: 'folder', owner: profile === 'deployed' ? owner.email : null, permissions: { edit: false, download: true } });
      const mine = await cli(['shared'], { home });
      expect(mine.code, mine.stderr).toBe(0);
      expect(mine.stdout).toMatch(new RegExp(`Folder\\s+folder\\s+${friend.email.replace(/[.]/g, '\\.')} \\(view, download\\)`));
      expect(mine.stdout).toContain('shared with you: nothing');
    });

    it('a symbolic link is refused in one line that names what it points to', async () => {
      const { symlinkSync } = await import('node:fs');
      const link = join(dir, 'a-link');
      symlinkSync(join(dir, 'share.txt'), link);
      try {
        const result = await cli(['share', link, '--email', friend.email], { home });
        expect(result.code).toBe(1);
        expectOneLineError(result, /a-link is a symbolic link, which drivesync does not sync \(it has no entry on the drive\): name what it points to, .*share\.txt/);
      } finally {
        rmSync(link, { force: true });
      }
    });
  });

  describe('a name that is not valid UTF-8', { timeout: 90_000 }, () => {
    it('every command that takes a path says the item is not synced and why, not that it does not exist', async () => {
      const own = await signedInHome(server, await newAccount(server, 'latin1'));
      const root = join(tempDir(), 'Drive');
      makeTree(root, { 'ok.txt': 'ok' });
      // Made as an older system names them: é as the single byte 0xE9.
      writeFileSync(Buffer.from(`${root}/caf\xe9.txt`, 'latin1'), 'legacy');
      mkdirSync(Buffer.from(`${root}/d\xe9j\xe0`, 'latin1'));
      writeFileSync(Buffer.from(`${root}/d\xe9j\xe0/inside.txt`, 'latin1'), 'inside');
      const synced = await cli(['sync', root, '--once'], { home: own });
      expect(synced.stderr).toMatch(/caf\\xe9\.txt: cannot be read: its name is not valid UTF-8/);
      /** The command with its last argument as the shell passes it: the name's bytes, which node decodes with U+FFFD. */
      const withBytes = (args: string[], octal: string) =>
        cli(args, { home: own, env: { DS_ROOT: root }, prefix: ['sh', '-c', `exec "$@" "$(printf "%s/${octal}" "$DS_ROOT")"`, 'sh'] });
      const notSynced = (name: string) => new RegExp(`^drivesync: .*/${name} is not synced: its name is not valid UTF-8, which the drive cannot hold; rename it$`);
      for (const command of [['link'], ['link', '--show'], ['star'], ['unstar'], ['versions'], ['share', '--email', friend.email, '--'], ['share', 'ls'], ['unshare', '--email', friend.email, '--']]) {
        const result = await withBytes(command, 'caf\\351.txt');
        expect(result.code, `${command.join(' ')}: ${result.stderr}`).toBe(1);
        expectOneLineError(result, notSynced('caf\\\\xe9\\.txt'));
      }
      const excluded = await withBytes(['exclude'], 'd\\351j\\340');
      expect(excluded.code, excluded.stderr).toBe(1);
      expectOneLineError(excluded, notSynced('d\\\\xe9j\\\\xe0'));
      const inside = await withBytes(['link'], 'd\\351j\\340/inside.txt');
      expectOneLineError(inside, /d\\xe9j\\xe0\/inside\.txt is not synced: the name d\\xe9j\\xe0 on its path is not valid UTF-8/);
      // A name that is not there at all is still said as such.
      expectOneLineError(await withBytes(['link'], 'gone\\351.txt'), /is not synced \(no such file or folder\)$/);
    });
  });
});
