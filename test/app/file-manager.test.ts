/**
 * The desktop host serves the file manager's socket (docs/file-manager.md) for the folders its engines sync:
 * STATUS from the engine, and "Share…" or "Version history…" from the menu open the window on the item (the `open`
 * event the main process shows the window for, and the Files view opens its dialog on).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../main/app/host/dispatch.js';
import { useTestServer } from '../helpers/server.js';
import { LineSocket } from '../helpers/line-socket.js';
import { inSync, newHost, nextEvent, untilStatus, write, type TestHost } from './helpers.js';

const server = useTestServer();
const hosts: TestHost[] = [];
afterAll(async () => {
  for (const h of hosts) await h.host.dispose();
});

describe('the host and the file manager', { timeout: 90_000 }, () => {
  it('serves the socket for its folders, opens the window on Share… and Version history…, and removes it when it stops', async () => {
    await server.register('fm-host@example.com', 'pass-word-1');
    const h = newHost('fm-host');
    hosts.push(h);
    write(h.folder, 'docs/plan.txt', 'plan');
    await h.host.init();
    expect((await dispatch(h.host, 'auth:sign-in', { server: server.url, email: 'fm-host@example.com', password: 'pass-word-1' })).ok).toBe(true);
    await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.synced >= 2);
    const path = h.host.socketPath!;
    expect(path).toBe(join(h.home, 'runtime', `${process.pid}.sock`));
    const socket = await LineSocket.open(path);
    const plan = join(h.folder, 'docs', 'plan.txt');
    expect(await socket.ask(`STATUS\t${plan}`)).toEqual([`STATUS\tsynced\t${plan}`]);
    expect(await socket.ask(`STATUS\t${join(h.folder, 'docs')}`)).toEqual([`STATUS\tsynced\t${join(h.folder, 'docs')}`]);

    const shared = nextEvent(h.host, 'open');
    expect(await socket.ask(`RUN\tshare\t${plan}`)).toEqual([`OK\tthe share dialog is open\t${plan}`]);
    expect(await shared).toMatchObject({ view: 'share', entry: { root: h.folder, path: 'docs/plan.txt', name: 'plan.txt', type: 'file', size: 4 } });
    const history = nextEvent(h.host, 'open');
    expect(await socket.ask(`RUN\tversions\t${plan}`)).toEqual([`OK\tthe version history is open\t${plan}`]);
    expect((await history).view).toBe('versions');
    const [link] = await socket.ask(`RUN\tcopy-link\t${plan}`);
    expect(await (await fetch(link!.split('\t')[1]!)).text()).toBe('plan');
    socket.close();

    await h.host.dispose();
    expect(existsSync(path)).toBe(false);
  });
});
