/**
 * A folder with more entries than the Files view renders at once, in Chromium against the real host, engine and
 * reference server: the list renders the rows in sight (and a few either side), says how many rows there are, asks
 * the host for the pages in sight only (placeholder rows until a page comes), follows a scroll to the end, and keeps
 * working with the keyboard there. Screenshots at 800×600 and 1280×800, axe scans. How long such a list takes to open
 * is measured by `npm run bench` (id `files`), not here.
 */
import type { Page } from 'playwright-core';
import type { EntryPage, InvokeArg } from '../../main/contract/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { inSync, newHost, untilStatus, write, type TestHost } from '../app/helpers.js';
import { openWindow, type TestWindow } from './setup.js';

const EMAIL = 'bianca@example.com';
const PASSWORD = 'pass-word-1';
/** More than the view renders whole (ROWS_IN_FULL in renderer/src/views/files.tsx). */
const FILES = 1_200;
const name = (i: number) => `file-${String(i).padStart(4, '0')}.txt`;
/** The most rows one `entries:browse` answers the view (its PAGE, ROWS_IN_FULL). */
const PAGE = 300;

/** Every `entries:browse` the window made, with what the host answered. */
const browsed: Array<{ arg: InvokeArg<'entries:browse'>; answer: EntryPage }> = [];
/** While set, the host's answers to pages past the first wait for it. */
let hold: Promise<void> | null = null;

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
  // What crosses the bridge, seen at the host: every page the window asks for and its answer.
  const handle = h.host.handle.bind(h.host);
  h.host.handle = (async (channel: string, arg: unknown) => {
    if (channel !== 'entries:browse') return handle(channel as never, arg as never);
    const page = arg as InvokeArg<'entries:browse'>;
    if ((page.from ?? 0) > 0 && hold) await hold;
    const answer = (await handle('entries:browse', page)) as EntryPage;
    browsed.push({ arg: page, answer });
    return answer;
  }) as typeof h.host.handle;
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
    // Its page came: the last rows show their own names, none is still loading.
    expect(await page.locator('table.entries tbody tr.entry').last().textContent()).toContain(name(FILES - 1));
    expect(await page.locator('table.entries tbody tr.entry').nth(-2).textContent()).toContain(name(FILES - 2));
    expect(await page.locator('table.entries tbody tr.entry.loading').count()).toBe(0);

    // The keyboard works there: focus a star near the end and press it.
    await last.focus();
    await page.keyboard.press('Space');
    await expect.poll(() => last.getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => page.getByTestId('files-message').textContent()).toBe(`${name(FILES - 1)} is starred.`);
    await w.look('files-big-folder');
  });

  it('asks the host for the pages in sight, each once and none bigger than a page, and shows a row loading until its page comes', async () => {
    const many = browsed.filter((b) => b.arg.path === 'many');
    // The first page and the last one, not the 600 rows between them.
    expect(many.map((b) => b.arg.from ?? 0).sort((a, b) => a - b)).toEqual([0, FILES - PAGE]);
    for (const { arg, answer } of many) {
      expect(arg.count).toBe(PAGE);
      expect(answer.total).toBe(FILES);
      expect(answer.entries.length).toBeLessThanOrEqual(PAGE);
      expect(answer.entries.map((e) => e.name)).toEqual(Array.from({ length: answer.entries.length }, (_, i) => name(answer.from + i)));
    }
    expect(many.reduce((sum, b) => sum + b.answer.entries.length, 0)).toBeLessThan(FILES);

    // The middle of the list, with the host holding its page: rows in their places, each saying it is loading.
    let release!: () => void;
    hold = new Promise((resolve) => (release = resolve));
    const box = page.locator('.entries-scroll');
    const heightOf = (row: { getBoundingClientRect(): { height: number } }) => row.getBoundingClientRect().height;
    const rowPx = await page.locator('table.entries tbody tr.entry').last().evaluate(heightOf);
    await box.evaluate((el, top) => (el.scrollTop = top), Math.round(600 * rowPx));
    const loading = page.locator('table.entries tbody tr.entry.loading');
    await expect.poll(() => loading.count()).toBeGreaterThan(5);
    expect(await loading.first().getAttribute('aria-busy')).toBe('true');
    expect(await loading.first().textContent()).toBe('Loading…');
    // As high as a row (within the pixel the view rounds a row's height to).
    expect(Math.abs((await loading.first().evaluate(heightOf)) - rowPx)).toBeLessThan(1);
    const firstIndex = Number(await loading.first().getAttribute('aria-rowindex'));
    expect(firstIndex).toBeGreaterThan(550);
    expect(firstIndex).toBeLessThan(620);
    // Placeholder rows pass the axe scan as the loaded ones do.
    await w.look('files-big-folder-loading');
    // Scrolling a little further while the page is on its way asks for it no second time.
    await box.evaluate((el, top) => (el.scrollTop = top), Math.round(610 * rowPx));
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => resolve(null)))');
    hold = null;
    release();
    // The page comes: the rows show their real names where the placeholders were.
    await expect.poll(() => loading.count()).toBe(0);
    const firstRow = page.locator('table.entries tbody tr.entry').first();
    const at = Number(await firstRow.getAttribute('aria-rowindex'));
    expect(await firstRow.textContent()).toContain(name(at - 2));
    expect(await page.getByRole('button', { name: `Star ${name(at - 2)}` }).count()).toBe(1);
    // Each page was asked once, at a multiple of the page, the one in sight among them.
    const froms = browsed.filter((b) => b.arg.path === 'many').map((b) => b.arg.from ?? 0);
    expect(new Set(froms).size, JSON.stringify(froms)).toBe(froms.length);
    for (const from of froms) expect(from % PAGE).toBe(0);
    expect(froms).toContain(Math.floor((at - 2) / PAGE) * PAGE);

    // The keyboard scrolls the list from its box (a stop of its own for Tab): Home goes back to the first rows.
    await page.locator('#files-title').focus();
    await keys.tabTo('Entries of many');
    await page.keyboard.press('Home');
    await expect.poll(() => page.locator('table.entries tbody tr.entry').first().getAttribute('aria-rowindex')).toBe('2');
    expect(await page.locator('table.entries tbody tr.entry').first().textContent()).toContain(name(0));
    expect(w.pageErrors).toEqual([]);
  });
});
