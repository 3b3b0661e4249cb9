/**
 * The window in headless Chromium (Debian's, through playwright-core), built by Vite and served under the app's
 * CSP, talking to the real host (real engines on a temp folder) and the real reference server through the
 * preload's own API. Each view is saved as a screenshot at 800×600 and 1280×800 under test-artifacts/renderer/, and
 * scanned with axe-core (serious and critical violations fail). Every step is done with the keyboard only where
 * a person would (Tab to the control, Enter or Space), so each view is proven reachable and operable without a mouse.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DriveClient } from '../../main/api/client.js';
import { ipcEventChannel, type EventName, type Progress } from '../../main/contract/index.js';
import { SyncEngine } from '../../main/sync/engine/engine.js';
import { addList } from '../../server/lists.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { inSync, newHost, untilStatus, write, type TestHost } from '../app/helpers.js';
import { openWindow, SIZES, type TestWindow } from './setup.js';
import { tempDir } from '../helpers/temp.js';

const EMAIL = 'renata@example.com';
const PASSWORD = 'pass-word-1';

let server: TestServer;
let h: TestHost;
let w: TestWindow;
let page: Page;
let other: { engine: SyncEngine; root: string } | null = null;
let keys: TestWindow['keys'];
const shown: string[] = [];
const look = (name: string, options: { dialog?: boolean } = {}) => w.look(name, options);

beforeAll(async () => {
  server = await startTestServer();
  await server.register(EMAIL, PASSWORD);
  h = newHost('renderer');
  write(h.folder, 'report.txt', 'quarterly numbers');
  write(h.folder, 'photos/beach.jpg', 'not really a jpeg');
  await h.host.init();
  h.platform.showItemInFolder = (path) => void shown.push(path);
  w = await openWindow(h.host);
  ({ page, keys } = w);
}, 60_000);

afterAll(async () => {
  await w?.close();
  await other?.engine.stop();
  await h?.host.dispose();
  await server?.close();
});

const tab = (name: string) => page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name });
const emit = (name: EventName, payload: unknown) => w.emit(name, payload);
/** Opens a view with the keyboard: Tab to its button in the Views bar, Enter. */
async function openView(label: string) {
  await keys.press(new RegExp(`^${label}`));
  await expect.poll(() => tab(label).getAttribute('aria-current')).toBe('page');
}

// The whole suite runs beside every other test file on two cores: the steps that wait for syncing get room.
describe('the window', { timeout: 90_000 }, () => {
  it('runs under the CSP: the meta tag is there and nothing is blocked', async () => {
    const meta = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
    expect(meta).toContain("script-src 'self'");
    await expect.poll(() => page.getByRole('heading', { name: 'Sign in to your drive' }).count()).toBe(1);
    expect(await page.evaluate(() => (globalThis as unknown as { __cspViolations: string[] }).__cspViolations)).toEqual([]);
  });

  it('signs in with the keyboard, saying a wrong password once, and reaches "Up to date"', async () => {
    await keys.press('Sign in');
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Some fields need your attention');
    expect(await page.locator('#sign-in-server-error').textContent()).toBe('Enter the address of your drive.');
    expect(await page.getByLabel('Server', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await look('sign-in-errors');

    await keys.type('Server', server.url);
    await keys.type('E-mail', EMAIL);
    await keys.type('Password', 'not-the-password');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('The e-mail address or the password is not right');
    // Said once: not again under a field.
    expect(await page.getByText('not right', { exact: false }).count()).toBe(1);
    expect(await page.locator('.field-error').count()).toBe(0);
    await look('sign-in-wrong-password');
    await keys.press('Dismiss');
    expect(await page.getByRole('alert').count()).toBe(0);

    await keys.type('Password', PASSWORD);
    await page.keyboard.press('Enter');
    const line = page.getByTestId('status-line');
    await line.waitFor();
    expect(await line.getAttribute('aria-live')).toBe('polite');
    await expect.poll(() => line.textContent(), { timeout: 40_000 }).toContain('Up to date');
    await untilStatus(h.host, inSync, 40_000);
    // The state is said once on the status view: not in the top bar, not again beside the only folder.
    await expect.poll(() => page.getByText('Up to date').count()).toBe(1);
    expect(await page.getByTestId('state-badge').count()).toBe(0);
    expect(await page.getByTestId('folders').textContent()).toContain('Drive');
  });

  it('lists recent files with their state, and copies a link or shows one in its folder', async () => {
    const recent = page.getByTestId('recent-list');
    await expect.poll(() => recent.textContent(), { timeout: 20_000 }).toContain('beach.jpg');
    const text = await recent.textContent();
    expect(text).toContain('report.txt');
    expect(text).toContain('Synced');
    expect(text).toContain('in photos');
    await look('status');

    await keys.press('Copy link to report.txt');
    await expect.poll(() => page.getByTestId('recent-message').textContent()).toBe(
      'Link to report.txt copied. Its address changes when the file is saved again; drivesync tells you the new one.',
    );
    expect(h.platform.copied).toHaveLength(1);
    expect(h.platform.copied[0]).toMatch(new RegExp(`^${server.url}/drive/s/`));
    await keys.press('Show in folder: beach.jpg');
    await expect.poll(() => shown).toEqual([join(h.folder, 'photos', 'beach.jpg')]);
    // The link made for the copy is removed again, so the dialog below starts without one.
    await h.host.handle('link:delete', { root: h.folder, path: 'report.txt' });
    h.platform.copied.length = 0;
  });

  it('uses the width of the window, and wraps a folder path only after a separator', async () => {
    const right = async (testId: string) => {
      const box = await page.getByTestId(testId).boundingBox();
      return box!.x + box!.width;
    };
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => resolve(null)))');
      // Past the margins nothing is left empty on the right: the status line and the recent files reach the edge.
      expect(await right('status-line'), `${size.width}`).toBeGreaterThan(size.width - 64);
      expect(await right('recent-list'), `${size.width}`).toBeGreaterThan(size.width - 64);
      // The folder's path is longer than its column at both sizes: each line it takes ends with a separator.
      const breaks = await lineBreaksIn('folders', h.folder);
      expect(breaks.length, `${size.width}`).toBeGreaterThan(0);
      for (const at of breaks) expect(at, `${size.width}: ${breaks.join(' ')}`).toMatch(/^\/\|/);
    }
    await page.setViewportSize(SIZES[1]);
  });

  it('shows progress: bytes, rate, ETA and the current transfers', async () => {
    const progress: Progress = {
      active: true,
      bytesDone: 3 * 1024 * 1024,
      bytesTotal: 12 * 1024 * 1024,
      bytesPerSecond: 1024 * 1024,
      etaSeconds: 9,
      filesDone: 2,
      transfers: [{ root: h.folder, path: 'videos/holiday.mp4', direction: 'up', transferred: 1024 * 1024, total: 8 * 1024 * 1024 }],
    };
    // The real host sends progress only while its engines transfer, which on loopback is over in a blink: this
    // event goes through the same bridge, as the host would send it.
    await emit('progress', progress);
    const figures = page.getByTestId('progress-figures');
    await expect.poll(() => figures.textContent()).toBe('3.0 MB of 12 MB · 1.0 MB/s · 9 s left');
    expect(await page.getByRole('list', { name: 'Current transfers' }).textContent()).toContain('videos/holiday.mp4');
    expect(await page.getByRole('progressbar', { name: 'Transferred so far' }).count()).toBe(1);
    // Bytes are moving: the status line says so too (the host's last state event said up to date).
    expect(await page.getByTestId('status-line').getAttribute('data-state')).toBe('syncing');
    expect(await page.getByTestId('status-line').textContent()).toBe('Syncing…');
    expect(await page.getByText('Up to date').count()).toBe(0);
    await look('status-progress');
    await emit('progress', { ...progress, active: false, transfers: [], etaSeconds: 0, bytesDone: progress.bytesTotal });
    await expect.poll(() => page.getByTestId('transfers-now').textContent()).toBe('Last sync: 2 files, 12 MB.');
    expect(await page.getByTestId('status-line').textContent()).toBe('Up to date');
  });

  it('lists the activity', async () => {
    await openView('Activity');
    const list = page.getByTestId('activity-list');
    await list.waitFor();
    const text = await list.textContent();
    expect(text).toContain('Uploaded');
    expect(text).toContain('report.txt');
    expect(text).toContain('photos/beach.jpg');
    await keys.press('Also show items that needed no transfer (already the same on both sides)', 'Space');
    expect(await page.getByLabel('Also show items that needed no transfer (already the same on both sides)').isChecked()).toBe(true);
    await page.keyboard.press(' ');
    await expect.poll(() => page.getByTestId('state-badge').textContent()).toBe('Up to date');
    await look('activity');
  });

  it('lists files with modified date and size, and stars one with the keyboard', async () => {
    await openView('Files');
    const entries = page.getByTestId('entries');
    await entries.waitFor();
    const text = await entries.textContent();
    expect(text).toContain('photos');
    expect(text).toContain('17 B');
    const modified = await page.locator('td.col-modified').first().textContent();
    expect(modified).not.toBe('—');
    // Each entry says its state in the emblems' words (from the engine's memory, as the file manager's socket does).
    const reportRow = page.locator('tr.entry', { hasText: 'report.txt' });
    await expect.poll(() => reportRow.locator('.item-state').getAttribute('data-state')).toBe('synced');
    expect(await reportRow.locator('.item-state .sr-only').textContent()).toBe('Synced');
    // Into a folder and back, by the path above the list.
    await keys.press('photos (folder)');
    await expect.poll(() => entries.textContent()).toContain('beach.jpg');
    await keys.press('Drive', 'Enter');
    await expect.poll(() => entries.textContent()).toContain('report.txt');

    const star = page.getByRole('button', { name: 'Star report.txt' });
    await expect.poll(() => star.getAttribute('aria-pressed')).toBe('false');
    await keys.press('Star report.txt', 'Space');
    await expect.poll(() => star.getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => page.getByTestId('files-message').textContent()).toBe('report.txt is starred.');
    const client = await ownerClient();
    const starred: string[] = [];
    for await (const entry of client.entries.list({ starredOnly: true })) starred.push(entry.name);
    expect(starred).toEqual(['report.txt']);
    await look('files');
  });

  it('opens the share dialog with the keyboard and creates a link with a password and an expiry', async () => {
    await keys.press('Share report.txt');
    const dialog = page.getByRole('dialog', { name: 'Share “report.txt”' });
    await dialog.waitFor();
    // A modal dialog: the focus is inside it.
    expect(await page.evaluate("!!document.activeElement?.closest('dialog[open]')")).toBe(true);
    await look('share-dialog-people', { dialog: true });

    // The tabs: Tab reaches the selected one, the arrow keys choose.
    await keys.tabTo(/^People/);
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => dialog.getByRole('tab', { selected: true }).textContent()).toBe('Link');
    await expect.poll(() => dialog.getByText('No link yet.').count()).toBe(1);
    await keys.type('Password', 'open-sesame');
    // A date field takes its parts typed in order (month, day, year in this locale).
    await keys.tabTo('Expires on');
    await page.keyboard.type('01312030');
    await expect.poll(() => dialog.getByLabel('Expires on').inputValue()).toBe('2030-01-31');
    await keys.press('Create link');
    const url = dialog.getByTestId('link-url');
    await url.waitFor();
    const link = await url.inputValue();
    expect(link).toMatch(new RegExp(`^${server.url}/drive/s/[A-Za-z0-9_-]+$`));
    expect(await dialog.getByTestId('share-message').textContent()).toBe('Link created.');
    expect(await dialog.getByTestId('link-password-state').textContent()).toBe('Password: set');
    const saved = await h.host.handle('link:get', { root: h.folder, path: 'report.txt' });
    expect(saved).toMatchObject({ url: link, hasPassword: true, allowDownload: true, allowEdit: false });
    expect(new Date(saved!.expiresAt!).getFullYear()).toBe(2030);
    // The link works with its password only.
    expect(await (await fetch(link)).text()).toContain('This link is protected');
    expect(await (await fetch(`${link}?password=open-sesame`)).text()).toBe('quarterly numbers');
    await keys.press('Copy');
    await expect.poll(() => h.platform.copied).toEqual([link]);
    await look('share-dialog-link', { dialog: true });
  });

  it('keeps the link password when other settings are saved, changes it or removes it only by its own buttons', async () => {
    const dialog = page.getByRole('dialog', { name: 'Share “report.txt”' });
    const url = await dialog.getByTestId('link-url').inputValue();
    const opens = async (password?: string) => (await fetch(password === undefined ? url : `${url}?password=${password}`)).status;
    // Said, not an empty field: no password input until Change… is pressed.
    expect(await dialog.getByTestId('link-password-state').textContent()).toBe('Password: set');
    expect(await dialog.locator('input[type="password"]').count()).toBe(0);
    expect(await dialog.textContent()).not.toContain('removes the current one');
    await look('share-dialog-link-password', { dialog: true });

    // Another setting saved: the password stays.
    await keys.press('Allow editing', 'Space');
    await keys.press('Update link');
    await expect.poll(() => dialog.getByTestId('share-message').textContent()).toBe('Link updated.');
    expect(await h.host.handle('link:get', { root: h.folder, path: 'report.txt' })).toMatchObject({ hasPassword: true, allowEdit: true });
    expect(await opens()).toBe(401);
    expect(await opens('open-sesame')).toBe(200);

    // Changed by Change…: the new one opens it, the old one no more; the focus comes back to Change….
    await keys.tabTo('Change…', true);
    await page.keyboard.press('Enter');
    await expect.poll(() => keys.focusedName()).toBe('New password');
    await page.keyboard.type('new-sesame');
    await keys.press('Update link');
    await expect.poll(() => dialog.getByTestId('share-message').textContent()).toBe('Link updated: its password is changed.');
    await expect.poll(() => keys.focusedName()).toBe('Change…');
    expect(await opens('new-sesame')).toBe(200);
    expect(await opens('open-sesame')).toBe(401);

    // Set elsewhere (another computer, the drive's website): the window cannot know it, and asks for it to keep it.
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    const owner = await ownerClient();
    let id = 0;
    for await (const entry of owner.entries.list({ query: 'report.txt' })) if (entry.name === 'report.txt') id = entry.id;
    await owner.links.update(id, { password: 'from-elsewhere', expiresAt: '2030-01-31T12:00:00.000Z', allowDownload: true, allowEdit: true });
    await keys.press('Share report.txt');
    await dialog.waitFor();
    await keys.tabTo(/^People/);
    await page.keyboard.press('End');
    await expect.poll(() => dialog.getByLabel('Current password').count()).toBe(1);
    await keys.press('Update link');
    await expect.poll(() => dialog.locator('#link-current-password-hint').textContent()).toBe('Enter the link’s current password to keep it.');
    expect(await dialog.getByLabel('Current password').getAttribute('aria-invalid')).toBe('true');
    expect(await opens('from-elsewhere')).toBe(200);
    await look('share-dialog-link-password-unknown', { dialog: true });
    await keys.tabTo('Current password', true);
    await page.keyboard.type('from-elsewhere');
    await keys.press('Update link');
    await expect.poll(() => dialog.getByTestId('share-message').textContent()).toBe('Link updated.');
    expect(await dialog.getByLabel('Current password').count()).toBe(0);
    expect(await opens()).toBe(401);
    expect(await opens('from-elsewhere')).toBe(200);

    // Removed only by Remove password, which keeps the other settings.
    const before = await h.host.handle('link:get', { root: h.folder, path: 'report.txt' });
    await keys.tabTo('Remove password', true);
    await page.keyboard.press('Enter');
    await expect.poll(() => dialog.getByTestId('share-message').textContent()).toBe('Password removed: anyone with the link can open it.');
    expect(await dialog.getByTestId('link-password-state').textContent()).toBe('Password: none');
    await expect.poll(() => keys.focusedName()).toBe('Add a password…');
    expect(await opens()).toBe(200);
    expect(await h.host.handle('link:get', { root: h.folder, path: 'report.txt' })).toEqual({ ...before, hasPassword: false, passwordKnown: false });
    expect(before).toMatchObject({ allowEdit: true, allowDownload: true });
    expect(new Date(before!.expiresAt!).getFullYear()).toBe(2030);
    await look('share-dialog-link-no-password', { dialog: true });
  });

  it('shares with a person and changes what they may do', async () => {
    await server.register('bruno@example.com');
    const dialog = page.getByRole('dialog');
    await keys.tabTo(/^Link/, true);
    await page.keyboard.press('Home');
    await expect.poll(() => dialog.getByRole('tab', { selected: true }).textContent()).toBe('People');
    await keys.type('Share with (e-mail addresses)', 'bruno@example.com, nobody@example.com');
    await page.keyboard.press('Enter');
    await expect.poll(() => dialog.getByTestId('share-message').textContent()).toBe('Shared. No account for: nobody@example.com.');
    const people = dialog.getByTestId('people');
    expect(await people.textContent()).toContain('bruno@example.com');
    const group = people.getByRole('group', { name: 'What bruno@example.com may do' });
    expect(await group.getByLabel('View').isChecked()).toBe(true);
    expect(await group.getByLabel('Download').isChecked()).toBe(true);
    expect(await group.getByLabel('Edit').isChecked()).toBe(false);
    // Back from the address field: the person's boxes come before the form's own.
    await keys.tabTo('Edit', true);
    expect(await page.evaluate('document.activeElement?.id')).toMatch(/^person-\d+-edit$/);
    await page.keyboard.press(' ');
    await expect.poll(() => dialog.getByTestId('share-message').textContent()).toBe('Changed what bruno@example.com may do.');
    const onServer = await h.host.handle('share:list', { root: h.folder, path: 'report.txt' });
    expect(onServer.map((p) => [p.email, p.permissions])).toEqual([['bruno@example.com', ['view', 'edit', 'download']]]);
    await look('share-dialog-person', { dialog: true });
  });

  it('shares with a mailing list it remembers by the name the user gave', async () => {
    const listId = addList(server.context.db, 'Project team', EMAIL);
    await server.register('carla@example.com');
    const owner = await ownerClient();
    const carla = await owner.lists.store(listId, { EMAIL: 'carla@example.com', FIRST_NAME: 'Carla' });
    await owner.lists.subscribe(listId, carla);
    // A member who left the list is not shared with, nor counted.
    await owner.lists.unsubscribe(listId, await owner.lists.store(listId, { EMAIL: 'dora@example.com' }));
    const dialog = page.getByRole('dialog');
    await keys.tabTo(/^People/, true);
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => dialog.getByRole('tab', { selected: true }).textContent()).toBe('Mailing list');
    await expect.poll(() => dialog.getByLabel('List ID').count()).toBe(1);

    // A list that does not exist is refused in words, and nothing is remembered.
    await keys.type('Name', 'Nobody');
    await keys.type('List ID', '0000000000000');
    await page.keyboard.press('Enter');
    await expect.poll(() => dialog.getByTestId('share-error').count()).toBe(1);
    expect(await dialog.getByTestId('share-error').textContent()).toBe('There is no mailing list with the ID 0000000000000. Check the ID where your lists are managed.');
    expect(await h.host.handle('lists:list', undefined)).toEqual([]);
    await look('share-dialog-list-add', { dialog: true });

    await keys.type('Name', 'Project team');
    await keys.type('List ID', listId);
    await page.keyboard.press('Enter');
    await expect.poll(() => dialog.getByTestId('share-message').textContent()).toBe('Added Project team (1 subscribed).');
    const saved = dialog.getByTestId('saved-lists');
    expect(await saved.textContent()).toContain('Project team');
    expect(await saved.textContent()).toContain('1 subscribed');
    expect(await dialog.getByRole('radio', { name: /Project team/ }).isChecked()).toBe(true);
    await keys.press('Share with list');
    await expect.poll(() => dialog.getByTestId('share-message').textContent()).toBe('Shared with 1 subscribed member of Project team.');
    const onServer = await h.host.handle('share:list', { root: h.folder, path: 'report.txt' });
    expect(onServer.map((p) => p.email).sort()).toEqual(['bruno@example.com', 'carla@example.com']);
    expect(await h.host.handle('lists:list', undefined)).toMatchObject([{ id: listId, name: 'Project team', subscribers: 1 }]);
    await look('share-dialog-list', { dialog: true });
    // Escape closes the dialog and the focus goes back to the button that opened it.
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await page.evaluate("document.activeElement?.getAttribute('aria-label')")).toBe('Share report.txt');
    // The file is marked as shared, with a link, and starred.
    const row = page.getByRole('row', { name: /report\.txt/ });
    await expect.poll(() => row.textContent()).toContain('Shared');
    expect(await row.textContent()).toContain('Link');
    await look('files-markers');
  });

  it('shows a conflict in plain words, with Open and Show in folder for both versions', async () => {
    // A second computer on the same account.
    const home = tempDir('beta');
    const root = join(home, 'Drive');
    mkdirSync(root);
    const login = await server.call(null, 'POST', '/api/v1/auth/login', { email: EMAIL, password: PASSWORD, token_name: 'beta' });
    const engine = new SyncEngine({
      root,
      client: new DriveClient({ origin: server.url, token: login.body.user.access_token, retry: { limit: 1, baseDelayMs: 10 } }),
      mirrorPath: join(home, 'mirror.sqlite'),
      hostname: 'beta',
      trash: async () => undefined,
    });
    other = { engine, root };
    expect((await engine.syncOnce({ fullScan: true })).inSync).toBe(true);

    await openView('Status');
    await keys.press('Pause syncing');
    await expect.poll(() => page.getByTestId('status-line').textContent()).toContain('Paused');
    writeFileSync(join(h.folder, 'report.txt'), 'numbers, edited here');
    writeFileSync(join(root, 'report.txt'), 'numbers, edited on the other computer');
    // A file whose name is not valid UTF-8: an error, told in plain words. An empty folder with a name the service
    // refuses to create (fewer than 3 characters): left out by design, listed as such and not as an error.
    const legacyName = Buffer.concat([Buffer.from(`${h.folder}/`), Buffer.from('caf\xe9.txt', 'latin1')]);
    writeFileSync(legacyName, 'coffee');
    mkdirSync(join(h.folder, 'ab'));
    expect((await engine.syncOnce({ fullScan: true })).done).toBeGreaterThan(0);
    await keys.press('Resume syncing');
    await expect.poll(() => tab('Conflicts and errors').textContent(), { timeout: 40_000 }).toMatch(/\d+/);
    await untilStatus(h.host, (s) => s.folders[0]!.lastSync !== null && s.state !== 'syncing' && s.state !== 'scanning', 40_000);
    await expect.poll(async () => (await h.host.handle('conflicts:list', undefined)).length, { timeout: 40_000 }).toBeGreaterThan(0);
    await openView('Conflicts and errors');
    const conflicts = page.getByTestId('conflict-list');
    await conflicts.waitFor();
    const text = await conflicts.textContent();
    expect(text).toMatch(/report\.txt changed here and on the drive/);
    expect(text).toMatch(/yours is report \(conflicted copy \d{4}-\d\d-\d\d \d{6} renderer\)\.txt/);
    const [conflict] = await h.host.handle('conflicts:list', undefined);
    expect(readFileSync(join(h.folder, conflict!.copyPath), 'utf8')).toBe('numbers, edited here');
    expect(readFileSync(join(h.folder, 'report.txt'), 'utf8')).toBe('numbers, edited on the other computer');

    await keys.press(/^Open your version report \(conflicted copy/);
    await expect.poll(() => h.platform.opened).toContain(join(h.folder, conflict!.copyPath));
    await keys.press('Show in folder: the drive’s version of report.txt');
    await expect.poll(() => shown).toContain(join(h.folder, 'report.txt'));

    const errors = page.getByTestId('error-list');
    await expect
      .poll(() => errors.textContent(), { timeout: 20_000 })
      .toContain('This name is not valid UTF-8 (it comes from an older system), so it is not synced. Rename it in Drive and it syncs.');
    // The technical line is there for a report, folded away; what shows is the plain sentence.
    expect((await errors.locator('.problem-message').allTextContents()).join(' ')).not.toContain('a name from an older system');
    expect(await errors.locator('details').getAttribute('open')).toBeNull();
    const leftOut = page.getByRole('region', { name: 'Left out by design' });
    await expect
      .poll(() => leftOut.textContent())
      .toContain('The drive cannot hold an empty folder named “ab” (folder names need 3 to 200 characters), so it is left out in Drive.');
    expect(await errors.textContent()).not.toContain('“ab”');
    await look('conflicts');
    rmSync(legacyName);
    rmSync(join(h.folder, 'ab'), { recursive: true });
    await h.host.handle('sync:now', undefined);
    await untilStatus(h.host, inSync, 40_000);
  });

  it('lists what is left out by design under Conflicts and errors, reached by the keyboard from the folder’s count', async () => {
    await openView('Conflicts and errors');
    const section = page.getByRole('region', { name: 'Left out by design' });
    await expect.poll(() => section.textContent()).toContain('Nothing is left out');
    expect(await section.getByRole('list').count()).toBe(0);

    symlinkSync('/etc/hostname', join(h.folder, 'shortcut'));
    write(h.folder, 'notes/draft.tmp', 'an unsaved draft');
    await openView('Status');
    await keys.press('Sync now');
    await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.skipped === 2, 40_000);
    // The count in the folder's line leads to the list, and the focus lands on its heading.
    await keys.press('2 left out by design (links, ignored names)');
    await expect.poll(() => tab('Conflicts and errors').getAttribute('aria-current')).toBe('page');
    await expect.poll(() => keys.focusedName()).toBe('Left out by design');
    const rows = section.getByRole('list', { name: 'Left out in Drive' }).getByRole('listitem');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.locator('strong').allTextContents()).toEqual(['shortcut', 'draft.tmp']);
    expect((await rows.locator('.muted').allTextContents()).map((t) => t.replace(/\s+/g, ' '))).toEqual(['in Drive', 'in Drive/notes']);
    expect(await rows.locator('.problem-message').allTextContents()).toEqual([
      'This is a symbolic link: drivesync does not follow links. Move the real file or folder into the synced folder instead.',
      'Ignored: temporary and editor files, and names your ignore rules list (Settings), are not synced.',
    ]);
    // One folder: no heading of its own.
    expect(await section.getByRole('heading').allTextContents()).toEqual(['Left out by design']);
    await look('left-out');
  });

  it('explains a failure in plain words, saying where and what to do', async () => {
    await openView('Status');
    const item = { id: 99_999, at: new Date().toISOString(), root: h.folder, path: '', message: '', technical: 'GET /drive/file-entries: connection refused' };
    // The host's words for the engine's line, sent as the host sends them.
    const { plainProblem } = await import('../../main/app/host/plain-words.js');
    item.message = plainProblem(item.technical, { root: h.folder, server: server.url });
    // A server on this computer: is it running? (not "check your internet connection").
    expect(item.message).toBe(`Cannot reach the drive server at ${new URL(server.url).host} — is it running? drivesync tries again on its own.`);
    // Sent again on each look: the running engine's own state events (its settling scan) may come in between.
    const offline = { ...(await h.host.handle('status:get', undefined)), state: 'offline' as const, stateText: 'Offline', detail: item.message };
    // The folder row says offline too (the app said so before its folder noticed).
    await expect
      .poll(async () => {
        await emit('state', offline);
        const line = await page.getByTestId('status-line').textContent();
        const row = await page.getByTestId('folders').locator('li').first().getAttribute('data-state');
        return `${row}: ${line}`;
      })
      .toMatch(/^offline: .*Cannot reach the drive server/);
    await look('status-offline');
    await emit('state', await h.host.handle('status:get', undefined));
  });

  it('saves settings with the keyboard', async () => {
    await openView('Settings');
    await keys.type('Check the drive every (seconds)', '20');
    await keys.type('Ignore rules', '*.bak');
    await keys.type('Keep earlier versions of files for (days)', '30');
    await keys.type('Download limit (KB/s, 0 for none)', '4096');
    await keys.press('Save settings');
    await expect.poll(() => page.getByTestId('settings-message').textContent()).toBe('Settings saved.');
    expect(await h.host.handle('settings:get', undefined)).toMatchObject({ pollIntervalSeconds: 20, ignoreRules: '*.bak\n', folders: [h.folder], keepVersionsDays: 30, bandwidthUpKBps: 0, bandwidthDownKBps: 4096 });
    // Shared with the command line's configuration, which the engines read (sync --limit-down sets the same).
    const config = JSON.parse(readFileSync(h.paths.configFile, 'utf8'));
    expect(config.keepVersionsDays).toBe(30);
    expect(config.bandwidth).toEqual({ downBytesPerSecond: 4096 * 1024 });
    await h.host.handle('settings:set', { bandwidthDownKBps: 0 });
    await expect.poll(() => page.getByTestId('settings-folders').textContent(), { timeout: 40_000 }).toContain('Up to date');
    await look('settings');
  });

  it('asks before a mass delete, and deletes once the user confirms', async () => {
    for (let i = 0; i < 12; i++) write(h.folder, `bulk/file-${i}.txt`, `bulk ${i}`);
    await openView('Status');
    await keys.press('Sync now');
    await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.synced >= 17, 40_000);
    // Paused while the folder goes, so the watcher cannot pass on the deletions a few at a time as they happen:
    // resuming scans the whole folder and sees all of them at once.
    await keys.press('Pause syncing');
    await expect.poll(() => page.getByTestId('status-line').textContent()).toContain('Paused');
    rmSync(join(h.folder, 'bulk'), { recursive: true });
    await keys.press('Resume syncing');
    const prompt = page.getByRole('alertdialog', { name: 'Delete 13 items?' });
    await prompt.waitFor({ timeout: 30_000 });
    expect(await prompt.textContent()).toContain('would delete 13 of its');
    // Where and why, and the items: the folder stands for what is inside it.
    const side = prompt.getByRole('region', { name: '13 items would be deleted from the drive (to its trash)' });
    expect(await side.textContent()).toContain('Why: deleted in this folder.');
    expect(await side.getByRole('listitem').allTextContents()).toEqual(['bulk/']);
    // The safe answer has the focus; all three answers are there.
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Keep them');
    expect(await prompt.getByRole('button').allTextContents()).toEqual(['Keep them', 'Decide later', 'Delete 13 items']);
    await look('mass-delete-question', { dialog: true });
    // Decide later: the dialog closes, the deletions wait, and a line above the views offers the question again.
    await keys.press('Decide later');
    await expect.poll(() => prompt.count()).toBe(0);
    const waiting = page.getByTestId('deletions-waiting');
    await expect.poll(() => waiting.textContent()).toContain('13 items in');
    expect(await waiting.textContent()).toContain('wait for your answer before they are deleted; everything else goes on syncing.');
    await look('deletions-waiting');
    await keys.press(`Review the deletions in ${basename(h.folder)}`);
    await prompt.waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('deletions-waiting').count()).toBe(0);
    await keys.press('Delete 13 items');
    await expect.poll(() => prompt.count()).toBe(0);
    const status = await untilStatus(h.host, (s) => inSync(s) && s.pendingDeletions.length === 0, 40_000);
    expect((await h.host.handle('entries:browse', { root: h.folder, path: '' })).entries.map((e) => e.name)).not.toContain('bulk');
    expect(status.folders[0]!.synced).toBeLessThan(17);
  });

  it('offers Restore on each deletion in Activity, and on all of them; a restored file comes back', async () => {
    write(h.folder, 'keep-a.txt', 'a to keep');
    write(h.folder, 'keep-b.txt', 'b to keep');
    await openView('Status');
    await keys.press('Sync now');
    await untilStatus(h.host, (s) => inSync(s) && existsSync(join(h.folder, 'keep-b.txt')), 40_000);
    await expect.poll(async () => (await h.host.handle('entries:browse', { root: h.folder, path: '' })).entries.map((e) => e.name), { timeout: 30_000 }).toContain('keep-b.txt');
    rmSync(join(h.folder, 'keep-a.txt'));
    rmSync(join(h.folder, 'keep-b.txt'));
    await expect
      .poll(async () => (await h.host.handle('entries:browse', { root: h.folder, path: '' })).entries.map((e) => e.name), { timeout: 30_000 })
      .not.toContain('keep-b.txt');
    await openView('Activity');
    await expect.poll(() => page.getByRole('button', { name: 'Restore keep-a.txt' }).count()).toBe(1);
    // The bulk folder deleted above, and the two files: one button for all of them too.
    expect(await page.getByRole('button', { name: 'Restore all 3 deletions' }).count()).toBe(1);
    await look('activity-deletions');
    await keys.press('Restore keep-a.txt');
    await expect.poll(() => page.getByTestId('activity-message').textContent()).toBe('keep-a.txt is restored: it comes back here and on the drive.');
    await expect.poll(() => existsSync(join(h.folder, 'keep-a.txt')), { timeout: 30_000 }).toBe(true);
    expect(readFileSync(join(h.folder, 'keep-a.txt'), 'utf8')).toBe('a to keep');
    expect(await page.getByRole('button', { name: 'Restore all 2 deletions' }).count()).toBe(1);
  });

  it('shows the version history of a file from Files and Recent files, and restores an earlier version with the keyboard', async () => {
    write(h.folder, 'plan.txt', 'the first plan');
    await openView('Status');
    await keys.press('Sync now');
    await expect.poll(async () => (await h.host.handle('entries:browse', { root: h.folder, path: '' })).entries.map((e) => e.name), { timeout: 30_000 }).toContain('plan.txt');
    write(h.folder, 'plan.txt', 'the second plan, longer');
    await expect.poll(async () => (await h.host.handle('versions:list', { root: h.folder, path: 'plan.txt' })).versions.length, { timeout: 30_000 }).toBe(1);

    await openView('Files');
    await page.getByTestId('entries').waitFor();
    await keys.press('Version history of plan.txt');
    const dialog = page.getByRole('dialog', { name: 'Version history of “plan.txt”' });
    await dialog.waitFor();
    expect(await page.evaluate("!!document.activeElement?.closest('dialog[open]')")).toBe(true);
    await expect.poll(() => dialog.getByTestId('versions').textContent()).toContain('14 B');
    expect(await dialog.textContent()).toContain('23 B');
    await look('versions-dialog', { dialog: true });

    await keys.press('Restore version 1 of plan.txt');
    await expect.poll(() => dialog.getByTestId('versions-message').textContent(), { timeout: 20_000 }).toMatch(/^plan\.txt holds version 1 again \(saved .+\)\. What it held is version 1 now\.$/);
    // The restore is a new version: the one it replaced is listed, and the content is here at once.
    await expect.poll(() => dialog.getByRole('button', { name: /^Restore version \d of plan\.txt$/ }).count()).toBe(2);
    await expect.poll(() => readFileSync(join(h.folder, 'plan.txt'), 'utf8'), { timeout: 30_000 }).toBe('the first plan');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('dialog[open]').count()).toBe(0);
    await expect.poll(() => page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe('Version history of plan.txt');

    await openView('Status');
    await expect.poll(() => page.getByRole('button', { name: 'Version history of plan.txt' }).count(), { timeout: 20_000 }).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Version history of plan.txt' }).first().focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('dialog', { name: 'Version history of “plan.txt”' }).getByTestId('versions').textContent()).toContain('23 B');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('dialog[open]').count()).toBe(0);
  });

  it('adds a folder with the desktop folder picker and shows each folder with its state', async () => {
    const second = join(h.home, 'Work Projects');
    mkdirSync(second);
    write(second, 'plan.txt', 'the plan');
    write(second, 'only-here.txt', 'only here');
    h.platform.pickFolder = () => second;
    await openView('Settings');
    // A folder with files in it: what its first sync would do is shown first (a dry run), nothing changed yet.
    await keys.press('Add a folder…');
    const preview = page.getByRole('dialog', { name: 'Before the first sync of Work Projects' });
    await preview.waitFor({ timeout: 30_000 });
    expect(await preview.textContent()).toMatch(
      /1 item \(9 B\) would go up to the drive, and \d+ items \([^)]+\) would come down here\. 1 item at the same place on both sides would be compared; where they differ, both are kept\. Nothing is deleted, and nothing has changed yet\./,
    );
    const listed = await preview.getByTestId('first-sync-items').getByRole('listitem').allTextContents();
    expect(listed).toEqual(expect.arrayContaining(['only-here.txt goes up', 'plan.txt is compared', 'photos is made here', 'photos/beach.jpg comes down']));
    expect((await h.host.handle('settings:get', undefined)).folders).toEqual([h.folder]);
    expect(existsSync(join(second, '.drivesync'))).toBe(false);
    await look('first-sync-preview', { dialog: true });
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('folders-message').textContent()).toBe('Work Projects was not added.');
    expect((await h.host.handle('settings:get', undefined)).folders).toEqual([h.folder]);
    await keys.press('Add a folder…');
    await preview.waitFor({ timeout: 30_000 });
    await keys.press('Start syncing Work Projects');
    await expect.poll(() => page.getByTestId('folders-message').textContent()).toBe('Work Projects added: its files start syncing now.');
    await untilStatus(h.host, (s) => s.folders.length === 2 && s.folders.every((f) => f.inSync === true), 40_000);
    const list = page.getByTestId('settings-folders');
    await expect.poll(async () => (await list.textContent())?.match(/Up to date/g)?.length).toBe(2);
    expect(await list.textContent()).toContain('Work Projects');
    await look('settings-two-folders');
    await openView('Status');
    await expect.poll(() => page.getByTestId('recent-list').textContent(), { timeout: 20_000 }).toContain('plan.txt');
    // The bulk files deleted above are not recent files any more; the list shows a few, and the rest on request.
    expect(await page.getByTestId('recent-list').textContent()).not.toContain('file-');
    expect(await page.getByTestId('recent-list').locator('li').count()).toBeLessThanOrEqual(8);
    await look('status-two-folders');
    // With several folders, what is left out is listed under each folder's name.
    await openView('Conflicts and errors');
    const leftOut = page.getByRole('region', { name: 'Left out by design' });
    await expect.poll(() => leftOut.getByRole('heading', { level: 4 }).allTextContents()).toEqual(['Drive', 'Work Projects']);
    expect(await leftOut.getByRole('region', { name: 'Drive', exact: true }).getByRole('listitem').locator('strong').allTextContents()).toEqual(['shortcut', 'draft.tmp']);
    expect(await leftOut.getByRole('region', { name: 'Work Projects', exact: true }).textContent()).toContain('Nothing is left out.');
    await look('left-out-two-folders');

    h.platform.pickFolder = () => null;
    await openView('Settings');
    await keys.press('Stop syncing Work Projects');
    await expect.poll(() => page.getByTestId('folders-message').textContent()).toContain('Work Projects is no longer synced');
    expect((await h.host.handle('settings:get', undefined)).folders).toEqual([h.folder]);
  });

  it("opens on the file manager's Share… and Version history… of an item, in its folder", async () => {
    // The dialog the last case left open is closed first.
    if ((await page.locator('dialog[open]').count()) > 0) await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('dialog[open]').count()).toBe(0);
    await openView('Status');
    const page0 = await h.host.handle('entries:browse', { root: h.folder, path: 'photos', from: 0, count: 10 });
    const entry = page0.entries.find((e) => e.name === 'beach.jpg')!;
    await emit('open', { view: 'share', entry });
    const dialog = page.getByRole('dialog', { name: 'Share “beach.jpg”' });
    await dialog.waitFor();
    expect(await tab('Files').getAttribute('aria-current')).toBe('page');
    await look('file-manager-share', { dialog: true });
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    // The Files view shows the item's folder.
    await expect.poll(() => page.getByRole('button', { name: 'Share beach.jpg' }).count()).toBe(1);
    await emit('open', { view: 'versions', entry });
    const history = page.getByTestId('versions-dialog');
    await expect.poll(() => history.textContent()).toContain('Version history of “beach.jpg”');
    // Shown as a modal before Escape can close it.
    await expect.poll(() => page.locator('dialog[open]').count()).toBe(1);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('dialog[open]').count()).toBe(0);
  });

  it('signs out back to the sign-in form, and no listener is left behind by the views it closed', async () => {
    await keys.press('Sign out');
    await page.getByRole('heading', { name: 'Sign in to your drive' }).waitFor();
    const counts = await page.evaluate(
      (names) => names.map((n) => (globalThis as unknown as { __drivesyncListenerCount(c: string): number }).__drivesyncListenerCount(n)),
      ['activity', 'conflict', 'item-error', 'settings', 'progress'].map((n) => ipcEventChannel(n as never)),
    );
    // Only the app shell's own subscriptions (state, progress, conflict, item-error, and activity for the back-online
    // line) remain.
    expect(counts).toEqual([1, 1, 1, 0, 1]);
    expect(w.pageErrors).toEqual([]);
    expect(await page.evaluate(() => (globalThis as unknown as { __cspViolations: string[] }).__cspViolations)).toEqual([]);
    await look('sign-in');
  });
});

/**
 * Where the text `text` inside the element with `testId` goes on to a new line, as laid out: each break as the last
 * character of one line, `|`, and the first of the next. Read from the rendered characters' boxes, so it holds
 * whatever markup or CSS does the wrapping.
 */
async function lineBreaksIn(testId: string, text: string): Promise<string[]> {
  const breaks = await page.evaluate(`(() => {
    const text = ${JSON.stringify(text)};
    const holders = [...document.querySelectorAll('[data-testid="${testId}"] *')].filter(
      (el) => el.textContent.includes(text) && ![...el.children].some((child) => child.textContent.includes(text)),
    );
    if (holders.length === 0) return null;
    const chars = [];
    const walker = document.createTreeWalker(holders[0], NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.textContent.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const box = range.getClientRects()[0];
        if (box) chars.push({ ch: node.textContent[i], top: box.top });
      }
    }
    const found = [];
    for (let i = 1; i < chars.length; i++) if (chars[i].top > chars[i - 1].top + 2) found.push(chars[i - 1].ch + '|' + chars[i].ch);
    return found;
  })()`);
  expect(breaks, `${text} is not shown in ${testId}`).not.toBeNull();
  return breaks as string[];
}

/** The test account's own client, for checking what the window did on the server. */
async function ownerClient(): Promise<DriveClient> {
  const login = await server.call(null, 'POST', '/api/v1/auth/login', { email: EMAIL, password: PASSWORD, token_name: 'check' });
  return new DriveClient({ origin: server.url, token: login.body.user.access_token });
}
