/**
 * "Check files…" in the window, in Chromium against the real host, engines and reference server, with the keyboard
 * only: Settings → Check files of a folder, what a check does, a check of every file that finds them the same; a
 * difference planted in the server's store, listed under its kind with its path and why, and "Keep both versions"
 * leaving both on disk; a check under the bandwidth limit stopped midway (its bar and figures first), and the next
 * one going on from there, saying so. Screenshots at 800×600 and 1280×800, axe scans.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plant } from '../helpers/plant.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { inSync, newHost, untilStatus, write, type TestHost } from '../app/helpers.js';
import { openWindow, type TestWindow } from './setup.js';

const EMAIL = 'chloe@example.com';
const PASSWORD = 'pass-word-1';
/** Files besides notes.txt: more than a page of the check (200), so a stop after the first page leaves some to go on with. */
const MANY = 240;

let server: TestServer;
let h: TestHost;
let w: TestWindow;
let page: Page;
let keys: TestWindow['keys'];

beforeAll(async () => {
  server = await startTestServer();
  await server.register(EMAIL, PASSWORD);
  h = newHost('checker');
  write(h.folder, 'notes.txt', 'the notes, as written');
  for (let i = 0; i < MANY; i++) write(h.folder, `Many/f${String(i).padStart(3, '0')}.txt`, `${i} `.padEnd(300, '.'));
  await h.host.init();
  await h.host.handle('auth:sign-in', { server: server.url, email: EMAIL, password: PASSWORD });
  await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.synced >= MANY + 2, 90_000);
  w = await openWindow(h.host);
  ({ page, keys } = w);
}, 120_000);

afterAll(async () => {
  await w?.close();
  await h?.host.dispose();
  await server?.close();
});

const dialog = () => page.getByRole('dialog', { name: 'Check files of “Drive”' });
const text = (testId: string) => dialog().getByTestId(testId).textContent();

async function openChecker() {
  await keys.press(/^Settings/);
  await page.getByTestId('settings-folders').waitFor();
  await keys.press('Check files of Drive');
  await dialog().waitFor();
  await expect.poll(() => dialog().getByRole('button', { name: 'Start the check' }).isEnabled()).toBe(true);
}

describe('checking files in the window', { timeout: 120_000 }, () => {
  it('checks every file, lists a planted difference, and keeps both versions of it', async () => {
    await openChecker();
    expect(await dialog().locator('#check-text').textContent()).toMatch(
      /downloads every synced file from the drive and compares it, byte for byte.*may take a while.*uses the bandwidth limit/,
    );
    expect(await dialog().getByRole('radio', { name: 'Every synced file' }).isChecked()).toBe(true);
    await w.look('check-files', { dialog: true });
    await keys.press('Start the check');
    await expect.poll(() => text('check-summary').catch(() => ''), { timeout: 30_000 }).toMatch(/^Checked 241 of 241 files, [\d.]+ KB compared: the same here and on the drive\.$/);
    expect(await dialog().getByRole('button', { name: 'Keep both versions' }).count()).toBe(0);

    plant(server, 'notes.txt', 'THE NOTES, AS WRITTEN');
    await keys.press('Start the check');
    await expect.poll(() => text('check-summary').catch(() => ''), { timeout: 30_000 }).toMatch(/: 1 difference\.$/);
    const group = dialog().locator('section[data-kind="different"]');
    expect(await group.getByRole('heading').textContent()).toBe('Different bytes (1)');
    expect((await group.getByRole('listitem').allTextContents()).map((t) => t.replace(/\s+/g, ' '))).toEqual(["notes.txt the bytes here are not the drive's"]);
    expect(await dialog().locator('section[data-kind="only-here"]').count()).toBe(0);
    await w.look('check-files-differences', { dialog: true });

    await keys.press('Keep both versions');
    await expect
      .poll(() => text('check-message'), { timeout: 40_000 })
      .toBe('Both versions of 1 file are kept: the drive’s under the file’s name, this computer’s beside it as a conflicted copy. The folder is in sync.');
    expect(await keys.focusedName()).toBe('Close');
    expect(readFileSync(join(h.folder, 'notes.txt'), 'utf8')).toBe('THE NOTES, AS WRITTEN');
    const copies = readdirSync(h.folder).filter((name) => name.startsWith('notes (conflicted copy '));
    expect(copies).toHaveLength(1);
    expect(readFileSync(join(h.folder, copies[0]!), 'utf8')).toBe('the notes, as written');
    await w.look('check-files-repaired', { dialog: true });
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('dialog[open]').count()).toBe(0);
    await expect.poll(() => keys.focusedName()).toBe('Check files of Drive');
  });

  it('stops a check midway, and the next one goes on from there', async () => {
    await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.synced >= MANY + 3);
    // 300 bytes a file at 8 KB/s: the first 200 files take seconds.
    await h.host.handle('settings:set', { bandwidthDownKBps: 8 });
    await openChecker();
    await keys.press('Start the check');
    // Under way: the bar and the figures, and the focus on Stop.
    await expect.poll(() => text('check-figures').catch(() => ''), { timeout: 20_000 }).toMatch(/^[1-9]\d* of 242 files checked · [\d.]+ KB compared$/);
    expect(await keys.focusedName()).toBe('Stop');
    expect(await dialog().getByRole('progressbar', { name: 'Files checked' }).getAttribute('max')).toBe('242');
    await w.look('check-files-running', { dialog: true });
    await expect.poll(async () => Number(/^(\d+) of/.exec((await text('check-figures').catch(() => '')) ?? '')?.[1] ?? 0), { timeout: 40_000 }).toBeGreaterThan(200);
    await keys.press('Stop');
    await expect.poll(() => text('check-summary').catch(() => ''), { timeout: 20_000 }).toBe('Stopped after 200 of 242 files. Check again to go on from there.');
    expect(await keys.focusedName()).toBe('Start the check');
    expect(await dialog().getByRole('checkbox', { name: 'Start over instead' }).isChecked()).toBe(false);
    await w.look('check-files-stopped', { dialog: true });

    await h.host.handle('settings:set', { bandwidthDownKBps: 0 });
    await keys.press('Start the check');
    await expect.poll(() => text('check-summary').catch(() => ''), { timeout: 30_000 }).toMatch(/^Checked 242 of 242 files, .*: the same here and on the drive\.$/);
    expect(await text('check-resumed')).toMatch(/^This check went on from one stopped after 200 files, begun \S/);
    await w.look('check-files-resumed', { dialog: true });
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('dialog[open]').count()).toBe(0);
    expect(w.pageErrors).toEqual([]);
  });
});
