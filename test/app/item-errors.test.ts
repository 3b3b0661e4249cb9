/**
 * An item that fails is shown as the item's problem: the folder keeps syncing (its engine stays idle), and the window
 * says it needs attention, how many items, and where to see which and why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../main/app/host/dispatch.js';
import { startTestServer, wholeDrive, type TestServer } from '../helpers/server.js';
import { inSync, newHost, untilStatus, write, type TestHost } from './helpers.js';

let server: TestServer;
const hosts: TestHost[] = [];
beforeAll(async () => {
  // Every upload fails with a server error; everything else (folders made, listings) goes through.
  server = await startTestServer({ faults: '500=1,match=POST:/api/v1/uploads' });
});
afterAll(async () => {
  for (const h of hosts) await h.host.dispose();
  await server.close();
});

describe('an item that fails', { timeout: 90_000 }, () => {
  it('needs attention in the window, with how many items and where to look; the folder itself goes on', async () => {
    const { token } = await server.register('item-errors@example.com', 'pass-word-1');
    const h = newHost('item-errors');
    hosts.push(h);
    await h.host.init();
    expect((await dispatch(h.host, 'auth:sign-in', { server: server.url, email: 'item-errors@example.com', password: 'pass-word-1' })).ok).toBe(true);
    await untilStatus(h.host, inSync);

    write(h.folder, 'refused.txt', 'the server fails its upload');
    const status = await untilStatus(h.host, (s) => s.folders[0]?.state === 'error' && s.folders[0].inSync === false);
    expect(status.folders[0]).toMatchObject({ state: 'error', detail: '1 item not synced; see Conflicts and errors.', inSync: false });
    expect(status.state).toBe('error');
    const errors = (await dispatch(h.host, 'errors:list', undefined)) as { ok: true; value: Array<{ path: string }> };
    expect(errors.value.map((e) => e.path)).toContain('refused.txt');

    // Not a folder problem: a folder made here still reaches the drive while the file keeps failing.
    write(h.folder, 'later/inside.txt', 'also refused');
    const names = async () => (await wholeDrive(server, token)).map((e: { name: string }) => e.name);
    for (let i = 0; i < 100 && !(await names()).includes('later'); i++) await new Promise((r) => setTimeout(r, 200));
    expect(await names()).toContain('later');
  });
});
