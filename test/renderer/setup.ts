/**
 * What every renderer test does to get the window: the Vite build served on 127.0.0.1 under the app's CSP
 * (scripts/window/serve.ts, as `npm run window` serves it), Debian's Chromium through playwright-core, and the page
 * bridge (scripts/window/page-bridge.ts) wired to the real host through the same dispatch the main process uses:
 * calls by playwright's exposeFunction, the host's events by evaluate. Also: a look at a view at both sizes
 * (screenshots under test-artifacts/renderer/, and an axe-core scan that fails on serious or critical violations).
 */
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build as viteBuild } from 'vite';
import { expect } from 'vitest';
import { ipcEventChannel, type EventName } from '../../main/contract/index.js';
import { dispatch } from '../../main/app/host/dispatch.js';
import type { DesktopHost } from '../../main/app/host/host.js';
import { bundleBridge, callOfIpcChannel, relayEvents, serveWindow, type WindowServer } from '../../scripts/window/serve.js';
import { rendererConfig } from '../../vite.renderer.config.js';
import { REPO } from '../app/fake-electron.js';
import { keyboard } from './keyboard.js';
import { tempDir } from '../helpers/temp.js';

export const ARTIFACTS = join(REPO, 'test-artifacts', 'renderer');
export const SIZES = [
  { width: 800, height: 600 },
  { width: 1280, height: 800 },
] as const;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** The renderer built by Vite into a temp folder (the tests do not depend on a stale dist/). */
export async function buildRenderer(): Promise<string> {
  const out = join(tempDir('renderer'), 'renderer');
  await viteBuild(rendererConfig(out));
  return out;
}

export interface TestWindow {
  browser: Browser;
  page: Page;
  web: WindowServer;
  keys: ReturnType<typeof keyboard>;
  /** Page errors and console errors seen so far. */
  pageErrors: string[];
  /** Sends an event to the page as the host would. */
  emit(name: EventName, payload: unknown): Promise<void>;
  /** The view as it is now at both sizes: screenshots, the dialog fitting the window, and an axe scan. */
  look(name: string, options?: { dialog?: boolean }): Promise<void>;
  close(): Promise<void>;
}

/** Chromium on the built window, talking to `host`. */
export async function openWindow(host: DesktopHost): Promise<TestWindow> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const [dir, bridge] = await Promise.all([buildRenderer(), bundleBridge()]);
  const web = await serveWindow({ dir });
  const browser = await launchChromium();
  const page = await browser.newPage({ viewport: { ...SIZES[1] } });
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
  // The preload's API in the page: calls go to the real host through the same dispatch the main process uses.
  await page.exposeFunction('__drivesyncInvoke', (channel: string, arg: unknown) => dispatch(host, callOfIpcChannel(channel), arg));
  await page.addInitScript({ content: bridge });
  const emitRaw = (channel: string, payload: unknown) =>
    page.evaluate(([c, p]) => (globalThis as unknown as { __drivesyncEmit?: (c: string, p: unknown) => void }).__drivesyncEmit?.(c, p), [channel, payload] as const);
  const stopRelay = relayEvents(host, (channel, payload) => void emitRaw(channel, payload).catch(() => undefined));
  await page.goto(web.url);

  const axeScan = async (name: string) => {
    if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.evaluate(AXE);
    const found = (await page.evaluate(
      `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 3) })))`,
    )) as Array<{ id: string; impact: string | null; help: string; nodes: string[] }>;
    const serious = found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious, `${name}: ${JSON.stringify(serious, null, 1)}`).toEqual([]);
  };

  return {
    browser,
    page,
    web,
    keys: keyboard(page),
    pageErrors,
    emit: (name, payload) => emitRaw(ipcEventChannel(name), payload),
    async look(name, options = {}) {
      for (const size of SIZES) {
        await page.setViewportSize(size);
        await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => resolve(null)))');
        await page.screenshot({ path: join(ARTIFACTS, `${name}-${size.width}x${size.height}.png`), fullPage: !options.dialog });
        if (options.dialog) {
          // Nothing of an open dialog is out of the window: its title and every button can be seen or scrolled to inside it.
          const box = await page.locator('dialog[open]').boundingBox();
          expect(box, name).not.toBeNull();
          expect(box!.y, name).toBeGreaterThanOrEqual(0);
          expect(box!.y + box!.height, name).toBeLessThanOrEqual(size.height);
        }
      }
      await page.setViewportSize(SIZES[1]);
      await axeScan(name);
    },
    async close() {
      stopRelay();
      await browser.close();
      await web.close();
    },
  };
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
