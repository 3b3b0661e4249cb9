/**
 * One state, said the same everywhere at the same moment: the real host driven into each state — a transfer under
 * way (a large file under a bandwidth limit), paused in the middle of it, offline (the server stopped), and back —
 * and the window read in one go each time: on Status the status line, the folder row and the transfers panel; on
 * Settings the top bar's badge and the folder row. Each is saved as a screenshot and scanned with axe.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OverallState } from '../../main/contract/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { inSync, newHost, untilStatus, write, type TestHost } from '../app/helpers.js';
import { openWindow, type TestWindow } from './setup.js';
import { tempDir } from '../helpers/temp.js';

const EMAIL = 'stella@example.com';
const PASSWORD = 'pass-word-1';
/** Bytes of the file that is uploaded slowly, and the limit it goes under (about a minute in all). */
const BIG = 3 * 1024 * 1024;
const SLOW_KBPS = 48;

let server: TestServer;
let dataDir: string;
let h: TestHost;
let w: TestWindow;
let page: Page;

beforeAll(async () => {
  dataDir = tempDir('states-server');
  server = await startTestServer({ dataDir });
  await server.register(EMAIL, PASSWORD);
  h = newHost('states');
  write(h.folder, 'notes.txt', 'a few words');
  await h.host.init();
  await h.host.handle('auth:sign-in', { server: server.url, email: EMAIL, password: PASSWORD });
  await untilStatus(h.host, inSync);
  w = await openWindow(h.host);
  page = w.page;
}, 60_000);

afterAll(async () => {
  await w?.close();
  await h?.host.dispose();
  await server?.close();
});

interface Said {
  state: string | null;
  words: string | null;
}

/** Everything that names the state on the view shown now, read in one go (one script, so at one moment). */
type View = { line: Said | null; badge: Said | null; rows: Said[]; panel: Said | null; text: string };
const READ_VIEW = `(() => {
  const said = (element, words) => (element ? { state: element.getAttribute('data-state'), words: words(element) } : null);
  return {
    line: said(document.querySelector('[data-testid="status-line"]'), (e) => e.querySelector('strong')?.textContent ?? null),
    badge: said(document.querySelector('[data-testid="state-badge"]'), (e) => e.textContent),
    rows: [...document.querySelectorAll('.folder-row')].map((row) => said(row, (e) => e.querySelector('.state-word')?.textContent?.replace(/ · $/, '') ?? null)),
    panel: said(document.querySelector('[data-testid="transfers-now"]'), (e) => e.textContent),
    text: document.body.innerText,
  };
})()`;
const readView = () => page.evaluate(READ_VIEW) as Promise<View>;

const WORDS: Partial<Record<OverallState, string>> = { idle: 'Up to date', syncing: 'Syncing…', paused: 'Paused', offline: 'Offline' };
/** What each state must never be seen beside. */
const NEVER: Partial<Record<OverallState, string[]>> = {
  syncing: ['Up to date', 'Offline', 'Paused'],
  paused: ['Up to date', 'Syncing…', 'Offline'],
  offline: ['Up to date', 'Syncing…', 'Paused', 'internet'],
  idle: ['Syncing…', 'Offline', 'Paused'],
};

async function openView(label: string) {
  await w.keys.press(new RegExp(`^${label}`));
  await expect.poll(() => page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: label }).getAttribute('aria-current')).toBe('page');
}

/** Status and Settings both say `state`, everywhere they name it; answers what the status line said. */
async function saidEverywhere(state: OverallState, name: string): Promise<{ detail: string }> {
  await openView('Status');
  await expect.poll(async () => (await readView()).line?.state, { timeout: 30_000 }).toBe(state);
  const status = await readView();
  expect(status.line, name).toEqual({ state, words: WORDS[state] });
  // One folder: its row carries the state (its words are the line's, said once).
  expect(status.rows.map((r) => r.state), name).toEqual([state]);
  expect(status.panel?.state, name).toBe(state);
  for (const word of NEVER[state] ?? []) expect(status.text, `${name}: "${word}" on Status`).not.toContain(word);
  await w.look(`state-${name}`);
  const detail = (await page.getByTestId('status-line').locator('.detail').count()) > 0 ? await page.getByTestId('status-line').locator('.detail').textContent() : '';

  await openView('Settings');
  await page.getByTestId('settings-folders').waitFor();
  const settings = await readView();
  expect(settings.badge, name).toEqual({ state, words: WORDS[state] });
  expect(settings.rows, name).toEqual([{ state, words: WORDS[state] }]);
  for (const word of NEVER[state] ?? []) expect(settings.text, `${name}: "${word}" on Settings`).not.toContain(word);
  await openView('Status');
  return { detail: detail ?? '' };
}

describe('the window says one state everywhere', { timeout: 150_000 }, () => {
  it('says up to date everywhere once in sync', async () => {
    await page.getByTestId('status-line').waitFor();
    await saidEverywhere('idle', 'idle');
  });

  it('says syncing everywhere while a large file uploads, and nobody says up to date', async () => {
    await h.host.handle('settings:set', { bandwidthUpKBps: SLOW_KBPS });
    write(h.folder, 'big.bin', 'x'.repeat(BIG));
    await expect.poll(async () => (await readView()).panel?.state, { timeout: 30_000 }).toBe('syncing');
    // Bytes are moving (not only a transfer announced).
    await expect.poll(() => page.getByTestId('progress-figures').textContent(), { timeout: 20_000 }).toMatch(/^[1-9][\d.]* (KB|MB) of 3\.0 MB · [1-9]/);
    await saidEverywhere('syncing', 'transferring');
    // Still under way after all that looking.
    expect((await h.host.handle('progress:get', undefined)).transfers.map((t) => t.path)).toEqual(['big.bin']);
  });

  it('says paused everywhere once paused in the middle of the transfer', async () => {
    await w.keys.press('Pause syncing');
    const { detail } = await saidEverywhere('paused', 'paused');
    expect(detail).toBe('Syncing is paused.');
    expect(await page.getByTestId('transfers-now').textContent()).toBe('Paused: nothing is transferred until you resume.');
    // Back to full speed, and on: the file goes up, and everything says up to date again.
    await h.host.handle('settings:set', { bandwidthUpKBps: 0 });
    await w.keys.press('Resume syncing');
    await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.synced >= 2, 60_000);
    await saidEverywhere('idle', 'resumed');
  });

  it('says offline everywhere when the server stops, asking whether the server on this computer runs', async () => {
    const port = Number(new URL(server.url).port);
    await server.close();
    await w.keys.press('Sync now');
    const { detail } = await saidEverywhere('offline', 'offline');
    expect(detail).toBe(`Cannot reach the drive server at 127.0.0.1:${port} — is it running? drivesync tries again on its own.`);
    expect(await page.getByTestId('transfers-now').textContent()).toBe('Offline: transfers go on when the drive server can be reached again.');

    // The server is back: so is the folder.
    server = await startTestServer({ dataDir, port });
    await w.keys.press('Sync now');
    await untilStatus(h.host, inSync, 40_000);
    await saidEverywhere('idle', 'back-online');
    expect(w.pageErrors).toEqual([]);
  });
});
