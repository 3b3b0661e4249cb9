import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROFILES, startTestServer, uploadForm } from '../helpers/server.js';
import { localTree, sorted } from '../helpers/sync.js';
import {
  cli,
  cliOnTty,
  expectNoStack,
  expectOneLineError,
  makeTree,
  newAccount,
  remoteTree,
  signedInHome,
  spawnCli,
  statusJson,
  tempDir,
  useCliTestServer,
} from './helpers.js';
import { eventually } from '../helpers/eventually.js';

// Against both profiles of the reference server: as the documents say, and as deployed versions answer.
describe.each(PROFILES)('sync against the %s profile', (profile) => {
  const server = useCliTestServer({ profile });

  // eslint-disable-next-line no-control-regex
  const ANSI = /\u001b\[/;

  describe.concurrent('drivesync sync --once', () => {
    it('symbolic links and ignored names are left out without failing the pass; status lists them as skipped', async () => {
      const account = await newAccount(server, 'skipped');
      const home = await signedInHome(server, account);
      const dir = join(tempDir(), 'Drive');
      makeTree(dir, { 'keep.txt': 'keep', 'draft.tmp': 'temp', '.DS_Store': 'clutter' });
      symlinkSync('/etc/hostname', join(dir, 'outside-link'));
      const result = await cli(['sync', dir, '--once'], { home });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^in sync \(1 change\)$/m);
      const status = await statusJson(home);
      expect(status.roots[0]).toMatchObject({ inSync: true, counts: { failed: 0 } });
      const skipped = (status.roots[0] as unknown as { skipped: { items: Array<{ path: string }>; ignored: number } }).skipped;
      expect(skipped.ignored).toBe(2);
      expect(skipped.items.map((i) => i.path).sort()).toEqual(['.DS_Store', 'draft.tmp', 'outside-link']);
      const text = await cli(['status'], { home });
      expect(text.stdout).toMatch(/left out: +2 ignored names \(temporary files and \.syncignore\), 1 symbolic link \(on purpose, not failures\)/);
      expect(text.stdout).toContain('outside-link: symbolic links are not synced');
    });

    it('uploads a folder, prints plain lines when stdout is not a TTY, exits 0 in sync, and records its status', async () => {
      const account = await newAccount(server, 'once');
      const home = await signedInHome(server, account);
      const dir = join(tempDir(), 'Drive');
      makeTree(dir, { 'hello.txt': 'hello', 'docs/a.md': '# A', 'docs/deep/b.txt': 'b' });

      const result = await cli(['sync', dir, '--once'], { home });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).not.toMatch(ANSI);
      expect(result.stdout).toContain('uploaded hello.txt');
      expect(result.stdout).toContain('created the folder on the drive: docs');
      expect(result.stdout).toMatch(/^in sync \(5 changes\)$/m);
      expect(await remoteTree(server, account.token)).toEqual({
        docs: '/',
        'docs/a.md': '# A',
        'docs/deep': '/',
        'docs/deep/b.txt': 'b',
        'hello.txt': 'hello',
      });

      const status = await statusJson(home);
      expect(status.roots).toHaveLength(1);
      expect(status.roots[0]).toMatchObject({ path: dir, state: 'stopped', running: false, inSync: true, counts: { synced: 5, done: 5, failed: 0 } });
      expect(Date.parse(status.roots[0]!.lastSync!)).toBeGreaterThan(Date.now() - 60_000);

      // A second pass has nothing to do.
      const again = await cli(['sync', dir, '--once'], { home });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout.trim()).toBe('in sync (0 changes)');

      const human = await cli(['status'], { home });
      expect(human.stdout).toContain(dir);
      expect(human.stdout).toMatch(/state:\s+stopped/);
      expect(human.stdout).toMatch(/items:\s+5 synced/);
    });

    it('shows live progress on a TTY (files, bytes, rate, ETA)', async () => {
      const account = await newAccount(server, 'tty');
      const home = await signedInHome(server, account);
      const dir = join(tempDir(), 'Drive');
      mkdirSync(dir);
      writeFileSync(join(dir, 'big.bin'), Buffer.alloc(4 * 1024 * 1024, 7));
      writeFileSync(join(dir, 'small.txt'), 'small');
      const result = await cliOnTty(['sync', dir, '--once'], { home });
      expect(result.code, result.stdout).toBe(0);
      const screen = result.stdout;
      // The live line is redrawn in place with escape codes, and says what a person wants to know.
      expect(screen).toMatch(ANSI);
      expect(screen).toMatch(/files \d+\/\d+/);
      expect(screen).toMatch(/\d+(\.\d)? (B|KB|MB)\/\d+(\.\d)? (B|KB|MB)/);
      expect(screen).toMatch(/B\/s/);
      expect(screen).toMatch(/ETA /);
      expect(screen).toMatch(/files 2\/2/);
      expect(screen).toContain('4.0 MB/4.0 MB');
      expect(screen).toContain('uploaded big.bin');
      expect(screen).toContain('in sync (2 changes)');
      expect(await remoteTree(server, account.token)).toMatchObject({ 'small.txt': 'small' });
    });

    it('exits 1 listing each failed item on stderr as one line', async () => {
      // Every upload fails on this server (POST is never retried blindly).
      const faulty = await startTestServer({ profile, faults: '500=1,match=POST:/api/v1/uploads' });
      try {
        const account = await newAccount(faulty, 'failing');
        const home = await signedInHome(faulty, account);
        const dir = join(tempDir(), 'Drive');
        makeTree(dir, { 'one.txt': '1', 'two.txt': '2', 'sub/three.txt': '3' });
        const result = await cli(['sync', dir, '--once'], { home });
        expect(result.code).toBe(1);
        expectNoStack(result);
        const lines = result.stderr.split('\n').filter((l) => l !== '');
        expect(lines).toHaveLength(3);
        for (const name of ['one.txt', 'two.txt', 'sub/three.txt']) {
          expect(lines.filter((l) => l.startsWith(`drivesync: ${name}: `)), result.stderr).toHaveLength(1);
        }
        expect(result.stdout).toMatch(/^not in sync: 3 items failed/m);
        const status = await statusJson(home);
        expect(status.roots[0]).toMatchObject({ inSync: false, counts: { failed: 3 } });
        expect(status.roots[0]!.errors.map((e) => e.path).sort()).toEqual(['one.txt', 'sub/three.txt', 'two.txt']);
      } finally {
        await faulty.close();
      }
    });

    it('a folder whose name the service refuses is made by the upload of a file inside it; an empty one is named as left out', async () => {
      const account = await newAccount(server, 'refused');
      const home = await signedInHome(server, account);
      const dir = join(tempDir(), 'Drive');
      makeTree(dir, { 'ok.txt': 'ok', 'ab/inside.txt': 'inside' });
      mkdirSync(join(dir, 'cd'));
      const result = await cli(['sync', dir, '--once'], { home });
      expect(result.code, result.stderr).toBe(0);
      expectOneLineError(result, /^drivesync: cd: an empty folder named "cd" cannot be made on the drive \(folder names need 3 to 200 characters\)/);
      expect(result.stdout).toMatch(/^uploaded ab\/inside\.txt$/m);
      expect(result.stdout).toMatch(/^in sync \(2 changes\)$/m);
      expect(await remoteTree(server, account.token)).toEqual({ ab: '/', 'ab/inside.txt': 'inside', 'ok.txt': 'ok' });
    });

    it('a name that is not valid UTF-8 fails the pass (exit 1), told with its bytes shown; status lists it as an error and a link as skipped; nothing is deleted', async () => {
      const account = await newAccount(server, 'latin1');
      const home = await signedInHome(server, account);
      const dir = join(tempDir(), 'Drive');
      makeTree(dir, { 'keep.txt': 'keep' });
      symlinkSync('/etc/hostname', join(dir, 'outside-link'));
      // Legacy-encoded names, as an older system wrote them: Latin-1 bytes in a file name and in a folder name.
      const latin1 = (name: string) => Buffer.concat([Buffer.from(`${dir}/`), Buffer.from(name, 'latin1')]);
      writeFileSync(latin1('caf\xe9.txt'), 'coffee');
      mkdirSync(latin1('r\xe9sum\xe9s'));
      writeFileSync(Buffer.concat([latin1('r\xe9sum\xe9s'), Buffer.from('/cv.txt')]), 'cv');
      for (let run = 0; run < 2; run++) {
        const result = await cli(['sync', dir, '--once'], { home });
        expect(result.code, result.stderr).toBe(1);
        expectNoStack(result);
        const lines = result.stderr.split('\n').filter((l) => l !== '');
        for (const shown of ['caf\\xe9.txt', 'r\\xe9sum\\xe9s']) {
          const told = lines.filter((l) => l.startsWith(`drivesync: ${shown}: `));
          expect(told.length, result.stderr).toBe(1);
          for (const line of told) expect(line).toMatch(/not valid UTF-8.*rename it/);
        }
        expect(result.stdout).toMatch(/^not in sync: 2 items failed/m);
      }
      const status = await statusJson(home);
      expect(status.roots[0]).toMatchObject({ inSync: false, counts: { failed: 2 } });
      expect(status.roots[0]!.errors.map((e) => e.path).sort()).toEqual(['caf\\xe9.txt', 'r\\xe9sum\\xe9s']);
      const skipped = (status.roots[0] as unknown as { skipped: { items: Array<{ path: string }> } }).skipped;
      expect(skipped.items.map((i) => i.path)).toEqual(['outside-link']);
      const text = await cli(['status'], { home });
      expect(text.stdout).toMatch(/error: +caf\\xe9\.txt: .*not valid UTF-8/);
      expect(text.stdout).not.toMatch(/error: +outside-link/);
      expect(text.stdout).toContain('outside-link: symbolic links are not synced');
      expect(await remoteTree(server, account.token)).toEqual({ 'keep.txt': 'keep' });
      expect(readdirSync(dir, { encoding: 'buffer' }).map((n) => n.toString('latin1')).sort()).toEqual(['.drivesync', 'caf\xe9.txt', 'keep.txt', 'outside-link', 'r\xe9sum\xe9s']);
      expect(readFileSync(Buffer.concat([latin1('r\xe9sum\xe9s'), Buffer.from('/cv.txt')]), 'utf8')).toBe('cv');
    });

    it('fails with one line when not signed in, the folder is missing, the server is down, or roots nest', async () => {
      const account = await newAccount(server, 'sync-fail');
      const home = await signedInHome(server, account);
      const base = tempDir();
      const dir = join(base, 'Drive');
      mkdirSync(join(dir, 'inner'), { recursive: true });
      writeFileSync(join(base, 'file.txt'), 'x');
      const [notSignedIn, missing, notFolder, down] = await Promise.all([
        cli(['sync', dir, '--once'], { home: tempDir() }),
        cli(['sync', join(base, 'nope'), '--once'], { home }),
        cli(['sync', join(base, 'file.txt'), '--once'], { home }),
        cli(['sync', dir, '--once'], { home: tempDir(), env: { DRIVESYNC_SERVER: 'http://127.0.0.1:9', DRIVESYNC_TOKEN: 'x' } }),
      ]);
      expect(notSignedIn.code).toBe(1);
      expectOneLineError(notSignedIn, /not signed in: run drivesync login/);
      expect(missing.code).toBe(1);
      expectOneLineError(missing, /does not exist/);
      expect(notFolder.code).toBe(1);
      expectOneLineError(notFolder, /is not a folder/);
      expect(down.code).toBe(1);
      expectOneLineError(down, /cannot reach http:\/\/127\.0\.0\.1:9/);

      const first = await cli(['sync', dir, '--once'], { home });
      expect(first.code, first.stderr).toBe(0);
      const nested = await cli(['sync', join(dir, 'inner'), '--once'], { home });
      expect(nested.code).toBe(1);
      expectOneLineError(nested, /inside the synced folder/);
    });

    it('usage errors exit 2 with one line', async () => {
      const home = tempDir();
      const results = await Promise.all([cli(['sync'], { home }), cli(['sync', 'a', 'b'], { home }), cli(['sync', '.', '--bogus'], { home })]);
      for (const result of results) {
        expect(result.code, result.stderr).toBe(2);
        expectOneLineError(result);
      }
    });
  });

  describe.concurrent('the mass-delete guard', () => {
    const twelve = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`file-${i}.txt`, `content ${i}`]));

    async function syncedThenEmptied(name: string) {
      const account = await newAccount(server, name);
      const home = await signedInHome(server, account);
      const dir = join(tempDir(), 'Drive');
      makeTree(dir, twelve);
      const first = await cli(['sync', dir, '--once'], { home });
      expect(first.code, first.stderr).toBe(0);
      for (const file of Object.keys(twelve)) rmSync(join(dir, file));
      return { account, home, dir };
    }

    const refusal = /would delete 12 of 12 synced items \(12 on the drive\); nothing was deleted \(everything else was synced\): drivesync deletions --delete\|--keep .* answers for the next sync, or re-run with --yes to delete them or --keep to keep them$/;

    it('--once without a TTY: syncs everything else, holds the deletions and says how to answer in one line; drivesync deletions answers for the next run', async () => {
      const { account, home, dir } = await syncedThenEmptied('guard');
      writeFileSync(join(dir, 'new.txt'), 'made meanwhile');
      const refused = await cli(['sync', dir, '--once'], { home });
      expect(refused.code).toBe(1);
      expectOneLineError(refused, refusal);
      const held = await remoteTree(server, account.token);
      expect(Object.keys(held)).toHaveLength(13);
      expect(held['new.txt']).toBe('made meanwhile');

      // Nothing runs: the question is the last run's; the answer is kept for the next start, which takes it up.
      const listed = await cli(['deletions', '--json'], { home });
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout).folders).toMatchObject([{ path: dir, running: false, pid: null, count: 12, groups: [{ where: 'drive', count: 12 }] }]);
      const text = await cli(['deletions'], { home });
      expect(text.stdout).toMatch(/nothing syncs this folder now; its next start asks again/);
      expect(text.stdout).toMatch(/12 items on the drive \(to the drive's trash\): deleted in this folder/);
      expect((await cli(['deletions', '--delete', '--keep'], { home })).code).toBe(2);
      const answered = await cli(['deletions', '--delete'], { home });
      expect(answered.code, answered.stderr).toBe(0);
      expect(answered.stdout).toMatch(/nothing syncs .* now: the answer is kept, and its next start deletes the 12 items \(110 B\) if they are still what waits/);
      const next = await cli(['sync', dir, '--once'], { home });
      expect(next.code, next.stderr).toBe(0);
      expect(next.stdout).toMatch(/answered with drivesync deletions: deleting 12 items/);
      expect(await remoteTree(server, account.token)).toEqual({ 'new.txt': 'made meanwhile' });
      expect(JSON.parse(readFileSync(join(home, 'config.json'), 'utf8')).deletionAnswers).toBeUndefined();
      expect((await cli(['deletions'], { home })).stdout).toBe('no deletions wait for an answer\n');
      expect((await cli(['deletions', '--keep'], { home })).code).toBe(1);

      // --yes answers the question of a --once run.
      for (const file of Object.keys(twelve)) writeFileSync(join(dir, file), 'again');
      expect((await cli(['sync', dir, '--once'], { home })).code).toBe(0);
      for (const file of Object.keys(twelve)) rmSync(join(dir, file));
      const allowed = await cli(['sync', dir, '--once', '--yes'], { home });
      expect(allowed.code, allowed.stderr).toBe(0);
      expect(allowed.stdout).toMatch(/^in sync/m);
      expect(await remoteTree(server, account.token)).toEqual({ 'new.txt': 'made meanwhile' });
      // To the remote trash, restorable: nothing is lost.
      const trash = await cli(['trash', 'ls', '--json'], { home });
      expect(JSON.parse(trash.stdout).length).toBeGreaterThanOrEqual(12);
    });

    it('--keep refuses them: the files come back from the drive with their entries, and nobody is asked again', async () => {
      const { account, home, dir } = await syncedThenEmptied('guard-keep');
      const before = await remoteTree(server, account.token);
      const kept = await cli(['sync', dir, '--once', '--keep'], { home });
      expect(kept.code, kept.stderr).toBe(0);
      expect(kept.stdout).toMatch(/^kept 12 items/m);
      expect(sorted(localTree(dir))).toEqual(sorted(new Map(Object.entries(twelve))));
      expect(await remoteTree(server, account.token)).toEqual(before);
      const again = await cli(['sync', dir, '--once'], { home });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toMatch(/^in sync \(0 changes\)$/m);
      expect((await cli(['sync', dir, '--once', '--yes', '--keep'], { home })).code).toBe(2);
    });

    it('a folder deleted and made again empty: sync stops and says so, deleting nothing; --afresh merges it with the drive', async () => {
      const { account, home, dir } = await syncedThenEmptied('afresh');
      rmSync(dir, { recursive: true });
      mkdirSync(dir);
      writeFileSync(join(dir, 'new.txt'), 'made after');
      const stopped = await cli(['sync', dir, '--once'], { home });
      expect(stopped.code).toBe(1);
      expectOneLineError(stopped, /is not the folder that was synced here \(it was deleted and made again, or replaced by another folder\): nothing is synced, and nothing is deleted on the drive\. To sync it as a new folder, run drivesync sync .* --afresh: .* Or put the original folder back at .* and sync again\.$/);
      expect(Object.keys(await remoteTree(server, account.token))).toHaveLength(12);
      const merged = await cli(['sync', dir, '--once', '--afresh'], { home });
      expect(merged.code, merged.stderr).toBe(0);
      expect(sorted(localTree(dir))).toEqual(sorted(new Map([...Object.entries(twelve), ['new.txt', 'made after']])));
      expect(Object.keys(await remoteTree(server, account.token))).toHaveLength(13);
    });

    it('a running sync without a TTY never stops at the guard: the deletions wait, the rest syncs on, drivesync deletions answers it', async () => {
      const { account, home, dir } = await syncedThenEmptied('guard-watch');
      const running = spawnCli(['sync', dir], { home });
      await eventually(() => running.stderr(), (err) => /drivesync deletions --delete .* deletes them, --keep keeps them/.test(err));
      expect(running.stdout()).toMatch(/^This pass would delete 12 of 12 synced items \(110 B\):$/m);
      expect(running.stdout()).toMatch(/^ {2}12 items on the drive \(to the drive's trash\): deleted in this folder while drivesync was not running$/m);
      expect(running.stderr()).toMatch(/nothing is deleted until you answer; everything else goes on syncing/);
      // Still syncing: a file made now goes up, and the twelve stay on the drive.
      writeFileSync(join(dir, 'while-asked.txt'), 'made while asked');
      await eventually(() => remoteTree(server, account.token), (tree) => tree['while-asked.txt'] === 'made while asked');
      expect(Object.keys(await remoteTree(server, account.token))).toHaveLength(13);
      const status = await statusJson(home);
      expect(status.roots[0]).toMatchObject({ state: 'waiting-for-consent', running: true, deletions: { count: 12 } });
      const listed = JSON.parse((await cli(['deletions', '--json'], { home })).stdout);
      expect(listed.folders).toMatchObject([{ path: dir, running: true, pid: running.child.pid, count: 12 }]);
      const answered = await cli(['deletions', dir, '--delete'], { home });
      expect(answered.code, answered.stderr).toBe(0);
      expect(answered.stdout).toMatch(new RegExp(`deleting 12 items \\(110 B\\) in .* \\(the sync in process ${running.child.pid} does it now\\)`));
      await eventually(() => remoteTree(server, account.token), (tree) => Object.keys(tree).length === 1);
      await eventually(() => running.stdout(), (out) => /answered with drivesync deletions: deleting 12 items/.test(out));
      running.child.kill('SIGTERM');
      const finished = await running.exited();
      expect(finished.code, finished.stderr).toBe(0);
      expectNoStack(finished);
    });

    it('on a TTY: asks where, why and what, with three answers; "later" deletes nothing, "n" keeps them, "y" deletes', async () => {
      const { account, home, dir } = await syncedThenEmptied('guard-tty');
      const answer = (reply: string) => (all: string, child: import('node:child_process').ChildProcess) => {
        if (/\[L\] later/.test(all) && !(child as { answered?: boolean }).answered) {
          (child as { answered?: boolean }).answered = true;
          child.stdin!.write(`${reply}\r`);
        }
      };
      // While the question waits, status --json lists every item, where and why.
      let waiting: Promise<Awaited<ReturnType<typeof cli>>> | undefined;
      const later = await cliOnTty(['sync', dir, '--once'], {
        home,
        onOutput: (all, child) => {
          if (!/\[L\] later/.test(all) || waiting) return;
          waiting = cli(['status', '--json'], { home });
          void waiting.then(() => child.stdin!.write('\r'));
        },
      });
      expect(later.code, later.stdout).toBe(1);
      expect(later.stdout).toMatch(/nothing was deleted \(everything else was synced\); drivesync deletions --delete\|--keep .* answers for the next sync/);
      const status = JSON.parse((await waiting!).stdout);
      expect(status.roots[0].deletions).toMatchObject({ count: 12, synced: 12, bytes: 110 });
      expect(status.roots[0].deletions.groups[0]).toMatchObject({ where: 'drive', why: 'deleted in this folder while drivesync was not running', count: 12 });
      expect(status.roots[0].deletions.groups[0].items.map((i: { path: string }) => i.path)).toEqual(
        Array.from({ length: 12 }, (_, i) => `file-${i}.txt`),
      );
      // What the terminal shows, without its control sequences.
      const asked = later.stdout.replace(/\r/g, '').replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
      expect(asked).toContain('This pass would delete 12 of 12 synced items (110 B):');
      expect(asked).toContain("  12 items on the drive (to the drive's trash): deleted in this folder while drivesync was not running");
      expect(asked).toContain('    file-0.txt\n    file-1.txt\n    file-2.txt\n');
      expect(asked).toContain('    and 2 more (drivesync status --json lists them all)');
      expect(asked).toContain('Delete them? [y] yes, delete them  [n] no, keep them (put back where they were deleted)  [L] later (nothing is deleted until you answer)');
      // Nothing was printed onto the question's line.
      expect(asked).toMatch(/\(nothing is deleted until you answer\) \n/);
      expect(Object.keys(await remoteTree(server, account.token))).toHaveLength(12);

      const keep = await cliOnTty(['sync', dir, '--once'], { home, onOutput: answer('n') });
      expect(keep.code, keep.stdout).toBe(0);
      expect(sorted(localTree(dir))).toEqual(sorted(new Map(Object.entries(twelve))));
      for (const file of Object.keys(twelve)) rmSync(join(dir, file));
      const yes = await cliOnTty(['sync', dir, '--once'], { home, onOutput: answer('y') });
      expect(yes.code, yes.stdout).toBe(0);
      expect(yes.stdout).toContain('in sync');
      expect(await remoteTree(server, account.token)).toEqual({});
    });
  });

  describe.concurrent('drivesync sync (continuous)', () => {
    it('keeps syncing both ways until SIGTERM, then stops the engine cleanly and exits 0', async () => {
      const account = await newAccount(server, 'watch');
      const home = await signedInHome(server, account);
      // A short poll interval, through the config file.
      const config = JSON.parse(readFileSync(join(home, 'config.json'), 'utf8'));
      writeFileSync(join(home, 'config.json'), JSON.stringify({ ...config, pollIntervalSeconds: 0.5 }));
      const dir = join(tempDir(), 'Drive');
      makeTree(dir, { 'start.txt': 'start' });

      const running = spawnCli(['sync', dir], { home });
      await running.waitFor(/^watching .* for changes/m);
      expect(running.stdout()).toContain('uploaded start.txt');
      const live = await statusJson(home);
      expect(live.roots[0]).toMatchObject({ path: dir, running: true, inSync: true });

      // A local change reaches the server…
      writeFileSync(join(dir, 'local.txt'), 'made here');
      await eventually(() => remoteTree(server, account.token), (tree) => tree['local.txt'] === 'made here');
      // …and a remote one reaches the folder.
      const upload = await server.call(account.token, 'POST', '/api/v1/uploads', uploadForm('remote.txt', 'made there', { parentId: null }));
      expect(upload.status).toBe(201);
      await eventually(() => existsSync(join(dir, 'remote.txt')) && readFileSync(join(dir, 'remote.txt'), 'utf8'), (c) => c === 'made there');

      const finished = await running.stop('SIGTERM');
      expect(finished.signal).toBeNull();
      expect(finished.code).toBe(0);
      expectNoStack(finished);
      expect(finished.stdout).toContain('stopping (SIGTERM)');
      const stopped = await statusJson(home);
      expect(stopped.roots[0]).toMatchObject({ state: 'stopped', running: false });
      // The lock is released: another sync can run on the folder.
      const again = await cli(['sync', dir, '--once'], { home });
      expect(again.code, again.stderr).toBe(0);
    });

    it('a move is told once: what the engine only records after it (the drive\'s new time stamp, which a deployed server does not answer a move with) prints no second result line', async () => {
      const account = await newAccount(server, 'move-once');
      const home = await signedInHome(server, account);
      const config = JSON.parse(readFileSync(join(home, 'config.json'), 'utf8'));
      writeFileSync(join(home, 'config.json'), JSON.stringify({ ...config, pollIntervalSeconds: 0.5 }));
      const dir = join(tempDir(), 'Drive');
      makeTree(dir, { 'start.txt': 'start', 'archive/keep.txt': 'keep' });
      const passes = () => readFileSync(join(home, 'logs', 'drivesync.log'), 'utf8').split('\n').filter((l) => l.includes('"msg":"pass"')).length;
      const running = spawnCli(['sync', dir], { home });
      await running.waitFor(/^watching .* for changes/m);
      renameSync(join(dir, 'start.txt'), join(dir, 'archive', 'start.txt'));
      await running.waitFor(/^moved on the drive: archive\/start\.txt$/m);
      // Polls at 0.5 s; a full listing, every few seconds on a drive this small, shows the move's new state. Against a
      // deployed server, whose move answers no entry, the engine then records the new time stamp: wait for that.
      const log = () => readFileSync(join(home, 'logs', 'drivesync.log'), 'utf8');
      if (profile === 'deployed') await eventually(log, (text) => /"kind":"record","path":"archive\/start\.txt"/.test(text), { within: 30_000 });
      // Passes after it that had nothing to tell (full listings come some seconds apart, more under load).
      const after = passes();
      await eventually(passes, (n) => n >= after + 2, { within: 45_000 });
      const finished = await running.stop('SIGTERM');
      const told = finished.stdout.slice(finished.stdout.indexOf('moved on the drive'));
      expect(told.match(/^in sync/gm), finished.stdout).toEqual(['in sync']);
      expect(await remoteTree(server, account.token)).toEqual({ archive: '/', 'archive/keep.txt': 'keep', 'archive/start.txt': 'start' });
    }, 120_000);

    it('a pass that changes nothing and fails what the last one failed does not say again that the folder is not in sync', async () => {
      const account = await newAccount(server, 'live-latin1');
      const home = await signedInHome(server, account);
      const dir = join(tempDir(), 'Drive');
      makeTree(dir, { 'keep.txt': 'keep' });
      const bad = Buffer.concat([Buffer.from(`${dir}/`), Buffer.from('caf\xe9.txt', 'latin1')]);
      writeFileSync(bad, 'coffee');
      const passes = () => readFileSync(join(home, 'logs', 'drivesync.log'), 'utf8').split('\n').filter((l) => l.includes('"msg":"pass"')).length;
      const running = spawnCli(['sync', dir], { home });
      await running.waitFor(/^watching /m);
      expect(running.stdout()).toMatch(/^not in sync: 1 item failed \(1 change\)$/m);
      // Temp files saved beside it: passes that change nothing and fail what the first failed.
      for (const name of ['one.tmp', 'two.tmp']) {
        const before = passes();
        writeFileSync(join(dir, name), 'temp');
        await eventually(passes, (n) => n > before);
      }
      // Renamed to a name it can take, it is uploaded and the folder is in sync.
      renameSync(bad, join(dir, 'cafe.txt'));
      await running.waitFor(/^in sync \(1 change\)$/m);
      // Another such name, then deleted: nothing changes on the drive, and the folder says it is in sync again.
      writeFileSync(bad, 'again');
      await eventually(() => running.stdout().match(/^not in sync/gm)?.length ?? 0, (n) => n === 2);
      rmSync(bad);
      await running.waitFor(/^in sync$/m);
      const finished = await running.stop('SIGTERM');
      expect(finished.code).toBe(0);
      expect(finished.stdout.match(/^not in sync/gm), finished.stdout).toHaveLength(2);
      expect(await remoteTree(server, account.token)).toEqual({ 'cafe.txt': 'coffee', 'keep.txt': 'keep' });
    });

    it('Ctrl-C (SIGINT) stops it too; a second sync of the same folder meanwhile is refused', async () => {
      const account = await newAccount(server, 'sigint');
      const home = await signedInHome(server, account);
      const dir = join(tempDir(), 'Drive');
      makeTree(dir, { 'a.txt': 'a' });
      const running = spawnCli(['sync', dir], { home });
      await running.waitFor(/^watching /m);
      const second = await cli(['sync', dir, '--once'], { home });
      expect(second.code).toBe(1);
      expectOneLineError(second, /already being synced by process \d+/);
      const finished = await running.stop('SIGINT');
      expect(finished.code).toBe(0);
      expectNoStack(finished);
    });

    it('one engine per folder whoever starts it: a sync from another state folder is refused, naming the process and its state folder', async () => {
      const account = await newAccount(server, 'two-states');
      const [home, other] = await Promise.all([signedInHome(server, account), signedInHome(server, account)]);
      const dir = join(tempDir(), 'Drive');
      makeTree(dir, { 'a.txt': 'a' });
      const running = spawnCli(['sync', dir], { home });
      await running.waitFor(/^watching /m);
      const second = await cli(['sync', dir, '--once'], { home: other });
      expect(second.code).toBe(1);
      expectOneLineError(second, new RegExp(`already being synced by process ${running.child.pid} \\(state folder ${home.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`));
      // Nothing of the second run touched the folder: no conflicted copies, the drive as the first left it.
      expect(readdirSync(dir).sort()).toEqual(['.drivesync', 'a.txt']);
      const finished = await running.stop('SIGINT');
      expect(finished.code).toBe(0);
      // Once the first has stopped, the folder's lock is gone and the other state folder may sync it.
      expect(existsSync(join(dir, '.drivesync', 'lock'))).toBe(false);
      const after = await cli(['sync', dir, '--once'], { home: other });
      expect(after.code, after.stderr).toBe(0);
    });
  });

  describe('two state dirs on one account', () => {
    it('converge through sync --once: create, rename, edit, delete', async () => {
      const account = await newAccount(server, 'converge');
      const [homeA, homeB] = await Promise.all([signedInHome(server, account), signedInHome(server, account)]);
      const dirA = join(tempDir(), 'A');
      const dirB = join(tempDir(), 'B');
      mkdirSync(dirA);
      mkdirSync(dirB);
      const syncA = async () => {
        const r = await cli(['sync', dirA, '--once'], { home: homeA });
        expect(r.code, r.stderr).toBe(0);
      };
      const syncB = async () => {
        const r = await cli(['sync', dirB, '--once'], { home: homeB });
        expect(r.code, r.stderr).toBe(0);
      };
      const same = () => expect(sorted(localTree(dirB))).toEqual(sorted(localTree(dirA)));

      // create
      makeTree(dirA, { 'notes/today.txt': 'first draft', 'readme.md': '# readme' });
      await syncA();
      await syncB();
      same();
      expect(readFileSync(join(dirB, 'notes', 'today.txt'), 'utf8')).toBe('first draft');

      // rename (on B)
      renameSync(join(dirB, 'readme.md'), join(dirB, 'README.md'));
      await syncB();
      await syncA();
      same();
      expect(existsSync(join(dirA, 'README.md'))).toBe(true);
      expect(existsSync(join(dirA, 'readme.md'))).toBe(false);

      // edit (on A)
      writeFileSync(join(dirA, 'notes', 'today.txt'), 'second draft, longer');
      await syncA();
      await syncB();
      same();
      expect(readFileSync(join(dirB, 'notes', 'today.txt'), 'utf8')).toBe('second draft, longer');

      // delete (on B)
      rmSync(join(dirB, 'README.md'));
      await syncB();
      await syncA();
      same();
      expect(existsSync(join(dirA, 'README.md'))).toBe(false);
      expect(await remoteTree(server, account.token)).toEqual({ notes: '/', 'notes/today.txt': 'second draft, longer' });
    });
  });
});
