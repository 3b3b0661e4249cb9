/**
 * The host as the app runs it: in a process of its own (here a Node child with an IPC channel, as Electron's
 * utility process would be), answering calls through HostProxy, sending events, asking the main process for what
 * only the desktop can do (the clipboard), and ending cleanly when told to.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusSnapshot } from '../../main/contract/index.js';
import { HostProxy, type Port } from '../../main/app/host/rpc.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fakePlatform, nextEvent, type FakePlatform } from './helpers.js';
import { REPO } from './fake-electron.js';
import { tempDir } from '../helpers/temp.js';

let server: TestServer;
let child: ChildProcess;
let proxy: HostProxy;
let platform: FakePlatform;
const home = tempDir('hostproc');
const folder = join(home, 'Drive');

beforeAll(async () => {
  server = await startTestServer();
  await server.register('uma@example.com', 'pass-word-1');
  mkdirSync(folder);
  writeFileSync(join(folder, 'hello.txt'), 'hello');
  child = fork(join(REPO, 'main', 'app', 'host-process.ts'), [], {
    execArgv: ['--import', 'tsx'],
    cwd: REPO,
    env: { ...process.env, DRIVESYNC_HOME: join(home, 'state'), DRIVESYNC_DEFAULT_FOLDER: folder, DRIVESYNC_TOKEN: '', DRIVESYNC_SERVER: '' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port: Port = {
    postMessage: (m) => void child.send(m as never),
    onMessage: (l) => {
      child.on('message', l);
      return () => child.off('message', l);
    },
  };
  platform = fakePlatform();
  proxy = new HostProxy(port, platform);
  await proxy.ready;
}, 30_000);
afterAll(async () => {
  if (child.exitCode === null) child.kill();
  await server.close();
});

describe('the host in its own process', { timeout: 90_000 }, () => {
  it('answers calls and failures as Results', async () => {
    expect(await proxy.call('status:get', null)).toMatchObject({ ok: true, value: { state: 'signed-out' } });
    expect(await proxy.call('no:such', null)).toMatchObject({ ok: false, error: { kind: 'invalid-argument' } });
    await expect(proxy.handle('sync:now', undefined)).rejects.toMatchObject({ kind: 'not-signed-in' });
  });

  it('signs in, syncs, sends events, and asks the main process to copy a link', async () => {
    const synced = nextEvent(proxy, 'state', (s) => s.state === 'idle' && s.folders[0]?.inSync === true);
    const account = await proxy.handle('auth:sign-in', { server: server.url, email: 'uma@example.com', password: 'pass-word-1' });
    expect(account).toEqual({ server: server.url, email: 'uma@example.com' });
    const status = await synced;
    expect(status.folders.map((f) => f.root)).toEqual([folder]);
    const url = await proxy.handle('link:copy', { root: folder, path: 'hello.txt' });
    expect(url).toMatch(new RegExp(`^${server.url}/drive/s/`));
    expect(platform.copied).toEqual([url]);
    const fetched = await fetch(url);
    expect(fetched.status).toBe(200);
  });

  it('stops its engines and ends when the main process says so', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    proxy.shutdown();
    expect(await exited).toBe(0);
  });
});
