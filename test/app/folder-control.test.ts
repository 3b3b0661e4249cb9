/**
 * `drivesync pause`, `resume` and `remove` (the real command, on the host's state folder) reach the window's engines:
 * the folder pauses and goes on, and a removed folder's engine stops and forgets it, its files kept.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../main/app/host/dispatch.js';
import { loadConfig } from '../../main/state/config.js';
import { rootOfAccount } from '../../main/state/roots.js';
import { startTestServer, wholeDrive, type TestServer } from '../helpers/server.js';
import { cli, spawnCli } from '../cli/helpers.js';
import { inSync, newHost, untilStatus, write, type TestHost } from './helpers.js';

let server: TestServer;
const hosts: TestHost[] = [];
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  for (const h of hosts) await h.host.dispose();
  await server.close();
});

async function signedInHost(email: string): Promise<TestHost & { token: string }> {
  const { token } = await server.register(email, 'pass-word-1');
  const h = newHost(email.split('@')[0]);
  hosts.push(h);
  write(h.folder, 'first.txt', 'first');
  await h.host.init();
  expect((await dispatch(h.host, 'auth:sign-in', { server: server.url, email, password: 'pass-word-1' })).ok).toBe(true);
  await untilStatus(h.host, inSync);
  return { ...h, token };
}

const names = async (token: string) => (await wholeDrive(server, token)).map((e: { name: string }) => e.name).sort();

describe('the command line pauses, resumes and removes the window’s folders', { timeout: 90_000 }, () => {
  it('pause and resume', async () => {
    const h = await signedInHost('pause-window@example.com');
    const home = join(h.home, 'state');
    const root = h.host.status().folders[0]!.root;

    const paused = await cli(['pause', root], { home });
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stdout).toMatch(new RegExp(`^paused .* until you resume it; the sync in process ${process.pid} pauses now$`, 'm'));
    await untilStatus(h.host, (s) => s.folders[0]?.state === 'paused');
    write(h.folder, 'while-paused.txt', 'waits');
    await new Promise((r) => setTimeout(r, 2500));
    expect(await names(h.token)).toEqual(['first.txt']);

    const resumed = await cli(['resume'], { home });
    expect(resumed.stdout).toMatch(/^resumed .*; the sync in process \d+ goes on now$/m);
    await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.synced === 2);
    expect(await names(h.token)).toEqual(['first.txt', 'while-paused.txt']);
  });

  it('remove stops the engine and forgets the folder; its files stay', async () => {
    const h = await signedInHost('remove-window@example.com');
    const home = join(h.home, 'state');
    const root = h.host.status().folders[0]!.root;
    const account = h.host.status().account!;
    const mirror = rootOfAccount(h.paths, root, account.server, account.email).mirror;
    expect(existsSync(mirror)).toBe(true);

    const removed = await cli(['remove', root], { home });
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toMatch(/^stopped syncing .* \(the sync in process \d+ stopped\); its files stay, here and on the drive$/m);
    await untilStatus(h.host, (s) => s.folders.length === 0);
    expect(loadConfig(h.paths).roots).toEqual([]);
    expect(existsSync(mirror)).toBe(false);
    expect(existsSync(join(root, '.drivesync'))).toBe(false);
    expect(existsSync(join(root, 'first.txt'))).toBe(true);
    expect(await names(h.token)).toEqual(['first.txt']);
  });

  it('the app started while the service runs starts no engine of its own: it shows the service’s folder, pauses it through the config, and takes it over when the service ends', async () => {
    const h = await signedInHost('service-window@example.com');
    const home = join(h.home, 'state');
    const root = h.host.status().folders[0]!.root;
    await h.host.handle('auth:sign-out', undefined);
    const service = spawnCli(['run'], { home, env: { DRIVESYNC_TOKEN: h.token, DRIVESYNC_SERVER: server.url } });
    await service.waitFor(/^drivesync run: syncing 1 folder/m);
    await service.waitFor(/syncing .*/m);
    expect((await dispatch(h.host, 'auth:sign-in', { server: server.url, email: 'service-window@example.com', password: 'pass-word-1' })).ok).toBe(true);
    // Shown from the service's status file, as the service's state moves on.
    const shown = await untilStatus(h.host, (s) => s.folders[0]?.state === 'idle' && s.folders[0]?.detail?.startsWith(`Synced by the drivesync service (process ${service.child.pid})`) === true, 30_000);
    expect(shown.folders[0]).toMatchObject({ root, inSync: true });
    // What changes in the folder is the service's to send.
    write(h.folder, 'by-the-service.txt', 'sent by the service');
    await untilStatus(h.host, () => service.stdout().includes('uploaded by-the-service.txt'), 30_000);
    // The window's pause reaches the service through the config.
    await h.host.handle('sync:pause', undefined);
    await service.waitFor(/^Drive: paused$/m);
    await h.host.handle('sync:resume', undefined);
    await service.waitFor(/^Drive: resumed$/m);
    // The service ends: the window opens the folder itself.
    service.child.kill('SIGTERM');
    await service.exited();
    await untilStatus(h.host, (s) => inSync(s) && !s.folders[0]!.detail?.startsWith('Synced by'), 30_000);
    const account = h.host.status().account!;
    const { key } = rootOfAccount(h.paths, root, account.server, account.email);
    expect(JSON.parse(readFileSync(join(h.paths.statusDir, `${key}.json`), 'utf8')).pid).toBe(process.pid);
    expect(await names(h.token)).toEqual(['by-the-service.txt', 'first.txt']);
  });
});
