/**
 * Offline said plainly in the window, in Chromium against the real host and a real engine made offline by stopping
 * the reference server: the status line says since when and why, then how many changes made here wait to go up; the
 * folder's row in Settings says since when too; once the server answers again, the window says so once — for how
 * long it was away and what it syncs — on Status (until dismissed) and in Activity. Screenshots and axe scans.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { inSync, newHost, untilStatus, write, type TestHost } from '../app/helpers.js';
import { openWindow, type TestWindow } from './setup.js';
import { tempDir } from '../helpers/temp.js';

const EMAIL = 'otto@example.com';
const PASSWORD = 'pass-word-1';

let server: TestServer;
let dataDir: string;
let h: TestHost;
let w: TestWindow;
let page: Page;
let keys: TestWindow['keys'];

beforeAll(async () => {
  dataDir = tempDir('offline-window');
  server = await startTestServer({ dataDir });
  await server.register(EMAIL, PASSWORD);
  h = newHost('offline-window');
  write(h.folder, 'notes.txt', 'a few words');
  await h.host.init();
  await h.host.handle('auth:sign-in', { server: server.url, email: EMAIL, password: PASSWORD });
  await untilStatus(h.host, inSync);
  w = await openWindow(h.host);
  ({ page, keys } = w);
}, 60_000);

afterAll(async () => {
  await w?.close();
  await h?.host.dispose();
  await server?.close();
});

async function openView(label: string) {
  await keys.press(new RegExp(`^${label}`));
  await expect.poll(() => page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: label }).getAttribute('aria-current')).toBe('page');
}
const line = () => page.getByTestId('status-line');
const detail = () => line().locator('.detail').textContent().catch(() => '');

describe('offline in the window', { timeout: 120_000 }, () => {
  it('says since when and what waits to go up, then back online once', async () => {
    await line().waitFor();
    const port = Number(new URL(server.url).port);
    const why = `Cannot reach the drive server at 127.0.0.1:${port} — is it running? drivesync tries again on its own.`;
    await server.close();
    await keys.press('Sync now');
    await expect.poll(() => line().getAttribute('data-state'), { timeout: 30_000 }).toBe('offline');
    expect(await line().locator('strong').textContent()).toBe('Offline');
    expect(await line().getByTestId('offline-since').textContent()).toMatch(/^ since \d{1,2}:\d{2}/);
    expect(await detail()).toBe(why);

    // Made here while offline: the window says how many wait to go up.
    write(h.folder, 'a.txt', 'one');
    write(h.folder, 'b.txt', 'two');
    write(h.folder, 'c.txt', 'three');
    await expect.poll(detail, { timeout: 30_000 }).toBe(`${why} 3 changes made here wait to go up.`);
    expect(await line().getAttribute('data-state')).toBe('offline');
    const since = await line().getByTestId('offline-since').textContent();
    await w.look('offline-waiting');

    await openView('Settings');
    const row = page.getByTestId('settings-folders').locator('.folder-row').first();
    await expect.poll(() => row.locator('.folder-facts').textContent()).toContain(`Offline${since} · `);
    await openView('Status');

    // The server answers again: said once, with how long it was away and what goes up now.
    server = await startTestServer({ dataDir, port });
    await keys.press('Sync now');
    const note = page.getByTestId('back-online');
    await expect.poll(() => note.textContent().catch(() => ''), { timeout: 40_000 }).toMatch(/^Back online after \d+ (s|min): syncing 3 changes made here meanwhile\. Dismiss$/);
    await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.synced >= 4);
    await expect.poll(() => line().getAttribute('data-state'), { timeout: 30_000 }).toBe('idle');
    expect(await line().getByTestId('offline-since').count()).toBe(0);
    await w.look('back-online');

    await openView('Activity');
    await expect.poll(() => page.getByTestId('activity-list').textContent()).toMatch(/Back online after \d+ (s|min): syncing 3 changes made here meanwhile\./);
    await openView('Status');
    expect(await note.count()).toBe(1);
    await keys.press('Dismiss the back online note');
    await expect.poll(() => note.count()).toBe(0);
    expect(w.pageErrors).toEqual([]);
  });
});
