/**
 * The window in headless Chromium (Debian's, through playwright-core), built by Vite and served under the app's
 * CSP, talking to the real host (real engines on a temp folder) and the real reference server through the
 * preload's own API. Each view is saved as a screenshot under test-artifacts/renderer/.
 */
import { createServer, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { build as esbuild } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build as viteBuild } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DriveClient } from '../../main/api/client.js';
import { EVENT_NAMES, ipcEventChannel, type Progress } from '../../main/app/contract.js';
import { CSP } from '../../main/app/csp.js';
import { dispatch } from '../../main/app/host/dispatch.js';
import { SyncEngine } from '../../main/sync/engine.js';
import { addList } from '../../server/lists.js';
import { rendererConfig } from '../../vite.renderer.config.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { REPO } from '../app/fake-electron.js';
import { inSync, newHost, untilStatus, write, type TestHost } from '../app/helpers.js';

const ARTIFACTS = join(REPO, 'test-artifacts', 'renderer');
const EMAIL = 'renata@example.com';
const PASSWORD = 'pass-word-1';
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.png': 'image/png', '.svg': 'image/svg+xml' };

let server: TestServer;
let h: TestHost;
let web: Server;
let webUrl: string;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
let other: { engine: SyncEngine; root: string } | null = null;

/** The built renderer on 127.0.0.1, every response with the app's CSP header. */
function serve(dir: string): Promise<Server> {
  const s = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(dir, path === '/' ? 'index.html' : path);
    try {
      if (!file.startsWith(dir) || !statSync(file).isFile()) throw new Error('not found');
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-security-policy': CSP });
      res.end(readFileSync(file));
    } catch {
      res.writeHead(404, { 'content-security-policy': CSP }).end('not found');
    }
  });
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(s)));
}

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const out = mkdtempSync(join(tmpdir(), 'drivesync-renderer-'));
  await viteBuild(rendererConfig(join(out, 'renderer')));
  const bridge = await esbuild({ entryPoints: [join(REPO, 'test', 'renderer', 'page-bridge.ts')], bundle: true, format: 'iife', write: false, target: 'chrome120', logLevel: 'warning' });
  web = await serve(join(out, 'renderer'));
  const address = web.address() as { port: number };
  webUrl = `http://127.0.0.1:${address.port}/`;

  server = await startTestServer();
  await server.register(EMAIL, PASSWORD);
  h = newHost('renderer');
  write(h.folder, 'report.txt', 'quarterly numbers');
  write(h.folder, 'photos/beach.jpg', 'not really a jpeg');
  await h.host.init();

  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  page = await browser.newPage({ viewport: { width: 1100, height: 760 } });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
  // The preload's API in the page: calls go to the real host through the same dispatch the main process uses.
  await page.exposeFunction('__drivesyncInvoke', (channel: string, arg: unknown) => dispatch(h.host, channel.replace(/^drivesync:invoke:/, ''), arg));
  await page.addInitScript({ content: bridge.outputFiles[0]!.text });
  for (const name of EVENT_NAMES) {
    h.host.on(name, (payload: unknown) => {
      void page
        .evaluate(([channel, data]) => (globalThis as unknown as { __drivesyncEmit?: (c: string, p: unknown) => void }).__drivesyncEmit?.(channel, data), [ipcEventChannel(name), payload] as const)
        .catch(() => undefined);
    });
  }
  await page.goto(webUrl);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await other?.engine.stop();
  await h?.host.dispose();
  await server?.close();
  await new Promise((resolve) => web?.close(resolve));
});

const tab = (name: string) => page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name });

// The whole suite runs beside every other test file on two cores: the steps that wait for syncing get room.
describe('the window', { timeout: 90_000 }, () => {
  it('runs under the CSP: the meta tag is there and nothing is blocked', async () => {
    const meta = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
    expect(meta).toContain("script-src 'self'");
    await expect.poll(() => page.getByRole('heading', { name: 'Sign in to your drive' }).count()).toBe(1);
    expect(await page.evaluate(() => (globalThis as unknown as { __cspViolations: string[] }).__cspViolations)).toEqual([]);
  });

  it('signs in, with clear errors first, and watches the folder reach "Up to date"', async () => {
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Some fields need your attention');
    expect(await page.locator('#sign-in-server-error').textContent()).toBe('Enter the address of your drive.');
    expect(await page.getByLabel('Server', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await shot('sign-in-errors');

    await page.getByLabel('Server', { exact: true }).fill(server.url);
    await page.getByLabel('E-mail', { exact: true }).fill(EMAIL);
    await page.getByLabel('Password', { exact: true }).fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/Refused by the server|Not signed in/);
    await page.getByRole('button', { name: 'Dismiss' }).click();
    expect(await page.getByRole('alert').count()).toBe(0);

    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const line = page.getByTestId('status-line');
    await line.waitFor();
    expect(await line.getAttribute('aria-live')).toBe('polite');
    await expect.poll(() => line.textContent(), { timeout: 40_000 }).toContain('Up to date');
    await untilStatus(h.host, inSync, 40_000);
    expect(await page.getByRole('cell', { name: h.folder }).count()).toBe(1);
    await shot('status');
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
    await page.evaluate(([c, p]) => (globalThis as unknown as { __drivesyncEmit(c: string, p: unknown): void }).__drivesyncEmit(c, p), [ipcEventChannel('progress'), progress] as const);
    const figures = page.getByTestId('progress-figures');
    await expect.poll(() => figures.textContent()).toBe('3.0 MB of 12 MB · 1.0 MB/s · 9 s left');
    expect(await page.getByRole('list', { name: 'Current transfers' }).textContent()).toContain('videos/holiday.mp4');
    expect(await page.getByRole('progressbar', { name: 'Transferred so far' }).count()).toBe(1);
    await shot('status-progress');
    await page.evaluate(([c, p]) => (globalThis as unknown as { __drivesyncEmit(c: string, p: unknown): void }).__drivesyncEmit(c, p), [
      ipcEventChannel('progress'),
      { ...progress, active: false, transfers: [], etaSeconds: 0, bytesDone: progress.bytesTotal },
    ] as const);
    await expect.poll(() => page.getByText('Last round: 2 files').count()).toBe(1);
  });

  it('lists the activity', async () => {
    await tab('Activity').click();
    const list = page.getByTestId('activity-list');
    await list.waitFor();
    const text = await list.textContent();
    expect(text).toContain('Uploaded');
    expect(text).toContain('report.txt');
    expect(text).toContain('photos/beach.jpg');
    await shot('activity');
  });

  it('opens the share dialog on a file and creates a link with a password and an expiry', async () => {
    await tab('Files and sharing').click();
    await page.getByTestId('entries').waitFor();
    expect(await page.getByTestId('entries').textContent()).toContain('photos');
    const opener = page.getByRole('button', { name: 'Share report.txt' });
    await opener.click();
    const dialog = page.getByRole('dialog', { name: 'Share “report.txt”' });
    await dialog.waitFor();
    // A modal dialog: the focus is inside it.
    expect(await page.evaluate("!!document.activeElement?.closest('dialog[open]')")).toBe(true);
    await expect.poll(() => dialog.getByText('No link yet.').count()).toBe(1);

    await dialog.getByLabel('Password').fill('open-sesame');
    await dialog.getByLabel('Expires on').fill('2030-01-31');
    await dialog.getByRole('button', { name: 'Create link' }).click();
    const url = dialog.getByTestId('link-url');
    await url.waitFor();
    const link = await url.inputValue();
    expect(link).toMatch(new RegExp(`^${server.url}/drive/s/[A-Za-z0-9_-]+$`));
    expect(await dialog.getByTestId('share-message').textContent()).toBe('Link created.');
    expect(await dialog.textContent()).toContain('Password protected.');
    const saved = await h.host.handle('link:get', { root: h.folder, path: 'report.txt' });
    expect(saved).toMatchObject({ url: link, hasPassword: true, allowDownload: true, allowEdit: false });
    expect(new Date(saved!.expiresAt!).getFullYear()).toBe(2030);
    // The link works with its password only.
    expect(await (await fetch(link)).text()).toContain('This link is protected');
    expect(await (await fetch(`${link}?password=open-sesame`)).text()).toBe('quarterly numbers');
    await dialog.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => h.platform.copied).toEqual([link]);
    await shot('share-dialog-link');
  });

  it('shares with a person and changes what they may do', async () => {
    await server.register('bruno@example.com');
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Share with (e-mail addresses)').fill('bruno@example.com, nobody@example.com');
    await dialog.getByRole('button', { name: 'Share', exact: true }).click();
    await expect.poll(() => dialog.getByTestId('share-message').textContent()).toBe('Shared. No account for: nobody@example.com.');
    const people = dialog.getByTestId('people');
    expect(await people.textContent()).toContain('bruno@example.com');
    const group = people.getByRole('group', { name: 'What bruno@example.com may do' });
    expect(await group.getByLabel('View').isChecked()).toBe(true);
    expect(await group.getByLabel('Download').isChecked()).toBe(true);
    expect(await group.getByLabel('Edit').isChecked()).toBe(false);
    await group.getByLabel('Edit').check();
    await expect.poll(() => dialog.getByTestId('share-message').textContent()).toBe('Changed what bruno@example.com may do.');
    const onServer = await h.host.handle('share:list', { root: h.folder, path: 'report.txt' });
    expect(onServer.map((p) => [p.email, p.permissions])).toEqual([['bruno@example.com', ['view', 'edit', 'download']]]);
  });

  it('shares with a mailing list', async () => {
    const listId = addList(server.context.db, 'Project team', EMAIL);
    await server.register('carla@example.com');
    const login = await server.call(null, 'POST', '/api/v1/auth/login', { email: EMAIL, password: PASSWORD, token_name: 'lists' });
    const owner = new DriveClient({ origin: server.url, token: login.body.user.access_token });
    const carla = await owner.lists.store(listId, { EMAIL: 'carla@example.com', FIRST_NAME: 'Carla' });
    await owner.lists.subscribe(listId, carla);
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('List ID').fill('0000000000000');
    await dialog.getByRole('button', { name: 'Share with list' }).click();
    await expect.poll(() => dialog.getByTestId('share-error').count()).toBe(1);
    await dialog.getByLabel('List ID').fill(listId);
    await dialog.getByRole('button', { name: 'Share with list' }).click();
    await expect.poll(() => dialog.getByTestId('share-message').textContent()).toBe('Shared with 1 subscribed members of the list.');
    expect(await dialog.getByTestId('people').textContent()).toContain('carla@example.com');
    const onServer = await h.host.handle('share:list', { root: h.folder, path: 'report.txt' });
    expect(onServer.map((p) => p.email).sort()).toEqual(['bruno@example.com', 'carla@example.com']);
    await shot('share-dialog-people');
    // Escape closes the dialog and the focus goes back to the button that opened it.
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await page.evaluate("document.activeElement?.getAttribute('aria-label')")).toBe('Share report.txt');
  });

  it('shows a conflict when both sides changed the same file', async () => {
    // A second computer on the same account.
    const home = mkdtempSync(join(tmpdir(), 'drivesync-beta-'));
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

    await tab('Status').click();
    await page.getByRole('button', { name: 'Pause syncing' }).click();
    await expect.poll(() => page.getByTestId('status-line').textContent()).toContain('Paused');
    await expect.poll(() => page.getByTestId('state-badge').textContent()).toBe('Paused');
    writeFileSync(join(h.folder, 'report.txt'), 'numbers, edited here');
    writeFileSync(join(root, 'report.txt'), 'numbers, edited on the other computer');
    expect((await engine.syncOnce({ fullScan: true })).done).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Resume syncing' }).click();
    await expect.poll(() => tab('Conflicts and errors').textContent(), { timeout: 40_000 }).toMatch(/\d+/);
    await untilStatus(h.host, inSync, 40_000);
    await tab('Conflicts and errors').click();
    const conflicts = page.getByTestId('conflict-list');
    await conflicts.waitFor();
    const text = await conflicts.textContent();
    expect(text).toMatch(/report\.txt changed here and on the drive/);
    expect(text).toMatch(/yours is report \(conflicted copy \d{4}-\d\d-\d\d \d{6} renderer\)\.txt/);
    const [conflict] = await h.host.handle('conflicts:list', undefined);
    expect(readFileSync(join(h.folder, conflict!.copyPath), 'utf8')).toBe('numbers, edited here');
    expect(readFileSync(join(h.folder, 'report.txt'), 'utf8')).toBe('numbers, edited on the other computer');
    await shot('conflicts');
  });

  it('saves settings', async () => {
    await tab('Settings').click();
    await page.getByLabel('Check the drive every (seconds)').fill('20');
    await page.getByLabel('Ignore rules').fill('*.bak');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => page.getByTestId('settings-message').textContent()).toBe('Settings saved.');
    expect(await h.host.handle('settings:get', undefined)).toMatchObject({ pollIntervalSeconds: 20, ignoreRules: '*.bak\n', folders: [h.folder] });
    await shot('settings');
    await page.getByLabel('Synced folders').fill('relative/folder');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('not an absolute path');
  });

  it('asks before a mass delete, and deletes once the user confirms', async () => {
    for (let i = 0; i < 12; i++) write(h.folder, `bulk/file-${i}.txt`, `bulk ${i}`);
    await tab('Status').click();
    await page.getByRole('button', { name: 'Sync now' }).click();
    await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.synced >= 17, 40_000);
    // Paused while the folder goes, so the watcher cannot pass on the deletions a few at a time as they happen:
    // resuming scans the whole folder and sees all of them at once.
    await page.getByRole('button', { name: 'Pause syncing' }).click();
    await expect.poll(() => page.getByTestId('state-badge').textContent()).toBe('Paused');
    rmSync(join(h.folder, 'bulk'), { recursive: true });
    await page.getByRole('button', { name: 'Resume syncing' }).click();
    const prompt = page.getByRole('alertdialog', { name: 'Delete 13 items?' });
    await prompt.waitFor({ timeout: 30_000 });
    expect(await prompt.textContent()).toContain('would delete 13 of its');
    // The safe answer has the focus.
    expect(await page.evaluate("document.activeElement?.textContent")).toBe('Keep them and pause');
    await expect.poll(() => page.getByTestId('state-badge').textContent()).toBe('Paused');
    await shot('mass-delete-question');
    await prompt.getByRole('button', { name: 'Delete 13 items' }).click();
    await expect.poll(() => prompt.count()).toBe(0);
    const status = await untilStatus(h.host, (s) => inSync(s) && s.pendingDeletions.length === 0, 40_000);
    expect((await h.host.handle('entries:browse', { root: h.folder, path: '' })).map((e) => e.name)).not.toContain('bulk');
    expect(status.folders[0]!.synced).toBeLessThan(17);
  });

  it('signs out back to the sign-in form, and no listener is left behind by the views it closed', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to your drive' }).waitFor();
    const counts = await page.evaluate(
      (names) => names.map((n) => (globalThis as unknown as { __drivesyncListenerCount(c: string): number }).__drivesyncListenerCount(n)),
      ['activity', 'conflict', 'item-error', 'settings', 'progress'].map((n) => ipcEventChannel(n as never)),
    );
    // Only the app shell's own subscriptions (state, progress, conflict, item-error) remain.
    expect(counts).toEqual([0, 1, 1, 0, 1]);
    expect(pageErrors).toEqual([]);
    expect(await page.evaluate(() => (globalThis as unknown as { __cspViolations: string[] }).__cspViolations)).toEqual([]);
  });
});
