/** `drivesync sync DIR --dry-run [--json]`: what a pass would do, in words and as JSON, changing nothing. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROFILES } from '../helpers/server.js';
import { allFiles, cli, expectOneLineError, makeTree, newAccount, remoteTree, signedInHome, tempDir, useCliTestServer } from './helpers.js';

describe.each(PROFILES)('sync --dry-run against the %s profile', (profile) => {
  const server = useCliTestServer({ profile });

  it('a first sync previewed: each item with its bytes and the totals; nothing changed, not even the config; the pass after does it', async () => {
    const account = await newAccount(server, 'dry');
    const desktop = await signedInHome(server, account);
    const drive = join(tempDir(), 'Drive');
    makeTree(drive, { 'a.txt': 'from the drive', 'Docs/b.txt': 'b' });
    expect((await cli(['sync', drive, '--once'], { home: desktop })).code).toBe(0);
    // A second computer, before its first sync.
    const home = await signedInHome(server, account);

    const dir = join(tempDir(), 'Laptop');
    makeTree(dir, { 'mine.txt': 'only on the laptop', 'a.txt': 'from the drive' });
    const files = allFiles(dir);
    const config = readFileSync(join(home, 'config.json'), 'utf8');
    const text = await cli(['sync', dir, '--dry-run'], { home });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^dry run of .*Laptop: nothing was changed \(0 items synced now\)$/m);
    expect(text.stdout).toMatch(/^ +1 upload \(18 B\)$/m);
    expect(text.stdout).toMatch(/^ +1 download \(1 B\)$/m);
    expect(text.stdout).toMatch(/^ +1 folder to make here$/m);
    expect(text.stdout).toMatch(/^ +upload +mine\.txt \(18 B\)$/m);
    expect(text.stdout).toMatch(/^ +download +Docs\/b\.txt \(1 B\)$/m);
    expect(text.stdout).toMatch(/^ +compare +a\.txt$/m);
    const json = await cli(['sync', dir, '--dry-run', '--json'], { home });
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ dryRun: true, folders: [{ path: dir, synced: 0, deletionsAsked: null, totals: { upload: { count: 1, bytes: 18 } } }] });
    expect(report.folders[0].items.map((i: { kind: string; path: string }) => `${i.kind} ${i.path}`)).toEqual(['create-folder-here Docs', 'download Docs/b.txt', 'compare a.txt', 'upload mine.txt']);
    // Nothing changed: the folder (no .drivesync/ either), the drive, the config (the folder is not added), no mirror.
    expect(allFiles(dir)).toEqual(files);
    expect(existsSync(join(dir, '.drivesync'))).toBe(false);
    expect(readFileSync(join(home, 'config.json'), 'utf8')).toBe(config);
    expect(Object.keys(await remoteTree(server, account.token)).sort()).toEqual(['Docs', 'Docs/b.txt', 'a.txt']);

    const synced = await cli(['sync', dir, '--once'], { home });
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stdout).toMatch(/^uploaded mine\.txt$/m);
    expect(synced.stdout).toMatch(/^downloaded Docs\/b\.txt$/m);
    const after = await cli(['sync', dir, '--dry-run'], { home });
    expect(after.stdout).toMatch(/^ +in sync: a pass would change nothing$/m);
    writeFileSync(join(dir, 'mine.txt'), 'changed');
    expect((await cli(['sync', dir, '--dry-run'], { home })).stdout).toMatch(/^ +upload new version +mine\.txt \(7 B\)$/m);
  });

  it('usage errors: --json alone, or with what changes things; a folder that cannot be synced', async () => {
    const account = await newAccount(server, 'dry-usage');
    const home = await signedInHome(server, account);
    const dir = tempDir();
    for (const args of [['--json'], ['--dry-run', '--once'], ['--dry-run', '--yes']]) {
      const result = await cli(['sync', dir, ...args], { home });
      expect(result.code, args.join(' ')).toBe(2);
      expectOneLineError(result);
    }
    const missing = await cli(['sync', join(dir, 'nope'), '--dry-run'], { home });
    expect(missing.code).toBe(1);
    expectOneLineError(missing);
  });
});
