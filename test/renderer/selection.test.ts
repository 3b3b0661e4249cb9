/**
 * "Choose folders…" in the window, in Chromium against the real host, engines and reference server, with the
 * keyboard only: Settings → Choose folders of a folder, a folder opened and one unticked in the tree (its parent then
 * mixed), the summary of what leaves this computer, Apply, and the config on disk and the folder following it; the
 * offer of the same dialog where a folder says its downloads do not fit on the disk; and the mass-delete question
 * saying what a drive trash would take along from folders left out (the question as the host sends it). Screenshots at 800×600 and 1280×800, axe scans.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DriveClient } from '../../main/api/client.js';
import type { DeletionQuestion } from '../../main/contract/index.js';
import { startTestServer, uploadForm, type TestServer } from '../helpers/server.js';
import { inSync, newHost, untilStatus, write, type TestHost } from '../app/helpers.js';
import { openWindow, type TestWindow } from './setup.js';

const EMAIL = 'selma@example.com';
const PASSWORD = 'pass-word-1';

let server: TestServer;
let token: string;
let h: TestHost;
let w: TestWindow;
let page: Page;
let keys: TestWindow['keys'];

beforeAll(async () => {
  server = await startTestServer();
  ({ token } = await server.register(EMAIL, PASSWORD));
  h = newHost('chooser');
  write(h.folder, 'notes.txt', 'top level');
  write(h.folder, 'docs/a.txt', 'hello');
  write(h.folder, 'photos/cover.jpg', 'c'.repeat(10));
  write(h.folder, 'photos/2019/one.jpg', 'x'.repeat(100));
  write(h.folder, 'photos/2019/two.jpg', 'y'.repeat(50));
  write(h.folder, 'photos/2020/three.jpg', 'z'.repeat(30));
  await h.host.init();
  await h.host.handle('auth:sign-in', { server: server.url, email: EMAIL, password: PASSWORD });
  await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.synced >= 10);
  w = await openWindow(h.host);
  ({ page, keys } = w);
}, 60_000);

afterAll(async () => {
  await w?.close();
  await h?.host.dispose();
  await server?.close();
});

const tab = (name: string) => page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name });
async function openView(label: string) {
  await keys.press(new RegExp(`^${label}`));
  await expect.poll(() => tab(label).getAttribute('aria-current')).toBe('page');
}
const dialog = () => page.getByRole('dialog', { name: 'Choose folders of “Drive”' });
/** A folder of the tree, by its name (its accessible name is its name and size). */
const folder = (name: string) => dialog().getByRole('treeitem', { name: new RegExp(`^${name} [\\d.]+ [KMGT]?B · `) });
const excludedInConfig = () => JSON.parse(readFileSync(h.paths.configFile, 'utf8')).selective?.[h.folder]?.excluded as number[] | undefined;
const idOf = async (path: string) => (await h.host.handle('selection:tree', { root: h.folder })).folders.find((f) => f.path === path)!.id;
/** The folder of the tree that has the focus, by its name. */
const focusedFolder = async () => (await keys.focusedName()).replace(/ [\d.]+ [KMGT]?B · \d+ files?$/, '');
/** Presses a key while the focus is on the tree, and waits until the focus is on the folder named. */
async function treeKey(key: string, then: string) {
  await page.keyboard.press(key);
  await expect.poll(focusedFolder).toBe(then);
}

describe('choosing folders in the window', { timeout: 90_000 }, () => {
  it('unticks a folder in Settings with the keyboard only, shows what leaves this computer, and applies it', async () => {
    await openView('Settings');
    await keys.press('Choose folders of Drive');
    await dialog().waitFor();
    // The tree has the focus once the drive's folders are there, on its first folder.
    await expect.poll(focusedFolder, { timeout: 20_000 }).toBe('docs');
    expect(await page.evaluate("!!document.activeElement?.closest('dialog[open]')")).toBe(true);
    expect(await folder('docs').getAttribute('aria-checked')).toBe('true');
    // Subfolders are rendered when their folder is opened.
    expect(await folder('photos').getAttribute('aria-expanded')).toBe('false');
    expect(await dialog().getByRole('treeitem').count()).toBe(2);
    expect(await dialog().getByTestId('choose-summary').textContent()).toContain('Nothing changes yet');
    expect(await dialog().getByRole('button', { name: 'Apply' }).isDisabled()).toBe(true);
    await w.look('choose-folders', { dialog: true });

    await treeKey('ArrowDown', 'photos');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => folder('photos').getAttribute('aria-expanded')).toBe('true');
    expect(await dialog().getByRole('treeitem').count()).toBe(4);
    expect(await folder('2019').textContent()).toContain('150 B · 2 files');
    await treeKey('ArrowDown', '2019');
    await page.keyboard.press(' ');
    await expect.poll(() => folder('2019').getAttribute('aria-checked')).toBe('false');
    expect(await folder('photos').getAttribute('aria-checked')).toBe('mixed');
    expect(await folder('2020').getAttribute('aria-checked')).toBe('true');
    // Before anything is applied: what leaves this computer, and how much.
    const removed = dialog().getByTestId('choose-remove');
    await expect.poll(() => removed.textContent()).toContain('Removed from this computer: 1 folder, 150 B (2 files).');
    expect(await removed.getByRole('listitem').allTextContents()).toEqual(['photos/2019 150 B · 2 files']);
    expect(await dialog().getByTestId('choose-download').count()).toBe(0);
    expect(excludedInConfig()).toBeUndefined();
    await w.look('choose-folders-summary', { dialog: true });

    // Left goes up to photos, Enter closes it.
    await treeKey('ArrowLeft', 'photos');
    await page.keyboard.press('Enter');
    await expect.poll(() => folder('photos').getAttribute('aria-expanded')).toBe('false');
    await keys.press('Apply');
    await expect
      .poll(() => dialog().getByTestId('choose-message').textContent(), { timeout: 20_000 })
      .toBe('Saved. photos/2019 (150 B) leaves this computer once everything in it is on the drive, which keeps it.');
    expect(await keys.focusedName()).toBe('Done');
    // Written to the config the engines and the command line read; the folder's engine follows it.
    expect(excludedInConfig()).toEqual([await idOf('photos/2019')]);
    await expect.poll(() => existsSync(join(h.folder, 'photos', '2019')), { timeout: 30_000 }).toBe(false);
    expect(existsSync(join(h.folder, 'photos', '2020', 'three.jpg'))).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('dialog[open]').count()).toBe(0);
    await expect.poll(() => keys.focusedName()).toBe('Choose folders of Drive');

    // Activity says what left, in words.
    await openView('Activity');
    await expect
      .poll(() => page.getByTestId('activity-list').textContent(), { timeout: 20_000 })
      .toContain('Excluded: removed from this computer (still on the drive) photos/2019');
  });

  it('offers Choose folders where the folder says its downloads do not fit on the disk', async () => {
    const client = new DriveClient({ origin: server.url, token });
    // The drive gets a file larger than any disk while the folder is paused, so it is first seen at that size.
    await h.host.handle('sync:pause', undefined);
    const videos = await client.entries.createFolder('videos', null);
    expect((await server.call(token, 'POST', '/api/v1/uploads', uploadForm('huge.mkv', 'small in truth', { parentId: videos.id }))).status).toBe(201);
    server.context.db.prepare('UPDATE entries SET file_size = ? WHERE name = ?').run(2 ** 50, 'huge.mkv');
    await h.host.handle('sync:resume', undefined);

    await openView('Status');
    const line = page.getByTestId('status-line');
    await expect.poll(() => line.getAttribute('data-state'), { timeout: 30_000 }).toBe('error');
    expect(await line.textContent()).toContain('Not enough free space: 1024 TB to download');
    const offer = page.getByTestId('needs-space');
    await offer.waitFor();
    expect(await offer.textContent()).toContain('does not fit on this disk');
    await w.look('status-needs-space');

    await keys.press('Choose folders of Drive');
    await dialog().waitFor();
    await expect.poll(focusedFolder, { timeout: 20_000 }).toBe('docs');
    await treeKey('End', 'videos');
    expect(await folder('videos').textContent()).toContain('1024 TB · 1 file');
    await page.keyboard.press(' ');
    await expect.poll(() => dialog().getByTestId('choose-remove').textContent()).toContain('Removed from this computer: 1 folder, 1024 TB (1 file).');
    await keys.press('Apply');
    await expect.poll(() => dialog().getByTestId('choose-message').textContent(), { timeout: 20_000 }).toMatch(/^Saved\. videos \(1024 TB\) leaves this computer/);
    expect(excludedInConfig()).toEqual([await idOf('photos/2019'), videos.id].sort((a, b) => a - b));
    await page.keyboard.press('Escape');
    await expect.poll(() => line.getAttribute('data-state'), { timeout: 30_000 }).toBe('idle');
    expect(await page.getByTestId('needs-space').count()).toBe(0);
  });

  it('says in the mass-delete question what a drive trash would take along from folders left out', async () => {
    await openView('Status');
    // The question as the host sends it when the engine finds a deletion here would trash, on the drive, a folder
    // holding content this computer leaves out (what the engine decides is its tests'; what the window says is this).
    const question: DeletionQuestion = {
      root: h.folder,
      count: 5,
      synced: 7,
      bytes: 40,
      groups: [{ where: 'drive', why: 'deleted in this folder', count: 5, bytes: 40, items: [{ path: 'photos', type: 'folder', size: 0 }] }],
      excluded: { items: 3, bytes: 150 },
    };
    const prompt = page.getByRole('alertdialog', { name: 'Delete 5 items?' });
    // Sent again on each look: the running engine's own state events may come in between.
    await expect
      .poll(async () => {
        await w.emit('state', { ...(await h.host.handle('status:get', undefined)), pendingDeletions: [question] });
        return prompt.count();
      })
      .toBe(1);
    expect((await prompt.getByTestId('deletions-excluded').textContent())?.replace(/\s+/g, ' ')).toBe(
      'Also gone from the drive: 3 items (150 B) inside folders this computer leaves out. They are not here, so they are not listed above; they go to the drive’s trash with the folders that hold them.',
    );
    expect(await prompt.getByRole('button').allTextContents()).toEqual(['Keep them', 'Decide later', 'Delete 5 items']);
    await w.look('mass-delete-excluded', { dialog: true });
    // Without content of excluded folders in it, the question does not mention them.
    await w.emit('state', { ...(await h.host.handle('status:get', undefined)), pendingDeletions: [{ ...question, excluded: undefined }] });
    await expect.poll(() => prompt.getByTestId('deletions-excluded').count()).toBe(0);
    await w.emit('state', await h.host.handle('status:get', undefined));
    await expect.poll(() => prompt.count()).toBe(0);
    expect(w.pageErrors).toEqual([]);
    expect(await page.evaluate(() => (globalThis as unknown as { __cspViolations: string[] }).__cspViolations)).toEqual([]);
  });
});
