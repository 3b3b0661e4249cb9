import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = join(ROOT, 'bin', 'drivesync.js');

if (!existsSync(join(ROOT, 'dist', 'main', 'cli', 'index.js'))) {
  throw new Error(
    'dist/main/cli/index.js is missing: the CLI tests spawn the built binary. Run `npm run build` first (`npm test` does).',
  );
}

const HEX13 = /^[0-9a-f]{13}$/;
const LISTENING = /^listening on (http:\/\/127\.0\.0\.1:(\d+))$/m;

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the command to its end (or kills it after `timeoutMs`). */
function run(args: string[], timeoutMs = 10_000): Promise<Finished> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`drivesync ${args.join(' ')} did not finish in ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', fail);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stdout, stderr });
    });
  });
}

interface Spawned {
  child: ChildProcess;
  url: string;
  stdout(): string;
  stderr(): string;
  /** Sends SIGTERM and answers how the process ended. */
  stop(): Promise<Finished>;
}

const running = new Set<ChildProcess>();
const tempDirs: string[] = [];

/** A temp folder removed after the file's tests. */
const folderOfTest = () => {
  const dir = tempDir('cli-test');
  tempDirs.push(dir);
  return dir;
};

/** Starts `drivesync server …` and waits for its `listening on` line. */
function startServerProcess(args: string[], timeoutMs = 15_000): Promise<Spawned> {
  return new Promise((ready, fail) => {
    const child = spawn(process.execPath, [BIN, 'server', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let stdout = '';
    let stderr = '';
    let exited: Finished | null = null;
    const exitWaiters: Array<(f: Finished) => void> = [];
    child.stdout!.setEncoding('utf8');
    child.stderr!.setEncoding('utf8');
    const timer = setTimeout(() => fail(new Error(`no "listening on" line in ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
    child.stderr!.on('data', (chunk: string) => (stderr += chunk));
    child.stdout!.on('data', (chunk: string) => {
      stdout += chunk;
      const match = LISTENING.exec(stdout);
      if (match) {
        clearTimeout(timer);
        ready({
          child,
          url: match[1]!,
          stdout: () => stdout,
          stderr: () => stderr,
          stop: () =>
            new Promise<Finished>((stopped) => {
              if (exited) return stopped(exited);
              exitWaiters.push(stopped);
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.on('error', fail);
    child.on('close', (code, signal) => {
      running.delete(child);
      exited = { code, signal, stdout, stderr };
      clearTimeout(timer);
      fail(new Error(`server exited early (${code ?? signal}); stderr: ${stderr}`));
      for (const waiter of exitWaiters) waiter(exited);
    });
  });
}

/** Kills a stop() that hangs, so a broken shutdown fails the test instead of timing it out. */
async function stopWithin(server: Spawned, ms = 5_000): Promise<Finished> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, fail) => {
    timer = setTimeout(() => {
      server.child.kill('SIGKILL');
      fail(new Error(`server did not exit within ${ms} ms of SIGTERM`));
    }, ms);
  });
  try {
    return await Promise.race([server.stop(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function request(url: string, method: string, body?: unknown, token?: string) {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as any) };
}

async function registerThrough(url: string, email: string): Promise<string> {
  const answer = await request(`${url}/api/v1/auth/register`, 'POST', {
    email,
    password: 'secret-password',
    password_confirmation: 'secret-password',
    token_name: 'cli',
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  // The deployed profile nests the user under bootstrapData.
  return (answer.body.user ?? answer.body.bootstrapData.user).access_token as string;
}

/** A usage or user error: exactly one line on stderr, prefixed, without a stack trace. */
function expectOneLineError(result: Finished) {
  const lines = result.stderr.split('\n').filter((l) => l.trim() !== '');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^drivesync: \S/);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.stderr).not.toMatch(/Error:/);
}

// Tests run concurrently (each is mostly the start-up time of a process): clean up once at the end.
afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

describe.concurrent('drivesync server', () => {
  it('prints its address, serves requests and exits cleanly on SIGTERM', async () => {
    const data = folderOfTest();
    const server = await startServerProcess(['--port', '0', '--data', data]);
    const port = Number(/:(\d+)$/.exec(server.url)![1]);
    expect(port).toBeGreaterThan(0);

    const token = await registerThrough(server.url, 'cli-owner@example.com');
    const listing = await request(`${server.url}/api/v1/drive/file-entries`, 'GET', undefined, token);
    expect(listing.status).toBe(200);
    // The default listing is the paginator object.
    expect(Array.isArray(listing.body)).toBe(false);
    expect(listing.body).toMatchObject({ current_page: 1, data: [], total: 0 });

    const unauthenticated = await request(`${server.url}/api/v1/drive/file-entries`, 'GET');
    expect(unauthenticated.status).toBe(401);

    expect(server.stderr()).toContain(`data in ${data}`);
    expect(existsSync(join(data, 'server.sqlite'))).toBe(true);

    const finished = await stopWithin(server);
    expect(finished.signal).toBeNull();
    expect(finished.code).toBe(0);
    expect(finished.stderr).not.toMatch(/^\s+at /m);
    await expect(fetch(`${server.url}/api/v1/drive/file-entries`)).rejects.toThrow();
  });

  it('a partial upload a killed server left in data/tmp is cleaned at the next start', async () => {
    const data = folderOfTest();
    const first = await startServerProcess(['--port', '0', '--data', data]);
    const token = await registerThrough(first.url, 'partial@example.com');
    // An upload whose body is still arriving when the server dies.
    const boundary = 'drivesync-test-boundary';
    const upload = httpRequest(`${first.url}/api/v1/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    upload.on('error', () => undefined);
    upload.write(`--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="big.bin"\r\ncontent-type: application/octet-stream\r\n\r\n`);
    upload.write(Buffer.alloc(256 * 1024, 1));
    const tmp = join(data, 'tmp');
    const deadline = Date.now() + 10_000;
    while (readdirSync(tmp).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(readdirSync(tmp)).toHaveLength(1);
    first.child.kill('SIGKILL');
    await first.stop();
    upload.destroy();
    expect(readdirSync(tmp)).toHaveLength(1);

    const second = await startServerProcess(['--port', '0', '--data', data]);
    expect(readdirSync(tmp)).toEqual([]);
    // It is the same server: the account is still there.
    const login = await request(`${second.url}/api/v1/auth/login`, 'POST', { email: 'partial@example.com', password: 'secret-password', token_name: 't' });
    expect(login.status).toBe(200);
    expect((await stopWithin(second)).code).toBe(0);
  });

  it('exits cleanly on SIGINT too', async () => {
    const server = await startServerProcess(['--port', '0', '--data', folderOfTest()]);
    expect((await request(`${server.url}/api/v1/drive/file-entries`, 'GET')).status).toBe(401);
    const exited = new Promise<number | null>((done) => server.child.once('close', (code) => done(code)));
    server.child.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  it('--list-format array answers the listing as a bare array', async () => {
    const server = await startServerProcess(['--port', '0', '--data', folderOfTest(), '--list-format', 'array']);
    const token = await registerThrough(server.url, 'array@example.com');
    const folder = await request(`${server.url}/api/v1/folders`, 'POST', { name: 'Array folder', parentId: null }, token);
    expect(folder.status).toBe(200);
    const listing = await request(`${server.url}/api/v1/drive/file-entries`, 'GET', undefined, token);
    expect(listing.status).toBe(200);
    expect(Array.isArray(listing.body)).toBe(true);
    expect(listing.body.map((e: { id: number }) => e.id)).toEqual([folder.body.folder.id]);
    expect((await stopWithin(server)).code).toBe(0);
  });

  it('--list-format with an unknown value exits 2 with one line', async () => {
    const result = await run(['server', '--port', '0', '--data', folderOfTest(), '--list-format', 'table']);
    expect(result.code).toBe(2);
    expect(result.stdout).not.toMatch(LISTENING);
    expectOneLineError(result);
  });

  it('--profile deployed answers as deployed versions: the root’s children only, 50 a page, the user under bootstrapData', async () => {
    const server = await startServerProcess(['--port', '0', '--data', folderOfTest(), '--profile', 'deployed']);
    const registered = await request(`${server.url}/api/v1/auth/register`, 'POST', {
      email: 'deployed@example.com',
      password: 'secret-password',
      password_confirmation: 'secret-password',
      token_name: 'cli',
    });
    expect(registered.status).toBe(200);
    const token = registered.body.bootstrapData.user.access_token as string;
    const folder = await request(`${server.url}/api/v1/folders`, 'POST', { name: 'Top folder', parentId: null }, token);
    const inner = await request(`${server.url}/api/v1/folders`, 'POST', { name: 'Inner folder', parentId: folder.body.folder.id }, token);
    expect(inner.status).toBe(200);
    const listing = await request(`${server.url}/api/v1/drive/file-entries?perPage=500`, 'GET', undefined, token);
    expect(listing.status).toBe(200);
    expect(listing.body.per_page).toBe(50);
    expect(listing.body.data.map((e: { id: number }) => e.id)).toEqual([folder.body.folder.id]);
    expect((await stopWithin(server)).code).toBe(0);
  });

  it('--profile with an unknown value, or deployed with --list-format array, exits 2 with one line', async () => {
    const results = await Promise.all([
      run(['server', '--port', '0', '--data', folderOfTest(), '--profile', 'staging']),
      run(['server', '--port', '0', '--data', folderOfTest(), '--profile', 'deployed', '--list-format', 'array']),
    ]);
    for (const result of results) {
      expect(result.code, result.stderr).toBe(2);
      expect(result.stdout).not.toMatch(LISTENING);
      expectOneLineError(result);
    }
    expect(results[1]!.stderr).toMatch(/deployed profile always answers listings as a paginator/);
  });

  it('--faults injects the faults it is given', async () => {
    const server = await startServerProcess([
      '--port',
      '0',
      '--data',
      folderOfTest(),
      '--faults',
      '500=1,match=GET:/api/v1/drive/file-entries',
    ]);
    const token = await registerThrough(server.url, 'faults@example.com');
    const listing = await request(`${server.url}/api/v1/drive/file-entries`, 'GET', undefined, token);
    expect(listing.status).toBe(500);
    expect((await stopWithin(server)).code).toBe(0);
  });

  it('--faults with a bad spec exits 2 with one line on stderr and no stack trace', async () => {
    const specs = ['500=2', 'bogus=1', 'match=nope'];
    const results = await Promise.all(specs.map((spec) => run(['server', '--port', '0', '--data', folderOfTest(), '--faults', spec])));
    for (const [i, result] of results.entries()) {
      const spec = specs[i];
      expect(result.code, `${spec}: ${result.stderr}`).toBe(2);
      expect(result.stdout).not.toMatch(LISTENING);
      expectOneLineError(result);
      expect(result.stderr).toContain('--faults');
    }
  });

  it('--port abc exits 2 with one line', async () => {
    const ports = ['abc', '70000'];
    const results = await Promise.all(ports.map((port) => run(['server', '--port', port, '--data', folderOfTest()])));
    for (const [i, result] of results.entries()) {
      const port = ports[i];
      expect(result.code, `${port}: ${result.stderr}`).toBe(2);
      expect(result.stdout).not.toMatch(LISTENING);
      expectOneLineError(result);
    }
  });

  it('--help exits 0 and describes the commands', async () => {
    const [top, server] = await Promise.all([run(['--help']), run(['server', '--help'])]);
    expect(top.code).toBe(0);
    expect(top.stdout).toContain('server');
    expect(server.code).toBe(0);
    expect(server.stdout).toContain('--list-format');
    expect(server.stdout).toContain('--profile');
    expect(server.stdout).toContain('add-list');
  });
});

describe.concurrent('drivesync server add-list', () => {
  it('prints a 13-hex id of a list the owner then reaches through the server', async () => {
    const data = folderOfTest();
    const server = await startServerProcess(['--port', '0', '--data', data]);
    const owner = await registerThrough(server.url, 'list-owner@example.com');
    const stranger = await registerThrough(server.url, 'list-stranger@example.com');

    const result = await run(['server', 'add-list', 'News', '--owner', 'list-owner@example.com', '--data', data]);
    expect(result.code, result.stderr).toBe(0);
    const id = result.stdout.trim();
    expect(id).toMatch(HEX13);
    expect(result.stdout).toBe(`${id}\n`);

    const base = `${server.url}/api/v1/lists/${id}/subscribers`;
    const empty = await request(base, 'GET', undefined, owner);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual([]);
    expect((await request(base, 'GET', undefined, stranger)).status).toBe(403);

    // A second list gets another id; its --field and --double-opt-in are taken.
    const custom = await run([
      'server',
      'add-list',
      'Cities',
      '--owner',
      'list-owner@example.com',
      '--data',
      data,
      '--field',
      'CITY',
      '--double-opt-in',
    ]);
    expect(custom.code, custom.stderr).toBe(0);
    const customId = custom.stdout.trim();
    expect(customId).toMatch(HEX13);
    expect(customId).not.toBe(id);
    const stored = await request(
      `${server.url}/api/v1/lists/${customId}/subscribers/store?EMAIL=reader%40example.com&CITY=Oslo`,
      'GET',
      undefined,
      owner,
    );
    expect(stored.status, JSON.stringify(stored.body)).toBe(200);
    const shown = await request(
      `${server.url}/api/v1/lists/${customId}/subscribers/${stored.body.subscriber_uid}`,
      'GET',
      undefined,
      owner,
    );
    expect(shown.body.subscriber).toMatchObject({ CITY: 'Oslo', status: 'unconfirmed' });

    expect((await stopWithin(server)).code).toBe(0);
  });

  it('exits 1 with one line for an unknown owner', async () => {
    const data = folderOfTest();
    const server = await startServerProcess(['--port', '0', '--data', data]);
    await registerThrough(server.url, 'someone@example.com');
    expect((await stopWithin(server)).code).toBe(0);

    const result = await run(['server', 'add-list', 'News', '--owner', 'nobody@example.com', '--data', data]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expectOneLineError(result);
    expect(result.stderr).toContain('nobody@example.com');
  });

  it('takes --data before add-list too', async () => {
    const data = folderOfTest();
    const server = await startServerProcess(['--port', '0', '--data', data]);
    const owner = await registerThrough(server.url, 'early-data@example.com');
    const result = await run(['server', '--data', data, 'add-list', 'Early', '--owner', 'early-data@example.com']);
    expect(result.code, result.stderr).toBe(0);
    const id = result.stdout.trim();
    expect(id).toMatch(HEX13);
    expect((await request(`${server.url}/api/v1/lists/${id}/subscribers`, 'GET', undefined, owner)).status).toBe(200);
    expect((await stopWithin(server)).code).toBe(0);
  });

  it('exits 1 with one line for a --data that holds no server, and creates nothing there', async () => {
    const missing = join(folderOfTest(), 'no-such-server');
    const result = await run(['server', 'add-list', 'News', '--owner', 'someone@example.com', '--data', missing]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expectOneLineError(result);
    expect(existsSync(missing)).toBe(false);
  });

  it('exits 2 without --owner', async () => {
    const result = await run(['server', 'add-list', 'News', '--data', folderOfTest()]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expectOneLineError(result);
  });
});
