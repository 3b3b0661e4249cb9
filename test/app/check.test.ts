/**
 * "Check files…" in the host, against the real reference server and engines: a synced folder checked clean; a
 * difference planted behind the client's back (a file's stored bytes rewritten in the server's store, the same size,
 * as test/cli/check.test.ts does) found, and repaired by keeping both versions; a file gone here while syncing is
 * paused, repaired on resume; a check under the bandwidth limit stopped midway and gone on with; one check per folder
 * at a time; bad arguments and a repair with nothing to repair refused in one line.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckProgress } from '../../main/contract/index.js';
import { dispatch } from '../../main/app/host/dispatch.js';
import { plant } from '../helpers/plant.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
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

async function signedInHost(email: string, files: Record<string, string>): Promise<TestHost> {
  await server.register(email, 'pass-word-1');
  const h = newHost(email.split('@')[0]);
  hosts.push(h);
  for (const [path, content] of Object.entries(files)) write(h.folder, path, content);
  await h.host.init();
  expect((await dispatch(h.host, 'auth:sign-in', { server: server.url, email, password: 'pass-word-1' })).ok).toBe(true);
  await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.synced >= Object.keys(files).length, 90_000);
  return h;
}

/** The folder's check-progress events while `work` runs. */
async function progressOf<T>(h: TestHost, work: () => Promise<T>): Promise<{ result: T; events: CheckProgress[] }> {
  const events: CheckProgress[] = [];
  const listener = (p: CheckProgress) => events.push(p);
  h.host.on('check-progress', listener);
  try {
    return { result: await work(), events };
  } finally {
    h.host.off('check-progress', listener);
  }
}

describe('checking a synced folder in the host', { timeout: 120_000 }, () => {
  it('finds a planted difference and keeps both versions of it', async () => {
    const h = await signedInHost('cora@example.com', { 'notes.txt': 'the notes, as written', 'Docs/plan.txt': 'plan one', 'keep.txt': 'kept as is' });
    const { result: clean, events } = await progressOf(h, () => h.host.handle('folders:check', { root: h.folder }));
    expect(clean).toMatchObject({ root: h.folder, complete: true, checked: 3, total: 3, resumedAt: null, sample: null, differences: [] });
    expect(clean.bytes).toBe('the notes, as written'.length + 'plan one'.length + 'kept as is'.length);
    expect(events.at(-1)).toEqual({ root: h.folder, checked: 3, total: 3, bytes: clean.bytes });
    expect(await dispatch(h.host, 'folders:check-repair', { root: h.folder })).toEqual({
      ok: false,
      error: { kind: 'not-found', message: 'No check of Drive has found a difference to repair: check its files first.' },
    });

    plant(server, 'notes.txt', 'THE NOTES, AS WRITTEN');
    const found = await h.host.handle('folders:check', { root: h.folder });
    expect(found).toMatchObject({ complete: true, checked: 3, total: 3 });
    expect(found.differences).toEqual([{ kind: 'different', path: 'notes.txt', detail: "the bytes here are not the drive's" }]);
    expect(await h.host.handle('folders:check-state', { root: h.folder })).toEqual({ root: h.folder, running: false, unfinished: null, last: found });

    expect(await h.host.handle('folders:check-repair', { root: h.folder })).toEqual({ root: h.folder, keptBoth: 1, copiedBack: 0, inSync: true });
    // Both versions are here: the drive's under the name, this computer's as its conflicted copy.
    expect(readFileSync(join(h.folder, 'notes.txt'), 'utf8')).toBe('THE NOTES, AS WRITTEN');
    const copies = readdirSync(h.folder).filter((name) => name.startsWith('notes (conflicted copy '));
    expect(copies).toHaveLength(1);
    expect(readFileSync(join(h.folder, copies[0]!), 'utf8')).toBe('the notes, as written');
    // The copy went up as well: checked again, the folder is the same here and on the drive.
    await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.synced >= 5);
    expect(await h.host.handle('folders:check', { root: h.folder })).toMatchObject({ complete: true, checked: 4, total: 4, differences: [] });
    // What was repaired is not repaired twice.
    expect((await dispatch(h.host, 'folders:check-repair', { root: h.folder })).ok).toBe(false);
  });

  it('repairs a file gone here while syncing is paused once syncing resumes', async () => {
    const h = await signedInHost('dora@example.com', { 'a.txt': 'first', 'Docs/gone.txt': 'soon gone here' });
    await h.host.handle('sync:pause', undefined);
    rmSync(join(h.folder, 'Docs', 'gone.txt'));
    const found = await h.host.handle('folders:check', { root: h.folder });
    expect(found.differences).toEqual([{ kind: 'only-on-drive', path: 'Docs/gone.txt', detail: 'gone from this computer since it was last synced' }]);
    // Paused: settled in the folder's sync database now, made when syncing resumes.
    expect(await h.host.handle('folders:check-repair', { root: h.folder })).toEqual({ root: h.folder, keptBoth: 0, copiedBack: 1, inSync: null });
    await untilStatus(h.host, (s) => s.state === 'paused' && s.folders[0]!.state === 'paused');
    await h.host.handle('sync:resume', undefined);
    await untilStatus(h.host, inSync);
    // Brought back from the drive rather than deleted there.
    expect(readFileSync(join(h.folder, 'Docs', 'gone.txt'), 'utf8')).toBe('soon gone here');
  });

  it('goes on where a stopped check stopped; checks one at a time; refuses bad arguments in one line', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 260; i++) files[`f${String(i).padStart(3, '0')}.txt`] = `${i} `.padEnd(300, '.');
    const h = await signedInHost('eva@example.com', files);
    // Under the settings' bandwidth limit the check downloads 300 bytes a file at 8 KB/s: its first 200 files take seconds.
    await h.host.handle('settings:set', { bandwidthDownKBps: 8 });
    const began = Date.now();
    let pastFirstPage = 0;
    const listener = (p: CheckProgress) => {
      if (p.checked > 200 && pastFirstPage === 0) {
        pastFirstPage = Date.now();
        void h.host.handle('folders:check-stop', { root: h.folder });
      }
    };
    h.host.on('check-progress', listener);
    const running = h.host.handle('folders:check', { root: h.folder });
    await expect.poll(async () => (await h.host.handle('folders:check-state', { root: h.folder })).running).toBe(true);
    expect(await dispatch(h.host, 'folders:check', { root: h.folder })).toEqual({ ok: false, error: { kind: 'conflict', message: 'A check of Drive is under way already.' } });
    expect(await dispatch(h.host, 'folders:check-repair', { root: h.folder })).toMatchObject({ ok: false, error: { kind: 'conflict' } });
    const stopped = await running;
    h.host.off('check-progress', listener);
    expect(stopped).toMatchObject({ complete: false, checked: 200, total: 260, resumedAt: null });
    // 200 × 300 bytes at 8 KB/s (a second's worth at once): about 6 s, where without the limit it takes a fraction of one.
    expect(pastFirstPage - began).toBeGreaterThan(4_000);
    expect(await h.host.handle('folders:check-state', { root: h.folder })).toMatchObject({ running: false, unfinished: { checked: 200, total: 260 } });

    await h.host.handle('settings:set', { bandwidthDownKBps: 0 });
    const again = await h.host.handle('folders:check', { root: h.folder });
    expect(again).toMatchObject({ complete: true, checked: 260, total: 260, resumedAt: 200, startedAt: stopped.startedAt, differences: [] });
    expect(await h.host.handle('folders:check-state', { root: h.folder })).toMatchObject({ unfinished: null });
    expect(await h.host.handle('folders:check', { root: h.folder, sample: 5 })).toMatchObject({ complete: true, checked: 5, total: 5, sample: 5, resumedAt: null });

    const refused = [
      await dispatch(h.host, 'folders:check', { root: h.folder, sample: 0 }),
      await dispatch(h.host, 'folders:check', { root: h.folder, sample: 'many' }),
      await dispatch(h.host, 'folders:check', { root: h.folder, fromStart: true, how: 'all' }),
      await dispatch(h.host, 'folders:check-stop', { root: '' }),
      await dispatch(h.host, 'folders:check-repair', {}),
    ];
    for (const answer of refused) {
      expect(answer.ok).toBe(false);
      if (!answer.ok) {
        expect(answer.error.kind).toBe('invalid-argument');
        expect(answer.error.message).not.toContain('\n');
      }
    }
    expect(await dispatch(h.host, 'folders:check', { root: join(h.home, 'elsewhere') })).toEqual({
      ok: false,
      error: { kind: 'not-synced', message: `${join(h.home, 'elsewhere')} is not a synced folder.` },
    });
  });
});
