import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allFiles, cli, expectOneLineError, makeTree, newAccount, tempDir, useCliTestServer } from './helpers.js';

const server = useCliTestServer();

describe('secrets stay out of the state dir', () => {
  it('after a sync, a link with a password and a failed login, no file under DRIVESYNC_HOME holds the token or a password', async () => {
    const account = await newAccount(server, 'redact');
    const home = tempDir();
    const env = { DRIVESYNC_TOKEN: account.token, DRIVESYNC_SERVER: server.url };
    const dir = join(tempDir(), 'Drive');
    makeTree(dir, { 'report.txt': 'quarterly numbers', 'sub/more.txt': 'more' });
    const linkPassword = 'link-pass-5f1e9a';
    const wrongPassword = 'wrong-pass-77c0d2';

    const synced = await cli(['sync', dir, '--once'], { home, env });
    expect(synced.code, synced.stderr).toBe(0);
    const linked = await cli(['link', join(dir, 'report.txt'), '--password', linkPassword], { home, env });
    expect(linked.code, linked.stderr).toBe(0);
    expect(linked.stdout + linked.stderr).not.toContain(linkPassword);
    const shown = await cli(['link', join(dir, 'report.txt'), '--show'], { home, env });
    expect(shown.stdout).toContain('password: yes');
    const failed = await cli(['login', '--server', server.url, '--email', account.email, '--password', wrongPassword], { home });
    expect(failed.code).toBe(1);
    expectOneLineError(failed, /login failed/);
    expect(failed.stderr).not.toContain(wrongPassword);
    const failedStdin = await cli(['login', '--server', server.url, '--email', account.email, '--password-stdin'], { home, input: `${wrongPassword}\n` });
    expect(failedStdin.code).toBe(1);

    const files = allFiles(home);
    const names = files.map((f) => f.path.slice(home.length + 1)).sort();
    // The log, the mirror database and the status file are there to be searched…
    expect(names).toEqual(expect.arrayContaining(['logs/drivesync.log']));
    expect(names.some((n) => /^mirrors\/.+\.sqlite$/.test(n))).toBe(true);
    expect(names.some((n) => /^status\/.+\.json$/.test(n))).toBe(true);
    const log = readFileSync(join(home, 'logs', 'drivesync.log'), 'utf8');
    expect(log).toContain('"command":"link"');
    expect(log).toContain('login failed');
    expect(log).toContain('report.txt');
    // …and none of them holds a secret.
    for (const file of files) {
      const text = file.content.toString('latin1');
      for (const secret of [account.token, linkPassword, wrongPassword, account.password]) {
        expect(text.includes(secret), `${secret} found in ${file.path}`).toBe(false);
      }
    }
    // No token file (the token came from the environment); the log is the user's own.
    expect(names).not.toContain('token.json');
    expect(files.find((f) => f.path.endsWith('drivesync.log'))!.mode).toBe(0o600);
  });
});
