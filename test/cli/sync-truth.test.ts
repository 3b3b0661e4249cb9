/**
 * `drivesync sync` and `drivesync status` tell the truth: offline when the server cannot be reached (said once when it
 * starts and once when it ends), not in sync after a failed or offline pass, a folder the scan cannot read listed as
 * an error; and on a terminal the live line never has another line written onto it, leaves when in sync, and a
 * Ctrl-C during a download is not reported as a failure.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, uploadForm, type TestServer } from '../helpers/server.js';
import {
  cleanUp,
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
  type TestAccount,
} from './helpers.js';
import { eventually } from '../helpers/eventually.js';

afterAll(() => cleanUp());

/** A signed-in state dir that polls the server every half second. */
async function pollingHome(server: TestServer, name: string, url = server.url): Promise<{ account: TestAccount; home: string }> {
  const account = await newAccount(server, name);
  const home = await signedInHome({ ...server, url }, account);
  const config = JSON.parse(readFileSync(join(home, 'config.json'), 'utf8'));
  writeFileSync(join(home, 'config.json'), JSON.stringify({ ...config, pollIntervalSeconds: 0.5 }));
  return { account, home };
}

const count = (text: string, pattern: RegExp) => (text.match(new RegExp(pattern.source, 'gm')) ?? []).length;

describe.concurrent('offline', () => {
  it('sync --once against a server that went away exits 1 with one plain line; status says so, and not in sync', async () => {
    const dataDir = tempDir('data');
    let server = await startTestServer({ dataDir });
    const port = Number(new URL(server.url).port);
    try {
      const { home } = await pollingHome(server, 'once-offline');
      const dir = join(tempDir(), 'Drive');
      makeTree(dir, { 'a.txt': 'a' });
      expect((await cli(['sync', dir, '--once'], { home })).code).toBe(0);

      await server.close();
      const down = await cli(['sync', dir, '--once'], { home });
      expect(down.code).toBe(1);
      expectOneLineError(down, new RegExp(`^drivesync: offline: cannot reach ${server.url} \\(connection refused\\); nothing was synced$`));
      expect(down.stdout).toBe('');

      const json = (await statusJson(home)).roots[0]!;
      expect(json).toMatchObject({ state: 'stopped', running: false, inSync: false, offline: { reason: expect.stringMatching(/connection refused/) } });
      const text = await cli(['status'], { home });
      expect(text.stdout).toMatch(/state:\s+stopped; the last run could not reach the server \(connection refused\) at \d{4}-/);
      expect(text.stdout).toMatch(/last sync:\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(the server has not been reached since\)/);
      expect(text.stdout).not.toMatch(/\(in sync\)|, in sync/);

      // The next pass that reaches the server clears it.
      server = await startTestServer({ dataDir, port });
      const back = await cli(['sync', dir, '--once'], { home });
      expect(back.code, back.stderr).toBe(0);
      expect((await statusJson(home)).roots[0]).toMatchObject({ inSync: true, offline: null });
    } finally {
      await server.close();
    }
  });

  it('a running sync says offline once when the server goes away and once when it is back, with no failure per poll', async () => {
    const dataDir = tempDir('data');
    let server = await startTestServer({ dataDir });
    const port = Number(new URL(server.url).port);
    try {
      const { account, home } = await pollingHome(server, 'live-offline');
      const dir = join(tempDir(), 'Drive');
      makeTree(dir, { 'a.txt': 'a' });
      const running = spawnCli(['sync', dir], { home });
      await running.waitFor(/^watching .* for changes/m);

      await server.close();
      await running.waitFor(new RegExp(`^offline: cannot reach ${server.url} \\(connection refused\\); trying again every 0\\.5 s$`, 'm'));
      const live = await eventually(
        async () => (await statusJson(home)).roots[0]!,
        (root) => root.state === 'offline' && root.offline !== null,
      );
      expect(live).toMatchObject({ running: true, inSync: false });
      expect((await cli(['status'], { home })).stdout).toMatch(/state:\s+offline: cannot reach the server \(connection refused\) since \d{4}-/);

      // Several polls fail meanwhile; none is reported again.
      await eventually(
        () => readFileSync(join(home, 'logs', 'drivesync.log'), 'utf8'),
        (log) => count(log, /"state":"offline"/) >= 3,
        { within: 20_000 },
      );
      // A file saved meanwhile: its pass cannot reach the server either; it is offline, not a failed item.
      const offlineBefore = count(readFileSync(join(home, 'logs', 'drivesync.log'), 'utf8'), /"state":"offline"/);
      writeFileSync(join(dir, 'offline.txt'), 'saved offline');
      await eventually(
        () => readFileSync(join(home, 'logs', 'drivesync.log'), 'utf8'),
        (log) => count(log, /"state":"offline"/) >= offlineBefore + 2,
        { within: 20_000 },
      );
      expect(readFileSync(join(home, 'logs', 'drivesync.log'), 'utf8')).not.toMatch(/"msg":"item error"/);
      // What waits to go up is said once it changes, and status says it too.
      await running.waitFor(/^offline: 1 change made here waits to go up to the drive$/m);
      expect((await cli(['status'], { home })).stdout).toMatch(/waiting:\s+1 change made here waits to go up to the drive/);
      expect((await statusJson(home)).roots[0]!.offline).toMatchObject({ waitingUp: 1 });
      expect(count(running.stdout(), /^offline: cannot reach/)).toBe(1);
      expect(count(running.stdout(), /^offline:/)).toBe(2);
      expect(running.stdout()).not.toMatch(/not in sync/);
      expect(running.stderr()).toBe('');

      server = await startTestServer({ dataDir, port });
      await running.waitFor(/^back online after \d+ (s|min): http:\/\/127\.0\.0\.1:\d+ answers again; syncing 1 change made here meanwhile$/m);
      await running.waitFor(/^uploaded offline\.txt$/m);
      expect(running.stdout().indexOf('back online')).toBeLessThan(running.stdout().indexOf('uploaded offline.txt'));
      writeFileSync(join(dir, 'after.txt'), 'after');
      await running.waitFor(/^uploaded after\.txt$/m);
      expect(await remoteTree(server, account.token)).toEqual({ 'a.txt': 'a', 'after.txt': 'after', 'offline.txt': 'saved offline' });
      expect(count(running.stdout(), /^offline:/)).toBe(2);
      expect(count(running.stdout(), /^back online /)).toBe(1);
      expect((await statusJson(home)).roots[0]).toMatchObject({ running: true, offline: null });

      const finished = await running.stop('SIGTERM');
      expect(finished.code, finished.stderr).toBe(0);
      expect(finished.stderr).toBe('');
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe.concurrent('offline, then failing for another reason', () => {
  it('an item that fails once the server is back is told, after back online', async () => {
    const dataDir = tempDir('data');
    let server = await startTestServer({ dataDir });
    const port = Number(new URL(server.url).port);
    try {
      const { home } = await pollingHome(server, 'offline-then-failing');
      const dir = join(tempDir(), 'Drive');
      makeTree(dir, { 'a.txt': 'a' });
      const running = spawnCli(['sync', dir], { home });
      await running.waitFor(/^watching .* for changes/m);
      await server.close();
      await running.waitFor(/^offline: /m);
      const offlineBefore = count(readFileSync(join(home, 'logs', 'drivesync.log'), 'utf8'), /"state":"offline"/);
      writeFileSync(join(dir, 'b.txt'), 'b');
      await eventually(
        () => readFileSync(join(home, 'logs', 'drivesync.log'), 'utf8'),
        (log) => count(log, /"state":"offline"/) >= offlineBefore + 2,
        { within: 20_000 },
      );
      expect(running.stderr()).toBe('');

      // Back, but refusing every upload: that failure is no longer the server being away.
      server = await startTestServer({ dataDir, port, faults: '500=1,match=POST:/api/v1/uploads' });
      await running.waitFor(/^back online after /m);
      await eventually(running.stderr, (stderr) => /^drivesync: b\.txt: .*server error 500/m.test(stderr), { within: 20_000 });
      await running.waitFor(/^not in sync: 1 item failed/m);
      expect(count(running.stdout(), /^offline: cannot reach/)).toBe(1);
      expect((await running.stop('SIGTERM')).code).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe.concurrent('what the pass could not do', () => {
  it('Ctrl-C during an upload stops without a failure: status lists none and counts none', async () => {
    const server = await startTestServer();
    const proxy = await slowProxy(server.url);
    try {
      const { account, home } = await pollingHome(server, 'tty-upload', proxy.url);
      const dir = join(tempDir(), 'Drive');
      makeTree(dir, { 'a.txt': 'a' });
      const result = await interruptedSync(home, dir, {
        // 2 MB at 320 KiB/s through the proxy: over 6 s of upload.
        start: () => writeFileSync(join(dir, 'slow-up.bin'), Buffer.alloc(2 * 1024 * 1024, 3)),
        // On loopback the socket takes the whole file at once, so the bar is full from the start: the upload is under
        // way once the line says syncing.
        underWay: /syncing /,
        afterMs: 1000,
      });
      expect(result.stdout).not.toMatch(/failed|cancelled|drivesync: slow-up\.bin/);
      const status = await statusJson(home);
      expect(status.roots[0]).toMatchObject({ state: 'stopped', inSync: false, errors: [], counts: { failed: 0 } });
      expect((await cli(['status'], { home })).stdout).toMatch(/items:\s+1 synced, 0 failed/);
      expect(Object.keys(await remoteTree(server, account.token))).toEqual(['a.txt']);
    } finally {
      await proxy.close();
      await server.close();
    }
  }, 90_000);

  it('a folder the scan cannot read makes the pass not in sync (exit 1), is listed by status, and nothing in it is deleted', async () => {
    const server = await startTestServer();
    const locked = join(tempDir(), 'Drive', 'locked');
    try {
      const account = await newAccount(server, 'unreadable');
      const home = await signedInHome(server, account);
      const dir = join(locked, '..');
      makeTree(dir, { 'ok.txt': 'ok', 'locked/inside.txt': 'inside' });
      expect((await cli(['sync', dir, '--once'], { home })).code).toBe(0);

      chmodSync(locked, 0o000);
      // root reads any folder; without these capabilities it is held to the folder's mode as anyone else.
      const prefix = process.getuid?.() === 0 ? ['setpriv', '--bounding-set', '-dac_override,-dac_read_search'] : [];
      const result = await cli(['sync', dir, '--once'], { home, prefix });
      expect(result.code).toBe(1);
      expectNoStack(result);
      expect(result.stderr).toMatch(/^drivesync: locked: cannot be read/m);
      expect(result.stdout).toMatch(/^not in sync: 1 item failed/m);

      const root = (await statusJson(home)).roots[0]!;
      expect(root.inSync).toBe(false);
      expect(root.errors).toEqual([expect.objectContaining({ path: 'locked', message: expect.stringMatching(/cannot be read/) })]);
      const text = await cli(['status'], { home });
      expect(text.stdout).toMatch(/last sync:\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d, not in sync: 1 item failed \(0 changes\)/);
      expect(text.stdout).toMatch(/error:\s+locked: cannot be read/);
      expect(await remoteTree(server, account.token)).toEqual({ locked: '/', 'locked/inside.txt': 'inside', 'ok.txt': 'ok' });
    } finally {
      chmodSync(locked, 0o755);
      await server.close();
    }
  });

  it('a file that cannot be read is an item error in plain words; the folder stays idle and syncs everything else', async () => {
    const server = await startTestServer();
    const dir = join(tempDir(), 'Drive');
    try {
      const account = await newAccount(server, 'unreadable-file');
      const home = await signedInHome(server, account);
      makeTree(dir, { 'ok.txt': 'ok', 'unreadable.txt': 'small', 'big.bin': 'b'.repeat(600_000) });
      chmodSync(join(dir, 'unreadable.txt'), 0o000);
      chmodSync(join(dir, 'big.bin'), 0o000);
      const prefix = process.getuid?.() === 0 ? ['setpriv', '--bounding-set', '-dac_override,-dac_read_search'] : [];
      const running = spawnCli(['sync', dir], { home, prefix });
      await running.waitFor(/watching/, 20_000);
      const status = await eventually(() => statusJson(home), (s) => s.roots[0]?.errors.length === 2);
      expect(status.roots[0]).toMatchObject({ state: 'idle', detail: '2 items not synced', inSync: false });
      expect(status.roots[0]!.errors).toEqual(
        expect.arrayContaining([
          { path: 'unreadable.txt', message: 'cannot be read: permission denied' },
          { path: 'big.bin', message: 'cannot be read: permission denied' },
        ]),
      );
      expect(running.stderr()).toMatch(/^drivesync: unreadable\.txt: cannot be read: permission denied$/m);
      expect(running.stderr()).not.toMatch(/EACCES|POST \/uploads|\/tmp\//);
      // Everything else still syncs while the two wait.
      writeFileSync(join(dir, 'later.txt'), 'later');
      await eventually(() => remoteTree(server, account.token), (tree) => tree['later.txt'] === 'later', { within: 20_000 });
      const text = await cli(['status'], { home });
      expect(text.stdout).toMatch(/state:\s+idle \(2 items not synced\)/);
      expect(text.stdout).toMatch(/error:\s+big\.bin: cannot be read: permission denied/);
      // Readable again: it syncs, and the folder is in sync.
      chmodSync(join(dir, 'unreadable.txt'), 0o644);
      chmodSync(join(dir, 'big.bin'), 0o644);
      await eventually(() => statusJson(home), (s) => s.roots[0]?.inSync === true && s.roots[0]!.errors.length === 0, { within: 30_000 });
      expect(await remoteTree(server, account.token)).toMatchObject({ 'unreadable.txt': 'small', 'ok.txt': 'ok' });
      expectNoStack(await running.stop('SIGINT'));
    } finally {
      await server.close();
    }
  });

  it('status after a failed sync --once does not say in sync', async () => {
    const server = await startTestServer({ faults: '500=1,match=POST:/api/v1/uploads' });
    try {
      const account = await newAccount(server, 'failed-once');
      const home = await signedInHome(server, account);
      const dir = join(tempDir(), 'Drive');
      makeTree(dir, { 'one.txt': '1' });
      expect((await cli(['sync', dir, '--once'], { home })).code).toBe(1);
      const text = await cli(['status'], { home });
      expect(text.stdout).toMatch(/state:\s+stopped/);
      expect(text.stdout).toMatch(/last sync:\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d, not in sync: 1 item failed \(0 changes\)/);
      expect(text.stdout).toMatch(/error:\s+one\.txt: /);
      expect(text.stdout).not.toMatch(/\(in sync\)|, in sync/);
    } finally {
      await server.close();
    }
  });
});

/**
 * `sync DIR` on a terminal: once it watches, `start` begins a transfer; once the output after that matches `underWay`,
 * Ctrl-C is typed `afterMs` later (the terminal's interrupt character: SIGINT to the foreground process, as a person's).
 * Answers how it ended, having checked it was interrupted and exited 0.
 */
async function interruptedSync(home: string, dir: string, how: { start: () => void; underWay: RegExp; afterMs: number }) {
  let interrupted = false;
  let restedAt = -1;
  const result = await cliOnTty(['sync', dir], {
    home,
    timeoutMs: 60_000,
    onOutput: (all, child) => {
      if (restedAt < 0 && /watching .* for changes/.test(all)) {
        restedAt = all.length;
        how.start();
      }
      if (restedAt >= 0 && !interrupted && how.underWay.test(all.slice(restedAt))) {
        interrupted = true;
        setTimeout(() => child.stdin!.write('\u0003'), how.afterMs);
      }
    },
  });
  expect(interrupted, result.stdout).toBe(true);
  expect(result.code, result.stdout).toBe(0);
  return result;
}

/** Forwards to the server, sending file contents (anything not JSON) slowly: 16 KB every 50 ms. */
async function slowProxy(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const proxy: Server = createServer((incoming, outgoing) => {
    const upstream = request(`${target}${incoming.url}`, { method: incoming.method, headers: incoming.headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      if (/json/.test(String(answer.headers['content-type'] ?? ''))) return void answer.pipe(outgoing);
      answer.on('data', (chunk: Buffer) => {
        answer.pause();
        let at = 0;
        const next = () => {
          if (outgoing.destroyed) return;
          if (at >= chunk.length) return void answer.resume();
          outgoing.write(chunk.subarray(at, at + 16_384));
          at += 16_384;
          setTimeout(next, 50);
        };
        next();
      });
      answer.on('end', () => outgoing.end());
    });
    upstream.on('error', () => outgoing.destroy());
    // Request bodies (uploads) are paced too: 16 KiB per 50 ms.
    let pacing = false;
    let ended = false;
    incoming.on('data', (chunk: Buffer) => {
      incoming.pause();
      pacing = true;
      let at = 0;
      const next = () => {
        if (upstream.destroyed) return;
        if (at >= chunk.length) {
          pacing = false;
          if (ended) upstream.end();
          return void incoming.resume();
        }
        upstream.write(chunk.subarray(at, at + 16_384));
        at += 16_384;
        setTimeout(next, 50);
      };
      next();
    });
    incoming.on('end', () => {
      ended = true;
      if (!pacing) upstream.end();
    });
    incoming.on('error', () => upstream.destroy());
  });
  await new Promise<void>((ready) => proxy.listen(0, '127.0.0.1', ready));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    close: () =>
      new Promise((done) => {
        proxy.closeAllConnections();
        proxy.close(() => done());
      }),
  };
}

// The screen as a terminal shows it: lines end in \r\n; `\r\x1b[2K` clears the line the cursor is on.
// eslint-disable-next-line no-control-regex
const LINE_START = /(?:^|\n|\r\u001b\[2K)$/;

describe.concurrent('the live line on a terminal', () => {
  it('every other line starts a line of its own; counts never pass totals; nothing is left drawn in sync', async () => {
    const server = await startTestServer({ faults: '500=1,match=POST:/api/v1/uploads' });
    try {
      const account = await newAccount(server, 'tty-failing');
      const home = await signedInHome(server, account);
      const dir = join(tempDir(), 'Drive');
      mkdirSync(dir);
      writeFileSync(join(dir, 'big.bin'), Buffer.alloc(3 * 1024 * 1024, 1));
      writeFileSync(join(dir, 'small.txt'), 'small');
      const result = await cliOnTty(['sync', dir, '--once'], { home });
      expect(result.code).toBe(1);
      const screen = result.stdout;
      const problems = [...screen.matchAll(/drivesync: (big\.bin|small\.txt): /g)];
      expect(problems.map((m) => m[1]).sort()).toEqual(['big.bin', 'small.txt']);
      for (const m of problems) expect(screen.slice(0, m.index), JSON.stringify(screen.slice(Math.max(0, m.index! - 80), m.index! + 40))).toMatch(LINE_START);
      for (const m of screen.matchAll(/files (\d+)\/(\d+)/g)) expect(Number(m[1])).toBeLessThanOrEqual(Number(m[2]));
      // The live line is taken off before the command ends: the shell's prompt comes on a clean line.
      expect(screen.slice(screen.lastIndexOf('\n') + 1).split('\r\u001b[2K').pop()).toBe('');
    } finally {
      await server.close();
    }
  });

  it('at rest in sync no line of zeros stays, and Ctrl-C during a download stops without a failure', async () => {
    const server = await startTestServer();
    const proxy = await slowProxy(server.url);
    try {
      const { account, home } = await pollingHome(server, 'tty-download', proxy.url);
      const dir = join(tempDir(), 'Drive');
      makeTree(dir, { 'a.txt': 'a' });
      const result = await interruptedSync(home, dir, {
        // A file of 2 MB on the drive: its download takes over 6 s through the proxy.
        start: () => void server.call(account.token, 'POST', '/api/v1/uploads', uploadForm('slow.bin', Buffer.alloc(2 * 1024 * 1024, 2))),
        underWay: /syncing .*\| slow\.bin/,
        afterMs: 300,
      });
      const screen = result.stdout;
      expect(screen).toContain('stopping (SIGINT)');
      expect(screen).not.toMatch(/cancelled|GET \/file-entries|\{file url\}|drivesync: slow\.bin/);
      // At rest the line says nothing rather than `files 0/0 … 0 B/0 B … ETA --`.
      expect(screen).not.toMatch(/files 0\/0|0 B\/0 B/);
      const status = await statusJson(home);
      expect(status.roots[0]).toMatchObject({ state: 'stopped', errors: [], counts: { failed: 0 } });
    } finally {
      await proxy.close();
      await server.close();
    }
  });
});

describe.concurrent('the synced folder made again', () => {
  /** A folder synced once, then deleted and made again with a new file in it. */
  async function remade(server: TestServer, name: string): Promise<{ account: TestAccount; home: string; dir: string }> {
    const { account, home } = await pollingHome(server, name);
    const dir = join(tempDir(), 'Drive');
    makeTree(dir, { 'a.txt': 'a', 'b.txt': 'b' });
    expect((await cli(['sync', dir, '--once'], { home })).code).toBe(0);
    return { account, home, dir };
  }
  const again = (dir: string) => {
    rmSync(dir, { recursive: true });
    mkdirSync(dir);
    writeFileSync(join(dir, 'new.txt'), 'made after');
  };
  const paragraph = /^drivesync: .*Drive is not the folder that was synced here \(it was deleted and made again, or replaced by another folder\): nothing is synced, and nothing is deleted on the drive\. To sync it as a new folder, run drivesync sync .*Drive --afresh: the files here are uploaded and what is on the drive is downloaded here .*, and nothing is deleted on either side\. Or put the original folder back at .*Drive and sync again\.$/;

  it('while it was stopped: sync DIR stops (exit 1) with one paragraph, never watching; status shows it once with the same choice', async () => {
    const server = await startTestServer();
    try {
      const { account, home, dir } = await remade(server, 'remade-stopped');
      again(dir);
      const running = spawnCli(['sync', dir], { home });
      const finished = await running.exited();
      expect(finished.code).toBe(1);
      expectOneLineError(finished, paragraph);
      expect(finished.stdout).not.toMatch(/watching/);
      expect(Object.keys(await remoteTree(server, account.token))).toEqual(['a.txt', 'b.txt']);
      const text = (await cli(['status'], { home })).stdout;
      const message = paragraph.exec(finished.stderr.trim())![0].replace(/^drivesync: /, '');
      expect(text).toContain(`state:     stopped: ${message}`);
      expect(text.split(message)).toHaveLength(2);
      expect(text).not.toMatch(/error:/);
      const json = (await statusJson(home)).roots[0] as unknown as { folderProblem: { kind: string; message: string }; errors: unknown[] };
      expect(json.folderProblem).toEqual({ kind: 'replaced', message });
      expect(json.errors).toEqual([]);
      // The first choice: synced afresh, the folder is merged with the drive.
      const merged = await cli(['sync', dir, '--once', '--afresh'], { home });
      expect(merged.code, merged.stderr).toBe(0);
      expect(await remoteTree(server, account.token)).toEqual({ 'a.txt': 'a', 'b.txt': 'b', 'new.txt': 'made after' });
      expect((await statusJson(home)).roots[0]).toMatchObject({ inSync: true, folderProblem: null });
    } finally {
      await server.close();
    }
  });

  it('while it runs: the running sync stops (exit 1) with the same paragraph instead of watching a folder it does not sync', async () => {
    const server = await startTestServer();
    try {
      const { account, home, dir } = await remade(server, 'remade-running');
      const running = spawnCli(['sync', dir], { home });
      await running.waitFor(/watching/);
      again(dir);
      const finished = await running.exited(30_000);
      expect(finished.code).toBe(1);
      expect(finished.stderr.trim().split('\n').at(-1)).toMatch(paragraph);
      expectNoStack(finished);
      expect(Object.keys(await remoteTree(server, account.token))).toEqual(['a.txt', 'b.txt']);
      expect((await statusJson(home)).roots[0]).toMatchObject({ state: 'stopped', folderProblem: { kind: 'replaced' } });
    } finally {
      await server.close();
    }
  });
});

describe.concurrent('status after a running sync', () => {
  it('says what the sync said of its last changes (in sync (3 changes)), not the empty passes that confirmed them', async () => {
    const server = await startTestServer();
    try {
      const { home } = await pollingHome(server, 'told-changes');
      const dir = join(tempDir(), 'Drive');
      makeTree(dir, { 'a.txt': 'a' });
      expect((await cli(['sync', dir, '--once'], { home })).code).toBe(0);
      const running = spawnCli(['sync', dir], { home });
      await running.waitFor(/watching/);
      makeTree(dir, { 'x1.txt': '1', 'x2.txt': '2', 'x3.txt': '3' });
      await running.waitFor(/^in sync \(3 changes\)$/m, 30_000);
      // The passes after it (the look at what was sent, the scan once the folder settled) change nothing.
      const passes = () => readFileSync(join(home, 'logs', 'drivesync.log'), 'utf8').split('\n').filter((l) => l.includes('"msg":"pass"'));
      await eventually(passes, (lines) => lines.findIndex((l) => l.includes('"done":3')) < lines.length - 1, { within: 30_000 });
      expect(running.stdout()).not.toMatch(/^in sync \(0 changes\)$/m);
      const text = (await cli(['status'], { home })).stdout;
      expect(text).toMatch(/last sync:\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d, in sync \(3 changes\)$/m);
      expect(text).not.toMatch(/0 changes|0 changed/);
      expect((await statusJson(home)).roots[0]).toMatchObject({ counts: { synced: 4, done: 3, failed: 0 }, result: 'in sync (3 changes)' });
      expectNoStack(await running.stop('SIGINT'));
    } finally {
      await server.close();
    }
  });
});
