/**
 * Shared with me, end to end: two accounts on one reference server, in both modes and both profiles. Alice shares a
 * folder of her drive with Bob; Bob's engine (the `sharedPlace` option, as openFolder gives it from the config) places
 * it under `Shared with me/`, by owner where the drive says who owns it (the deployed profile does), keeps the copies
 * of what he may only view read-only and never sends a change to them, sends what he may edit, and lets the copies go
 * to the OS trash when Alice stops sharing. Then both computers live at once.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Permission } from '../../main/api/schemas.js';
import type { DeletionQuestion } from '../../main/sync/engine/deletions.js';
import { PROFILES, startTestServer, type TestServer } from '../helpers/server.js';
import { localTree, newAccount, settleEngine, sorted, type Account, type Computer, SCENARIO_CASES } from '../helpers/sync.js';
import { setTimeout as sleep } from 'node:timers/promises';

const FOLDER = 'Shared with me';

describe.each(SCENARIO_CASES)('shared with me (%s, %s)', (mode, profile) => {
  let server: TestServer;
  let alice: Account;
  let bob: Account;
  beforeEach(async () => {
    server = await startTestServer({ profile });
    alice = await newAccount(server, { mode, profile });
    bob = await newAccount(server, { mode, profile });
  });
  afterEach(async () => {
    await alice.close();
    await bob.close();
    await server.close();
  });

  /** Where Alice's shared entries arrive on Bob's computer: under her e-mail where the drive names the owner. */
  const place = () => (profile === 'deployed' ? `${FOLDER}/${alice.email}` : FOLDER);
  const bobsComputer = (name = 'bob-laptop') =>
    bob.computer(name, { sharedPlace: () => ({ folder: FOLDER, me: bob.email }), sharedWalkSpacingMs: () => 0 });

  /** Alice's computer with Pictures (a file, a subfolder with a file), synced, and Pictures shared with Bob. */
  async function aliceShares(permissions: Permission[]): Promise<{ a: Computer; pictures: number }> {
    const a = alice.computer('alice-desktop');
    mkdirSync(join(a.root, 'Pictures', 'trip'), { recursive: true });
    writeFileSync(join(a.root, 'Pictures', 'cat.jpg'), 'cat');
    writeFileSync(join(a.root, 'Pictures', 'trip', 'sea.jpg'), 'sea');
    writeFileSync(join(a.root, 'private.txt'), 'mine');
    expect((await a.sync()).inSync).toBe(true);
    const pictures = (await alice.entryIds()).get('Pictures')!;
    const result = await alice.client.sharing.share(pictures, [bob.email], permissions);
    expect(result.unknown).toEqual([]);
    return { a, pictures };
  }

  const writable = (path: string) => (statSync(path).mode & 0o222) !== 0;

  it('what Alice shares arrives under Shared with me, read-only when Bob may only view it, and nothing else of hers', async () => {
    await aliceShares(['view', 'download']);
    const b = bobsComputer();
    expect((await b.sync()).inSync).toBe(true);
    const p = place();
    expect(sorted(localTree(b.root))).toEqual(
      Object.fromEntries(Object.entries({
        [FOLDER]: '/',
        ...(profile === 'deployed' ? { [p]: '/' } : {}),
        [`${p}/Pictures`]: '/',
        [`${p}/Pictures/cat.jpg`]: 'cat',
        [`${p}/Pictures/trip`]: '/',
        [`${p}/Pictures/trip/sea.jpg`]: 'sea',
      }).sort(([x], [y]) => (x < y ? -1 : 1))),
    );
    expect(writable(join(b.root, p, 'Pictures', 'cat.jpg'))).toBe(false);
    // Bob's own drive holds nothing of it.
    expect([...(await bob.remoteTree()).keys()]).toEqual([]);
  });

  it('a change Bob makes to what he may only view is never uploaded: his version is kept as a copy, new files stay here, a deletion comes back', async () => {
    const { pictures } = await aliceShares(['view', 'download']);
    const b = bobsComputer();
    await b.sync();
    const dir = join(b.root, place(), 'Pictures');
    const notices: string[] = [];
    b.engine.on('notice', (m) => notices.push(m));
    chmodSync(join(dir, 'cat.jpg'), 0o644);
    writeFileSync(join(dir, 'cat.jpg'), 'bob drew on it');
    writeFileSync(join(dir, 'bobs.txt'), 'new here');
    rmSync(join(dir, 'trip'), { recursive: true });
    await b.sync();
    await b.sync();
    // Alice's drive is as she left it.
    const drive = await alice.remoteTree();
    expect(drive.get('Pictures/cat.jpg')).toBe('cat');
    expect(drive.get('Pictures/trip/sea.jpg')).toBe('sea');
    expect(drive.has('Pictures/bobs.txt')).toBe(false);
    // Bob keeps his version beside the drive's, his new file, and the folder he deleted is back.
    const local = localTree(b.root);
    const p = place();
    expect(local.get(`${p}/Pictures/cat.jpg`)).toBe('cat');
    const copies = [...local.entries()].filter(([path]) => path.startsWith(`${p}/Pictures/cat (conflicted copy`));
    expect(copies.map(([, content]) => content)).toEqual(['bob drew on it']);
    expect(local.get(`${p}/Pictures/bobs.txt`)).toBe('new here');
    expect(local.get(`${p}/Pictures/trip/sea.jpg`)).toBe('sea');
    expect(notices.some((m) => m.includes('Pictures is shared with you to view only'))).toBe(true);
    // Told once, as what it is: the drive's side did not change, so it is not called a change on both sides.
    expect(notices.filter((m) => m.includes('cat'))).toEqual([`${p}/Pictures/cat.jpg: Pictures is shared with you to view only: your change is kept as a copy beside it, and the drive's version comes back`]);
    // Nothing was sent to Alice's entries: no upload, rename, move or trash under her folder.
    expect(bob.requests.filter((r) => /^(POST \/uploads|PUT \/file-entries|POST \/file-entries\/move|DELETE \/file-entries)/.test(r))).toEqual([]);
    expect(pictures).toBeGreaterThan(0);
  });

  it('with edit Bob changes Alice\'s folder; she renames it and moves it and it keeps its place; she stops sharing and the copies go to the OS trash', async () => {
    const { a, pictures } = await aliceShares(['view', 'edit', 'download']);
    const b = bobsComputer();
    await b.sync();
    const p = place();
    const dir = join(b.root, p, 'Pictures');
    expect(writable(join(dir, 'cat.jpg'))).toBe(true);
    writeFileSync(join(dir, 'cat.jpg'), 'bob edited');
    writeFileSync(join(dir, 'from-bob.txt'), 'hello alice');
    expect((await b.sync()).inSync).toBe(true);
    await a.sync();
    expect(sorted(localTree(a.root))).toMatchObject({ 'Pictures/cat.jpg': 'bob edited', 'Pictures/from-bob.txt': 'hello alice' });
    // Alice renames it: Bob's copy is renamed in place, not downloaded again.
    renameSync(join(a.root, 'Pictures'), join(a.root, 'Photos'));
    await a.sync();
    const inode = statSync(join(dir, 'trip', 'sea.jpg')).ino;
    await b.sync();
    expect(existsSync(join(b.root, p, 'Photos', 'trip', 'sea.jpg'))).toBe(true);
    expect(statSync(join(b.root, p, 'Photos', 'trip', 'sea.jpg')).ino).toBe(inode);
    expect(existsSync(dir)).toBe(false);
    // Alice moves it into another folder of hers: it keeps its place here.
    mkdirSync(join(a.root, 'Archive'));
    renameSync(join(a.root, 'Photos'), join(a.root, 'Archive', 'Photos'));
    await a.sync();
    await b.sync();
    expect(statSync(join(b.root, p, 'Photos', 'trip', 'sea.jpg')).ino).toBe(inode);
    expect(existsSync(join(b.root, p, 'Archive'))).toBe(false);
    // Bob deleting the shared folder itself does not delete it for Alice: it comes back.
    rmSync(join(b.root, p, 'Photos'), { recursive: true });
    await b.sync();
    await b.sync();
    expect(existsSync(join(b.root, p, 'Photos', 'cat.jpg'))).toBe(true);
    expect((await alice.remoteTree()).get('Archive/Photos/cat.jpg')).toBe('bob edited');
    // Alice stops sharing: Bob's copies go to the OS trash, with what he changed in them.
    writeFileSync(join(b.root, p, 'Photos', 'late.txt'), 'not sent yet');
    const users = await alice.client.sharing.unshare(pictures, (await bobId(alice, pictures, bob.email))!);
    expect(users.some((u) => u.email === bob.email)).toBe(false);
    await b.sync();
    await b.sync();
    // The shared folder stays, empty; the copies went to the OS trash, Bob's late file with them.
    expect(readdirSync(join(b.root, FOLDER))).toEqual([]);
    expect(b.trashed.some((t) => t.includes(FOLDER))).toBe(true);
    expect((await alice.remoteTree()).has('Archive/Photos/late.txt')).toBe(false);
  });

  it('a file Alice saves is told to Bob as updated, never as a share ended and a new one, also when the new entry is shared a poll later', async () => {
    const a = alice.computer('alice-desktop');
    mkdirSync(join(a.root, 'Docs'));
    writeFileSync(join(a.root, 'Docs', 'notes.txt'), 'v1');
    expect((await a.sync()).inSync).toBe(true);
    const first = (await alice.entryIds()).get('Docs/notes.txt')!;
    await alice.client.sharing.share(first, [bob.email], ['view', 'download']);
    const b = bobsComputer();
    const notices: string[] = [];
    b.engine.on('notice', (m) => notices.push(m));
    await b.sync();
    const copy = join(b.root, place(), 'notes.txt');
    const by = profile === 'deployed' ? ` by ${alice.email}` : '';
    const updated = `notes.txt was updated by ${profile === 'deployed' ? alice.email : 'its owner'}`;
    expect(readFileSync(copy, 'utf8')).toBe('v1');
    expect(notices).toEqual([`notes.txt was shared with you${by} (to view only)`]);
    // Alice saves it: her computer uploads a new entry, trashes the old one and shares the new one, as one change.
    notices.length = 0;
    writeFileSync(join(a.root, 'Docs', 'notes.txt'), 'v2');
    await a.sync();
    const second = (await alice.entryIds()).get('Docs/notes.txt')!;
    expect(second).not.toBe(first);
    await b.sync();
    expect(readFileSync(copy, 'utf8')).toBe('v2');
    expect(notices).toEqual([updated]);
    // Another client of hers saves it in steps Bob's computer sees apart: the old entry trashed, then a poll later
    // the new one shared.
    notices.length = 0;
    const scratch = join(a.root, '..', 'v3.txt');
    writeFileSync(scratch, 'v3');
    const docs = (await alice.entryIds()).get('Docs')!;
    const third = await alice.client.transfers.upload(scratch, { name: 'notes.txt', parentId: docs });
    await alice.client.entries.trash([second]);
    await b.sync();
    await alice.client.sharing.share(third.id, [bob.email], ['view', 'download']);
    await b.sync();
    expect(readFileSync(copy, 'utf8')).toBe('v3');
    expect(notices).toEqual([updated]);
  });

  it('a permission changed from view to edit gives the copies their write bits back, and Bob\'s edit then goes up', async () => {
    const { a, pictures } = await aliceShares(['view', 'download']);
    const b = bobsComputer();
    const notices: string[] = [];
    b.engine.on('notice', (m) => notices.push(m));
    await b.sync();
    const file = join(b.root, place(), 'Pictures', 'cat.jpg');
    expect(writable(file)).toBe(false);
    // A change while he may only view it is kept as a copy, and told so.
    chmodSync(file, 0o644);
    writeFileSync(file, 'bob, too early');
    await b.sync();
    await b.sync();
    expect(notices.filter((m) => m.includes('cat'))).toHaveLength(1);
    await alice.client.sharing.changePermissions(pictures, (await bobId(alice, pictures, bob.email))!, ['view', 'edit', 'download']);
    await b.sync();
    expect(writable(file)).toBe(true);
    writeFileSync(file, 'now bob may');
    await b.sync();
    expect((await alice.remoteTree()).get('Pictures/cat.jpg')).toBe('now bob may');
    // Later both change it: the conflict is told (as both sides changed, or, live, as saved on two computers at once).
    const before = notices.length;
    await a.sync();
    writeFileSync(join(a.root, 'Pictures', 'cat.jpg'), 'alice again');
    await a.sync();
    writeFileSync(file, 'bob again');
    await b.sync();
    await b.sync();
    const told = notices.slice(before).filter((m) => m.includes(`${place()}/Pictures/cat.jpg`) && m.includes(`${place()}/Pictures/cat (conflicted copy`));
    expect(told, notices.join('\n')).toHaveLength(1);
  });
});

/** Two accounts on a server of their own, for one test: Alice shares, Bob receives. */
async function twoAccounts(options: Parameters<typeof newAccount>[1], body: (accounts: { alice: Account; bob: Account }) => Promise<void>): Promise<void> {
  const server = await startTestServer({ profile: options?.profile ?? 'documents' });
  const alice = await newAccount(server, options);
  const bob = await newAccount(server, options);
  try {
    await body({ alice, bob });
  } finally {
    await alice.close();
    await bob.close();
    await server.close();
  }
}

/** The user id Alice's entry lists for Bob. */
async function bobId(alice: Account, id: number, email: string): Promise<number | undefined> {
  const entry = await findById(alice, id);
  return entry?.users?.find((u) => u.email === email)?.id;
}

async function findById(account: Account, id: number) {
  for await (const e of account.client.entries.tree()) if (e.id === id) return e;
  return undefined;
}

describe('shared with me: the share ends and Bob keeps his copies', () => {
  it('the deletion question says they are no longer shared with him; kept, they stay here and are not uploaded', async () => {
    await twoAccounts({ profile: 'deployed' }, async ({ alice, bob }) => {
      const a = alice.computer('alice-desktop');
      mkdirSync(join(a.root, 'Book'));
      for (const n of [1, 2, 3]) writeFileSync(join(a.root, 'Book', `chapter${n}.md`), `chapter ${n}`);
      await a.sync();
      const book = (await alice.entryIds()).get('Book')!;
      await alice.client.sharing.share(book, [bob.email], ['view', 'download']);
      const b = bob.computer('bob-laptop', { sharedPlace: () => ({ folder: FOLDER, me: bob.email }), maxDeletions: 2 });
      await b.sync();
      const questions: DeletionQuestion[] = [];
      b.engine.on('confirm-deletions', (q) => questions.push(q));
      const users = await alice.client.sharing.unshare(book, (await bobId(alice, book, bob.email))!);
      expect(users.map((u) => u.email)).not.toContain(bob.email);
      const asked = await b.sync();
      expect(asked.needsConfirmation).toBe(true);
      expect(questions.at(-1)?.groups.map((g) => g.why)).toEqual(['no longer shared with you (its owner stopped sharing it, or deleted it)']);
      b.engine.keepDeletions();
      await b.sync();
      await b.sync();
      const local = localTree(b.root);
      expect(local.get(`${FOLDER}/${alice.email}/Book/chapter2.md`)).toBe('chapter 2');
      expect(b.trashed).toEqual([]);
      // Nothing of it went to Bob's drive, nor back to Alice's.
      expect([...(await bob.remoteTree()).keys()]).toEqual([]);
      expect([...(await alice.remoteTree()).keys()].sort()).toEqual(['Book', 'Book/chapter1.md', 'Book/chapter2.md', 'Book/chapter3.md']);
    });
  });
});

describe.each(PROFILES)('a change inside a shared folder, between its spaced listings (%s)', (profile) => {
  it('a new file arrives at the next poll (the probe: how many entries, and the newest); a rename waits for the listing', async () => {
    await twoAccounts({ mode: 'live', profile }, async ({ alice, bob }) => {
      const a = alice.computer('alice-desktop');
      mkdirSync(join(a.root, 'Team', 'docs'), { recursive: true });
      writeFileSync(join(a.root, 'Team', 'docs', 'one.txt'), 'one');
      await a.sync();
      await alice.client.sharing.share((await alice.entryIds()).get('Team')!, [bob.email], ['view', 'download']);
      // What the shared folder holds is listed once an hour here: only the probe can bring a change sooner.
      const b = bob.computer('bob-laptop', { sharedPlace: () => ({ folder: FOLDER, me: bob.email }), sharedWalkSpacingMs: () => 3_600_000 });
      // Bob's own drive is not empty: its cheap checks answer, so a poll does not list everything.
      mkdirSync(join(b.root, 'Mine'));
      writeFileSync(join(b.root, 'Mine', 'note.txt'), 'mine');
      await b.sync();
      await b.sync();
      await b.sync();
      /** What the poll timer does: a look at the drive (the cheap checks, the shared entries, the probe), a pass if it shows a change. */
      const poll = async () => {
        await sleep(3_100); // looks are spaced by a few seconds
        bob.requests.length = 0;
        b.engine.lookNow();
        await settleEngine(b.engine);
      };
      await poll(); // the first look lists what the shared folder holds, and probes it
      writeFileSync(join(a.root, 'Team', 'docs', 'two.txt'), 'two');
      await a.sync();
      await poll();
      const place = profile === 'deployed' ? `${FOLDER}/${alice.email}` : FOLDER;
      expect(localTree(b.root).get(`${place}/Team/docs/two.txt`)).toBe('two');
      // The cheap checks of Bob's own drive, the shared entries, the probe (a one-entry page, then the last), the
      // listing of what the shared folder holds that it called for, the probe again for what it listed, the download:
      // no listing of Bob's drive.
      expect(bob.requests.filter((r) => r.startsWith('GET /drive/file-entries')).length).toBe(3 + 1 + 2 + 2 + 2);
      // A rename inside changes neither the count nor the newest entry: it waits for the hourly listing.
      renameSync(join(a.root, 'Team', 'docs', 'one.txt'), join(a.root, 'Team', 'docs', 'uno.txt'));
      await a.sync();
      await poll();
      expect(localTree(b.root).has(`${place}/Team/docs/one.txt`), bob.requests.join('\n')).toBe(true);
      expect(bob.requests).toHaveLength(3 + 1 + 2);
    });
  });
});

describe.each(PROFILES)('the share ends while Bob changes what it holds, before his computer has seen it end (%s)', (profile) => {
  it('what the drive refuses makes his computer look at what is shared again: his changes go to the OS trash with the copies, and nothing fails', async () => {
    await twoAccounts({ mode: 'live', profile }, async ({ alice, bob }) => {
      const a = alice.computer('alice-desktop');
      mkdirSync(join(a.root, 'Album'));
      writeFileSync(join(a.root, 'Album', 'one.jpg'), 'one');
      await a.sync();
      const album = (await alice.entryIds()).get('Album')!;
      await alice.client.sharing.share(album, [bob.email], ['view', 'edit', 'download']);
      // Bob's computer looks at the drive only when asked (an hour between polls): his own changes start its passes.
      const b = bob.computer('bob-laptop', { sharedPlace: () => ({ folder: FOLDER, me: bob.email }), sharedWalkSpacingMs: () => 0 });
      const notices: string[] = [];
      b.engine.on('notice', (m) => notices.push(m));
      const failed: string[] = [];
      b.engine.on('pass', (summary) => failed.push(...summary.failed.map((f) => `${f.path}: ${f.message}`)));
      await b.sync();
      const there = join(b.root, profile === 'deployed' ? `${FOLDER}/${alice.email}` : FOLDER, 'Album');
      expect(readdirSync(there)).toEqual(['one.jpg']);
      await alice.client.sharing.unshare(album, (await bobId(alice, album, bob.email))!);
      bob.requests.length = 0;
      writeFileSync(join(there, 'one.jpg'), 'bob edited');
      writeFileSync(join(there, 'two.jpg'), 'bob new');
      for (let waited = 0; waited < 20_000 && existsSync(there); waited += 50) await sleep(50);
      await settleEngine(b.engine);
      // The drive refused them; what is shared was listed again, and the copies went with his changes.
      expect(bob.requests.some((r) => r.startsWith('POST /uploads'))).toBe(true);
      expect(failed).toEqual([]);
      expect(existsSync(there)).toBe(false);
      expect(b.trashed.filter((t) => t.includes(FOLDER)).length, b.trashed.join('\n')).toBeGreaterThan(0);
      expect(notices.some((m) => m.includes('no longer shared with you'))).toBe(true);
      expect((await alice.remoteTree()).get('Album/one.jpg')).toBe('one');
      expect((await alice.remoteTree()).has('Album/two.jpg')).toBe(false);
    });
  });
});

describe('shared with me beside a folder of the same name of my own', () => {
  it('my own folder keeps its name here; the shared folder is numbered', async () => {
    await twoAccounts({}, async ({ alice, bob }) => {
      const a = alice.computer('alice-desktop');
      mkdirSync(join(a.root, 'Team'));
      writeFileSync(join(a.root, 'Team', 'x.txt'), 'x');
      await a.sync();
      const b = bob.computer('bob-laptop', { sharedPlace: () => ({ folder: FOLDER, me: bob.email }) });
      mkdirSync(join(b.root, FOLDER));
      writeFileSync(join(b.root, FOLDER, 'mine.txt'), 'mine');
      await b.sync();
      await alice.client.sharing.share((await alice.entryIds()).get('Team')!, [bob.email], ['view', 'download']);
      expect((await b.sync()).inSync).toBe(true);
      expect(sorted(localTree(b.root))).toEqual({
        [FOLDER]: '/',
        [`${FOLDER} (2)`]: '/',
        [`${FOLDER} (2)/Team`]: '/',
        [`${FOLDER} (2)/Team/x.txt`]: 'x',
        [`${FOLDER}/mine.txt`]: 'mine',
      });
      expect([...(await bob.remoteTree()).keys()].sort()).toEqual([FOLDER, `${FOLDER}/mine.txt`]);
    });
  });
});

describe('shared with me, to view without download', () => {
  it('the folders arrive, the files are left out and said so once, and nothing fails', async () => {
    await twoAccounts({}, async ({ alice, bob }) => {
      const a = alice.computer('alice-desktop');
      mkdirSync(join(a.root, 'Plans', 'old'), { recursive: true });
      writeFileSync(join(a.root, 'Plans', 'secret.pdf'), 'blueprint');
      await a.sync();
      await alice.client.sharing.share((await alice.entryIds()).get('Plans')!, [bob.email], ['view']);
      const b = bob.computer('bob-laptop', { sharedPlace: () => ({ folder: FOLDER, me: bob.email }) });
      const summary = await b.sync();
      expect(summary.failed).toEqual([]);
      expect(sorted(localTree(b.root))).toEqual({ [FOLDER]: '/', [`${FOLDER}/Plans`]: '/', [`${FOLDER}/Plans/old`]: '/' });
      expect((await b.sync()).failed).toEqual([]);
    });
  });
});

describe('shared with me, two computers live at once', () => {
  let server: TestServer;
  let alice: Account;
  let bob: Account;
  beforeEach(async () => {
    server = await startTestServer({ profile: 'deployed' });
    alice = await newAccount(server, { mode: 'live', profile: 'deployed' });
    bob = await newAccount(server, { mode: 'live', profile: 'deployed' });
  });
  afterEach(async () => {
    await alice.close();
    await bob.close();
    await server.close();
  });

  it('changes made on both sides while both run arrive on the other, and nothing is lost', async () => {
    const a = alice.computer('alice-desktop');
    mkdirSync(join(a.root, 'Project'));
    writeFileSync(join(a.root, 'Project', 'plan.txt'), 'v1');
    await a.sync();
    const project = (await alice.entryIds()).get('Project')!;
    await alice.client.sharing.share(project, [bob.email], ['view', 'edit', 'download']);
    const b = bob.computer('bob-laptop', { sharedPlace: () => ({ folder: FOLDER, me: bob.email }), sharedWalkSpacingMs: () => 0 });
    const notices: string[] = [];
    b.engine.on('notice', (m) => notices.push(m));
    await b.sync();
    expect(notices).toContain(`Project was shared with you by ${alice.email} (you may edit it)`);
    const there = join(b.root, FOLDER, alice.email, 'Project');
    expect(readdirSync(there)).toEqual(['plan.txt']);
    // At once: Alice adds a file, Bob adds another, both engines running.
    writeFileSync(join(a.root, 'Project', 'alice.txt'), 'from alice');
    writeFileSync(join(there, 'bob.txt'), 'from bob');
    await Promise.all([a.sync(), b.sync()]);
    await Promise.all([a.sync(), b.sync()]);
    expect(sorted(localTree(a.root))).toMatchObject({ 'Project/alice.txt': 'from alice', 'Project/bob.txt': 'from bob', 'Project/plan.txt': 'v1' });
    const bobs = localTree(b.root);
    expect(bobs.get(`${FOLDER}/${alice.email}/Project/alice.txt`)).toBe('from alice');
    expect(bobs.get(`${FOLDER}/${alice.email}/Project/bob.txt`)).toBe('from bob');
  });
});
