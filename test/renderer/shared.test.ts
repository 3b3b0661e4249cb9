/**
 * Who has access, and what others share, in the window: Chromium against the real host, engines and reference server
 * (as deployed versions answer: an entry's people name its owner), two accounts, one sharing with the other by the
 * real API. With the keyboard only: the share dialog of the account's own file opens on who has access (the person,
 * the link and its settings, the mailing lists as far as this computer knows); Files marks what arrived in the shared
 * folder with who shared it and "view only"; its dialog says who shared it and that only the owner can share it; and
 * Settings renames the shared folder. Screenshots at 800×600 and 1280×800, axe scans.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DriveClient } from '../../main/api/client.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { inSync, newHost, untilStatus, write, type TestHost } from '../app/helpers.js';
import { openWindow, type TestWindow } from './setup.js';

const WANDA = 'wanda@example.com';
const OSCAR = 'oscar@example.com';
const PASSWORD = 'pass-word-1';

let server: TestServer;
let wanda: TestHost;
let oscar: TestHost;
let w: TestWindow;
let page: Page;
let keys: TestWindow['keys'];

async function clientOf(email: string): Promise<DriveClient> {
  const login = await server.call(null, 'POST', '/api/v1/auth/login', { email, password: PASSWORD, token_name: 'elsewhere' });
  return new DriveClient({ origin: server.url, token: (login.body.user ?? login.body.bootstrapData.user).access_token });
}

async function idOf(client: DriveClient, name: string): Promise<number> {
  for await (const entry of client.entries.list({ query: name })) if (entry.name === name) return entry.id;
  throw new Error(`no ${name}`);
}

beforeAll(async () => {
  server = await startTestServer({ profile: 'deployed' });
  await server.register(WANDA, PASSWORD);
  await server.register(OSCAR, PASSWORD);
  oscar = newHost('oscar');
  write(oscar.folder, 'Pictures/beach.jpg', 'sand and sea');
  await oscar.host.init();
  await oscar.host.handle('auth:sign-in', { server: server.url, email: OSCAR, password: PASSWORD });
  await untilStatus(oscar.host, inSync);
  const theirs = await clientOf(OSCAR);
  await theirs.sharing.share(await idOf(theirs, 'Pictures'), [WANDA], ['view', 'download']);

  wanda = newHost('wanda');
  write(wanda.folder, 'report.txt', 'quarterly numbers');
  await wanda.host.init();
  await wanda.host.handle('auth:sign-in', { server: server.url, email: WANDA, password: PASSWORD });
  await untilStatus(wanda.host, (s) => inSync(s) && s.folders[0]!.synced >= 4);
  const mine = await clientOf(WANDA);
  await mine.sharing.share(await idOf(mine, 'report.txt'), [OSCAR], ['view', 'edit']);
  await wanda.host.handle('link:create', { root: wanda.folder, path: 'report.txt', password: 'open-sesame', allowDownload: true, allowEdit: false });
  w = await openWindow(wanda.host);
  ({ page, keys } = w);
}, 90_000);

afterAll(async () => {
  await w?.close();
  await wanda?.host.dispose();
  await oscar?.host.dispose();
  await server?.close();
});

const tab = (name: string) => page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name });
async function openView(label: string) {
  await keys.press(new RegExp(`^${label}`));
  await expect.poll(() => tab(label).getAttribute('aria-current')).toBe('page');
}
const rowOf = (name: string) => page.getByTestId('entries').getByRole('row').filter({ hasText: name });

describe('who has access, and what others share, in the window', { timeout: 90_000 }, () => {
  it('opens the share dialog of the account’s own file on who has access', async () => {
    await openView('Files');
    await expect.poll(() => page.getByTestId('entries').textContent(), { timeout: 20_000 }).toContain('report.txt');
    await keys.press('Share report.txt');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    const access = dialog.getByTestId('access');
    await expect.poll(() => dialog.getByTestId('access-owner').textContent()).toBe(`You (${WANDA})`);
    expect(await access.getByRole('heading', { name: 'Who has access' }).count()).toBe(1);
    expect(await dialog.getByTestId('access-people').textContent()).toBe(`${OSCAR} may view and edit`);
    expect(await dialog.getByTestId('access-link').textContent()).toBe(
      'Anyone with the link can open itPassword: yesExpires: neverDownload: allowedEditing: not allowed',
    );
    expect(await dialog.getByTestId('access-lists').textContent()).toContain('None');
    expect(await dialog.getByTestId('access-lists').textContent()).toContain('As far as this computer knows');
    // The owner shares on: the tabs follow who has access.
    await expect.poll(() => dialog.getByRole('tab', { selected: true }).textContent()).toBe('People (1)');
    await w.look('share-dialog-access', { dialog: true });
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await page.evaluate("document.activeElement?.getAttribute('aria-label')")).toBe('Share report.txt');
  });

  it('marks what others share with who shared it and “view only”, down to the shared entry', async () => {
    // The shared folder groups what one owner shares: it says whose it is, and offers neither sharing nor a star.
    await expect.poll(() => rowOf('Shared with me').textContent(), { timeout: 20_000 }).toContain(`shared by ${OSCAR}`);
    expect(await rowOf('Shared with me').getByRole('button', { name: /^(Share Shared|Star Shared|Who has access)/ }).count()).toBe(0);
    await keys.press('Shared with me (folder)');
    await keys.press(`${OSCAR} (folder)`);
    const pictures = rowOf('Pictures');
    await expect.poll(() => pictures.textContent(), { timeout: 20_000 }).toContain(`shared by ${OSCAR}`);
    expect(await pictures.textContent()).toContain('view only');
    expect(await pictures.getByRole('button', { name: 'Share Pictures' }).count()).toBe(0);
    await w.look('files-shared-with-me');
    await keys.press('Pictures (folder)');
    await expect.poll(() => rowOf('beach.jpg').textContent(), { timeout: 20_000 }).toContain(`shared by ${OSCAR}`);
    expect(await rowOf('beach.jpg').textContent()).toContain('view only');
    await keys.press(`${OSCAR}`, 'Enter');
    await expect.poll(() => rowOf('Pictures').textContent()).toContain('view only');
  });

  it('says in the dialog who shared an entry and what the account may do, and that only the owner can share it', async () => {
    await keys.press('Who has access to Pictures');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await expect.poll(() => dialog.getByTestId('shared-with-me').textContent()).toBe(
      `${OSCAR} shared this with you. You may view and download it, not edit it.Only the owner can share this, change who has access or make a link: ask ${OSCAR}.`,
    );
    expect(await dialog.getByRole('heading', { level: 2 }).textContent()).toBe('Shared with you: “Pictures”');
    expect(await dialog.getByTestId('access-owner').textContent()).toBe(OSCAR);
    // Nothing to share with, no link to make: the drive would refuse them.
    expect(await dialog.getByRole('tab').count()).toBe(0);
    expect(await dialog.getByRole('button', { name: /^Share$|Create link|Remove/ }).count()).toBe(0);
    await w.look('share-dialog-shared-with-me', { dialog: true });
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await page.evaluate("document.activeElement?.getAttribute('aria-label')")).toBe('Who has access to Pictures');
  });

  it('renames the shared folder of a synced folder in Settings, with the keyboard', async () => {
    await openView('Settings');
    const field = page.getByLabel('Folder name');
    await expect.poll(() => field.inputValue()).toBe('Shared with me');
    await keys.type('Folder name', 'a/b');
    await keys.press('Save the shared folder of Drive');
    await expect.poll(() => page.locator('#shared-folder-0-error').textContent()).toContain('cannot be empty');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    await keys.type('Folder name', 'From others');
    await keys.press('Save the shared folder of Drive');
    await expect.poll(() => page.getByTestId('shared-folder-0-message').textContent()).toBe('What others share with you goes into “From others” in Drive.');
    expect(JSON.parse(readFileSync(wanda.paths.configFile, 'utf8')).sharedWithMe).toEqual({ [wanda.folder]: 'From others' });
    await w.look('settings-shared-folder');
    // Turned off with its box.
    await keys.press('Sync it into a folder of Drive', 'Space');
    expect(await field.isDisabled()).toBe(true);
    await keys.press('Save the shared folder of Drive');
    await expect.poll(() => page.getByTestId('shared-folder-0-message').textContent()).toBe('What others share with you is not synced into Drive.');
    expect(JSON.parse(readFileSync(wanda.paths.configFile, 'utf8')).sharedWithMe).toEqual({ [wanda.folder]: null });
  });
});
