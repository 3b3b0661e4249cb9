// `drivesync sync --once` against a server that drips its answers one byte a second: with a short deadline set
// through the environment or config.json, the pass fails within a bounded time, exits 1 with one line and no stack
// trace, and changes nothing on either side; once the server answers again, the next pass is in sync.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allFiles, cli, expectOneLineError, makeTree, newAccount, remoteTree, tempDir, useCliTestServer } from './helpers.js';

const server = useCliTestServer();

/** Forwards to the reference server, or, while `drip` is on, answers every request with headers and then one space a second. */
let proxy: Server;
let proxyUrl: string;
let drip = false;
let dripped = 0;
const sockets = new Set<Socket>();

beforeAll(async () => {
  proxy = createServer((req, res) => {
    if (drip) {
      dripped++;
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 1000);
      res.on('close', () => clearInterval(timer));
      res.on('error', () => clearInterval(timer));
      return;
    }
    const target = new URL(req.url ?? '/', server.url);
    const upstream = request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  proxy.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => proxy?.close(() => resolve()));
});

const FILES = { 'hello.txt': 'hello', 'docs/a.md': '# A', 'docs/deep/b.txt': 'b' };

/** A folder synced once through the proxy, with what it holds on both sides. */
async function syncedFolder(name: string) {
  drip = false;
  const account = await newAccount(server, name);
  const home = tempDir('home');
  const env = { DRIVESYNC_TOKEN: account.token, DRIVESYNC_SERVER: proxyUrl };
  const dir = join(tempDir(), 'Drive');
  makeTree(dir, FILES);
  const first = await cli(['sync', dir, '--once'], { home, env });
  expect(first.code, first.stderr).toBe(0);
  const local = allFiles(dir);
  const remote = await remoteTree(server, account.token);
  expect(Object.keys(remote)).toHaveLength(5);
  return { account, home, env, dir, local, remote };
}

/** The pass against the dripping server: exit 1, one line naming the deadline, nothing changed on either side. */
async function failsAtDeadline(folder: Awaited<ReturnType<typeof syncedFolder>>, env: Record<string, string>) {
  drip = true;
  const before = dripped;
  const started = Date.now();
  // The CLI's own limit is far above the bound checked: without a deadline the pass would hang for minutes.
  const result = await cli(['sync', folder.dir, '--once'], { home: folder.home, env: { ...folder.env, ...env }, timeoutMs: 120_000 });
  const elapsed = Date.now() - started;
  drip = false;
  expect(result.code, result.stderr).toBe(1);
  expectOneLineError(result, /did not answer within 2 s/);
  expect(dripped).toBeGreaterThan(before);
  // A deadline of 2 s for each request the pass makes; without it, the default is 60 s each.
  expect(elapsed).toBeLessThan(30_000);
  expect(allFiles(folder.dir)).toEqual(folder.local);
  expect(await remoteTree(server, folder.account.token)).toEqual(folder.remote);

  const again = await cli(['sync', folder.dir, '--once'], { home: folder.home, env: folder.env });
  expect(again.code, again.stderr).toBe(0);
  expect(again.stdout.trim()).toBe('in sync (0 changes)');
  expect(allFiles(folder.dir)).toEqual(folder.local);
  expect(await remoteTree(server, folder.account.token)).toEqual(folder.remote);
}

describe('drivesync sync --once against a server that drips its answers', () => {
  it('DRIVESYNC_REQUEST_TIMEOUT=2: fails within the deadlines, one line, nothing lost (the variable wins over config.json)', async () => {
    const folder = await syncedFolder('drip-env');
    const configFile = join(folder.home, 'config.json');
    const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
    writeFileSync(configFile, JSON.stringify({ ...config, requestTimeoutSeconds: 3600 }));
    await failsAtDeadline(folder, { DRIVESYNC_REQUEST_TIMEOUT: '2' });
  });

  it('requestTimeoutSeconds: 2 in config.json does the same, and stays in the config the pass saves', async () => {
    const folder = await syncedFolder('drip-config');
    const configFile = join(folder.home, 'config.json');
    const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
    writeFileSync(configFile, JSON.stringify({ ...config, requestTimeoutSeconds: 2 }));
    await failsAtDeadline(folder, {});
    expect(JSON.parse(readFileSync(configFile, 'utf8'))).toMatchObject({ requestTimeoutSeconds: 2 });
  });

  it('a deadline that is not a number of seconds is a one-line error', async () => {
    const home = tempDir('home');
    const dir = join(tempDir(), 'Drive');
    makeTree(dir, FILES);
    for (const [name, value] of [['DRIVESYNC_REQUEST_TIMEOUT', 'soon'], ['DRIVESYNC_STALL_TIMEOUT', '0']] as const) {
      const result = await cli(['sync', dir, '--once'], { home, env: { DRIVESYNC_TOKEN: 't', DRIVESYNC_SERVER: proxyUrl, [name]: value } });
      expect(result.code).toBe(1);
      expectOneLineError(result, new RegExp(`^drivesync: ${name} must be a number of seconds`));
    }
    expect(allFiles(dir).map((f) => relative(dir, f.path)).sort()).toEqual(['docs/a.md', 'docs/deep/b.txt', 'hello.txt']);
  });
});
