/**
 * `drivesync check`, as a person uses it: a difference planted behind the client's back (a file's stored content
 * rewritten in the reference server's store, the same size) and a synced file gone here are found; `--repair` keeps
 * both versions; a check stopped by Ctrl-C goes on where it stopped. Both server profiles.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROFILES, type TestServer } from '../helpers/server.js';
import { cli, expectNoStack, makeTree, newAccount, signedInHome, spawnCli, tempDir, useCliTestServer, type Finished } from './helpers.js';

const ok = (result: Finished): Finished => {
  expect(result.code, result.stderr).toBe(0);
  return result;
};

/** Rewrites the stored bytes of the drive's entry named `name` (as a fault of the server's disk would). */
function plant(server: TestServer, name: string, content: string): void {
  const row = server.context.db.prepare('SELECT file_name FROM entries WHERE name = ? AND deleted_at IS NULL').get(name) as { file_name: string };
  writeFileSync(join(server.context.blobDir, row.file_name), content);
}

describe.each(PROFILES)('check against the %s profile', (profile) => {
  const server = useCliTestServer({ profile });
  let home: string;
  let dir: string;

  beforeAll(async () => {
    const account = await newAccount(server, 'check');
    home = await signedInHome(server, account);
    dir = join(tempDir(), 'Drive');
    makeTree(dir, { 'notes.txt': 'the notes, as written', 'Docs/plan.txt': 'plan one', 'Docs/gone.txt': 'soon gone here', 'keep.txt': 'kept as is' });
    ok(await cli(['sync', dir, '--once'], { home }));
  });

  it('finds a planted difference and a file gone here, and --repair keeps both versions', async () => {
    const same = ok(await cli(['check', dir], { home }));
    expect(same.stdout).toMatch(/checked 4 of 4 synced files, .* compared: the same here and on the drive/);

    plant(server, 'notes.txt', 'THE NOTES, AS WRITTEN');
    rmSync(join(dir, 'Docs', 'gone.txt'));
    const found = await cli(['check', dir], { home });
    expect(found.code).toBe(1);
    expectNoStack(found);
    expect(found.stdout).toContain("different bytes (1):\n  notes.txt: the bytes here are not the drive's");
    expect(found.stdout).toContain('only on the drive (1):\n  Docs/gone.txt: gone from this computer since it was last synced');
    expect(found.stdout).toMatch(/checked 4 of 4 synced files, .*: 2 differences/);
    const json = JSON.parse((await cli(['check', dir, '--json'], { home })).stdout);
    expect(json).toMatchObject({ complete: true, checked: 4, total: 4, repaired: null });
    expect(json.differences).toEqual([
      { kind: 'only-on-drive', path: 'Docs/gone.txt', detail: 'gone from this computer since it was last synced' },
      { kind: 'different', path: 'notes.txt', detail: "the bytes here are not the drive's" },
    ]);

    const repaired = ok(await cli(['check', dir, '--repair'], { home }));
    expect(repaired.stdout).toContain('repaired: every difference is now a conflict settled on both sides');
    // Both versions of notes.txt are here: the drive's under the name, this computer's as its conflicted copy.
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('THE NOTES, AS WRITTEN');
    const copies = readdirSync(dir).filter((name) => name.startsWith('notes (conflicted copy '));
    expect(copies).toHaveLength(1);
    expect(readFileSync(join(dir, copies[0]!), 'utf8')).toBe('the notes, as written');
    // The file gone here came back from the drive instead of being deleted there.
    expect(readFileSync(join(dir, 'Docs', 'gone.txt'), 'utf8')).toBe('soon gone here');
    const after = ok(await cli(['check', dir], { home }));
    expect(after.stdout).toMatch(/checked 5 of 5 synced files, .*: the same here and on the drive/);
  });

  it('--sample checks that many files picked at random; bad input is one line', async () => {
    const sampled = JSON.parse(ok(await cli(['check', dir, '--sample', '2', '--json'], { home })).stdout);
    expect(sampled).toMatchObject({ complete: true, checked: 2, total: 2 });
    const bad = await cli(['check', dir, '--sample', 'many'], { home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^drivesync: --sample takes a number of files from 1/);
    const nowhere = await cli(['check', tempDir()], { home });
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toMatch(/is not a synced folder/);
  });
});

describe('check stopped and run again', () => {
  // Each answer waits a little, so a check of a few hundred files takes long enough to stop it midway.
  const server = useCliTestServer({ profile: 'documents', latencyMs: 40 });
  it('goes on where Ctrl-C stopped it', async () => {
    const account = await newAccount(server, 'check-stop');
    const home = await signedInHome(server, account);
    const dir = join(tempDir(), 'Drive');
    const files: Record<string, string> = {};
    for (let i = 0; i < 600; i++) files[`f${String(i).padStart(3, '0')}.txt`] = `file ${i}`;
    makeTree(dir, files);
    ok(await cli(['sync', dir, '--once'], { home, timeoutMs: 120_000 }));
    const running = spawnCli(['check', dir], { home });
    // The progress goes to stderr (a line a tenth of the way on a pipe); stdout keeps the result.
    const deadline = Date.now() + 60_000;
    // Past the first page of 200 files, so that there is a place to go on from.
    while (!/checked ([3-9]\d\d) of 600 files/.test(running.stderr())) {
      if (Date.now() > deadline) throw new Error(`no progress: ${running.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const stopped = await running.stop('SIGINT');
    expect(stopped.code).toBe(1);
    expectNoStack(stopped);
    const at = Number(/stopped after (\d+) of 600 files: run drivesync check .* again to go on/.exec(stopped.stdout)?.[1]);
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThan(600);
    const again = ok(await cli(['check', dir], { home, timeoutMs: 120_000 }));
    expect(again.stdout).toMatch(new RegExp(`checked 600 of 600 synced files, .* compared \\(going on from ${at}, begun .*\\): the same here and on the drive`));
  });
});
