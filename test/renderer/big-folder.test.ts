/**
 * A folder with more entries than the Files view renders at once, in Chromium against the real host, engine and
 * reference server: the list renders the rows in sight (and a few either side), says how many rows there are, follows
 * a scroll to the end, and keeps working with the keyboard there. Screenshots at 800×600 and 1280×800, axe scans.
 * How long such a list takes to open is measured by `npm run bench` (id `files`), not here.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { inSync, newHost, untilStatus, write, type TestHost } from '../app/helpers.js';
import { openWindow, type TestWindow } from './setup.js';

const EMAIL = 'bianca@example.com';
const PASSWORD = 'pass-word-1';
/** More than the view renders whole (ROWS_IN_FULL in renderer/src/views/files.tsx). */
const FILES = 1_200;
const name = (i: number) => `file-${String(i).padStart(4, '0')}.txt`;

let server: TestServer;
let h: TestHost;
let w: TestWindow;
let page: Page;
let keys: TestWindow['keys'];

beforeAll(async () => {
  server = await startTestServer();
  await server.register(EMAIL, PASSWORD);
  h = newHost('big-folder');
  for (let i = 0; i < FILES; i++) write(h.folder, `many/${name(i)}`, `${i}`);
  await h.host.init();
  await h.host.handle('auth:sign-in', { server: server.url, email: EMAIL, password: PASSWORD });
  await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.synced >= FILES + 1, 120_000);
  w = await openWindow(h.host);
  ({ page, keys } = w);
}, 180_000);

afterAll(async () => {
  await w?.close();
  await h?.host.dispose();
  await server?.close();
});

describe('a folder of more entries than the view renders at once', { timeout: 90_000 }, () => {
  it('renders the rows in sight, follows a scroll to the end, and stars a file there with the keyboard', async () => {
    await keys.press(/^Files/);
    const entries = page.getByTestId('entries');
    await entries.waitFor();
    await keys.press('many (folder)');
    await expect.poll(() => entries.getAttribute('aria-rowcount')).toBe(String(FILES + 1));
    const rendered = () => page.locator('table.entries tbody tr.entry').count();
    await expect.poll(rendered).toBeGreaterThan(5);
    expect(await rendered()).toBeLessThan(150);
    expect(await page.locator('table.entries tbody tr.entry').first().textContent()).toContain(name(0));
    // Each rendered row says where it is in the whole list.
    expect(await page.locator('table.entries tbody tr.entry').first().getAttribute('aria-rowindex')).toBe('2');

    // To the end of the list: the last file is there, the first is no longer rendered.
    await page.locator('.entries-scroll').evaluate((box) => (box.scrollTop = box.scrollHeight));
    const last = page.getByRole('button', { name: `Star ${name(FILES - 1)}` });
    await last.waitFor();
    expect(await rendered()).toBeLessThan(150);
    expect(await page.getByRole('button', { name: `Star ${name(0)}` }).count()).toBe(0);
    expect(await page.locator('table.entries tbody tr.entry').last().getAttribute('aria-rowindex')).toBe(String(FILES + 1));

    // The keyboard works there: focus a star near the end and press it.
    await last.focus();
    await page.keyboard.press('Space');
    await expect.poll(() => last.getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => page.getByTestId('files-message').textContent()).toBe(`${name(FILES - 1)} is starred.`);
    await w.look('files-big-folder');
  });
});
