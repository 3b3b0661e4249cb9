/**
 * `npm run window` (scripts/window/preview.ts): started as the script runs, it prints its one line, serves the built
 * renderer (dist/renderer: `npm run build` first) wired to the real host over http, answers only its own page, shows
 * the status view in Chromium with the host's events arriving, and stops cleanly on Ctrl-C, leaving nothing behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_RENDERER } from '../../scripts/window/serve.js';
import { REPO } from '../app/fake-electron.js';
import { launchChromium } from './setup.js';

let child: ChildProcess;
let url: string;
let stdout = '';
let stderr = '';
let browser: Browser | undefined;

beforeAll(async () => {
  expect(existsSync(join(BUILT_RENDERER, 'index.html')), 'dist/renderer is built (npm run build)').toBe(true);
  child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'scripts', 'window', 'preview.ts')], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no line within 60 s; stdout: ${stdout} stderr: ${stderr}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const found = /^open (http:\/\/127\.0\.0\.1:\d+\/) in a browser$/m.exec(stdout);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`the preview ended (${code}) before its line; stderr: ${stderr}`)));
  });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  if (child && child.exitCode === null) child.kill('SIGKILL');
});

describe('npm run window', { timeout: 60_000 }, () => {
  it('prints one line, and serves the page with its bridge under the app’s CSP (calls back to itself only)', async () => {
    expect(stdout).toBe(`open ${url} in a browser\n`);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    const html = await page.text();
    expect(html).toContain('<script src="/__drivesync/bridge.js"></script>');
    expect(html).toContain('connect-src &#39;self&#39;');
    expect((await fetch(new URL('/__drivesync/bridge.js', url))).status).toBe(200);
  });

  it('answers calls from its own page only', async () => {
    const call = (headers: Record<string, string>) =>
      fetch(new URL(`/__drivesync/invoke/${encodeURIComponent('drivesync:invoke:status:get')}`, url), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"arg":null}' });
    const own = await call({ origin: url.replace(/\/$/, '') });
    expect(own.status).toBe(200);
    expect(await own.json()).toMatchObject({ ok: true, value: { account: { email: 'preview@example.com' } } });
    expect((await call({ origin: 'http://evil.example' })).status).toBe(403);
    expect((await call({})).status).toBe(403);
    // Another name for this address (DNS rebinding) is not answered.
    const port = new URL(url).port;
    const rebound = await new Promise<number>((resolve, reject) => {
      import('node:http').then(({ request }) => {
        const req = request({ host: '127.0.0.1', port, path: '/', headers: { host: `evil.example:${port}` } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      }, reject);
    });
    expect(rebound).toBe(421);
  });

  it('shows the status view in Chromium, with the host’s events arriving', async () => {
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(url);
    await expect.poll(() => page.getByTestId('status-line').textContent(), { timeout: 30_000 }).toBe('Up to date');
    const row = page.getByTestId('folders').locator('.folder-main');
    expect(await row.locator('.file-title').textContent()).toBe('Drive');
    await expect.poll(() => page.getByTestId('recent-list').textContent()).toContain('hello.txt');

    // A file added to the synced folder reaches the page by the host's events (server-sent).
    const folder = (await row.locator('.path').textContent())!;
    expect(folder).toMatch(/drivesync-window-\w+\/Drive$/);
    writeFileSync(join(folder, 'from-the-test.txt'), 'hello from the test');
    await expect.poll(() => page.getByTestId('recent-list').textContent(), { timeout: 30_000 }).toContain('from-the-test.txt');
    expect(await page.evaluate(() => (globalThis as unknown as { __cspViolations: string[] }).__cspViolations)).toEqual([]);
    expect(errors).toEqual([]);
    await browser.close();
    browser = undefined;

    // Ctrl-C: it stops, and takes its temp folder (server data, state, synced folder) with it.
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(existsSync(dirname(folder))).toBe(false);
  });
});
