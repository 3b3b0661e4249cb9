/**
 * What a person reads when a command goes wrong in the usual ways: a mistyped command gets a suggestion, a web
 * server that is not a drive and an https address on a plain-http port are said as such, in one line each.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summaryLine } from '../../main/cli/commands/sync.js';
import { PassProgress } from '../../main/cli/progress.js';
import { emptySummary, type PassSummary } from '../../main/sync/engine/pass/summary.js';
import { cleanUp, cli, expectOneLineError, tempDir } from './helpers.js';

/** A web server with no drive behind it, answering every request as `answer` says. */
async function webServer(answer: (method: string) => { status: number; type: string; body: string }): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    request.resume();
    const { status, type, body } = answer(request.method ?? 'GET');
    response.writeHead(status, { 'content-type': type });
    response.end(body);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe.concurrent('wording', () => {
  const servers: Server[] = [];
  let notImplemented: string;
  let htmlSite: string;
  beforeAll(async () => {
    // As python's http.server answers a POST; and a site answering every path with its home page.
    const python = await webServer((method) =>
      method === 'POST' ? { status: 501, type: 'text/html', body: '<h1>Unsupported method</h1>' } : { status: 404, type: 'text/html', body: '<h1>File not found</h1>' },
    );
    const site = await webServer(() => ({ status: 200, type: 'text/html', body: '<!doctype html><p>Welcome</p>' }));
    servers.push(python.server, site.server);
    notImplemented = python.url;
    htmlSite = site.url;
  });
  afterAll(async () => {
    cleanUp();
    await Promise.all(servers.map((s) => new Promise((done) => s.close(done))));
  });

  it('an unknown command suggests the nearest one', async () => {
    const result = await cli(['stra', 'x.txt'], { home: tempDir() });
    expect(result.code).toBe(2);
    expectOneLineError(result, /^drivesync: unknown command 'stra'; did you mean star\?$/);
    const far = await cli(['frobnicate'], { home: tempDir() });
    expect(far.code).toBe(2);
    expectOneLineError(far, /^drivesync: unknown command 'frobnicate'$/);
    // Under lists too, which runs on its own (the remembered lists) and so gets what follows it.
    const sub = await cli(['lists', 'subscriber', 'abc'], { home: tempDir() });
    expect(sub.code).toBe(2);
    expectOneLineError(sub, /^drivesync: unknown command 'lists subscriber'; did you mean lists subscribers\?$/);
    const none = await cli(['lists', 'frobnicate'], { home: tempDir() });
    expect(none.code).toBe(2);
    expectOneLineError(none, /^drivesync: unknown command 'lists frobnicate'$/);
  });

  it('signing in to a web server that is not a drive says it does not look like one', async () => {
    for (const url of [notImplemented, htmlSite]) {
      const result = await cli(['login', '--server', url, '--email', 'a@example.com', '--password', 'pw'], { home: tempDir() });
      expect(result.code).toBe(1);
      expectOneLineError(result, new RegExp(`^drivesync: login failed: ${url} does not look like a drive service \\(it answered POST /auth/login with `));
      expect(result.stderr).not.toMatch(/try again later|server error/);
    }
  });

  it('a sync or a trash listing against a web server that is not a drive (the address given in DRIVESYNC_SERVER) says so', async () => {
    const env = { DRIVESYNC_SERVER: notImplemented, DRIVESYNC_TOKEN: 'a-token' };
    const sync = await cli(['sync', tempDir(), '--once'], { home: tempDir(), env });
    expect(sync.code).toBe(1);
    expectOneLineError(sync, new RegExp(`^drivesync: .*${notImplemented} does not look like a drive service \\(it answered GET /drive/file-entries with HTTP 404\\); check the address`));
    const trash = await cli(['trash'], { home: tempDir(), env });
    expect(trash.code).toBe(1);
    expectOneLineError(trash, /does not look like a drive service/);
    expect(`${sync.stderr}${trash.stderr}`).not.toMatch(/not found on the drive/);
  });

  it('https:// on a plain-http port says the server speaks plain http, not an OpenSSL message', async () => {
    const https = notImplemented.replace(/^http:/, 'https:');
    const result = await cli(['register', '--server', https, '--email', 'a@example.com', '--password', 'pw'], { home: tempDir() });
    expect(result.code).toBe(1);
    expectOneLineError(result, new RegExp(`^drivesync: register failed: ${https} speaks plain http, not https: use its http:// address$`));
    expect(result.stderr).not.toMatch(/SSL|EPROTO|openssl/i);
  });

  it('a sync against an https address on a plain-http port says so too, not in OpenSSL\'s words', async () => {
    const https = notImplemented.replace(/^http:/, 'https:');
    const dir = tempDir();
    const result = await cli(['sync', dir, '--once'], { home: tempDir(), env: { DRIVESYNC_SERVER: https, DRIVESYNC_TOKEN: 'a-token' } });
    expect(result.code).toBe(1);
    expectOneLineError(result, new RegExp(`^drivesync: .*${https} \\(it speaks plain http, not https: use its http:// address\\)`));
    expect(result.stderr).not.toMatch(/SSL|EPROTO|openssl|wrong version/i);
  });
});

describe('the live line counts', () => {
  it('a file done twice in a pass (planned again) counts once, and never more files done than there are', () => {
    const progress = new PassProgress();
    progress.transfer({ path: 'a.txt', direction: 'down', transferred: 5, total: 10 });
    progress.activity({ at: '', kind: 'download', path: 'a.txt' });
    progress.activity({ at: '', kind: 'download', path: 'a.txt' });
    progress.activity({ at: '', kind: 'upload', path: 'b.txt' });
    progress.activity({ at: '', kind: 'conflict', path: 'a (conflicted copy).txt' });
    expect(progress.filesDone).toBe(3);
    expect(progress.filesTotal).toBe(3);
    expect(progress.bytesDone).toBeLessThanOrEqual(progress.bytesTotal);
    expect(progress.current).toEqual([]);
  });
});

describe('the result line of a pass', () => {
  const pass = (fields: Partial<PassSummary>): PassSummary => ({ ...emptySummary(), ...fields });
  it('says in sync, what failed, or why it is not in sync yet (deletions held while the folder settles)', () => {
    expect(summaryLine(pass({ inSync: true, done: 1 }))).toBe('in sync (1 change)');
    expect(summaryLine(pass({ failed: [{ path: 'a', message: 'm' }], done: 2 }))).toBe('not in sync: 1 item failed (2 changes)');
    expect(summaryLine(pass({ waiting: 2, done: 1 }))).toBe('not in sync yet: 2 items gone, waiting for the folder to settle (1 change)');
    expect(summaryLine(pass({ done: 0 }))).toBe('not in sync (0 changes)');
  });
});
