/**
 * `npm run window`: the desktop window in a browser, without Electron. Starts the reference server on a free
 * loopback port (its data in a temp folder), a demo account signed in through the real host (main/app/host), a
 * synced folder of sample files, and serves the built renderer on 127.0.0.1 wired to that host (serve.ts). Prints
 * one line, `open http://127.0.0.1:PORT/ in a browser`, and runs until Ctrl-C; then everything it made is removed.
 *
 *   npm run window                    (builds first when a source changed)
 *   tsx scripts/window/preview.ts [--port N]
 *
 * The account is preview@example.com with the password `preview-password` (signing out and in again works); what
 * only the desktop can do (the clipboard, opening a file, the folder picker) is said on stderr instead.
 */
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { DesktopHost, type HostPlatform } from '../../main/app/host/host.js';
import { memoryTokens } from '../../main/app/host/tokens.js';
import { statePaths } from '../../main/state/paths.js';
import { startServer } from '../../server/app.js';
import { BUILT_RENDERER, serveWindow } from './serve.js';

const PREVIEW_EMAIL = 'preview@example.com';
const PREVIEW_PASSWORD = 'preview-password';

const SAMPLES: ReadonlyArray<readonly [string, string]> = [
  ['hello.txt', 'Hello from drivesync!\nEdit this file and watch the window follow.\n'],
  ['notes.md', '# Notes\n\n- This folder is synced with a reference server on this computer.\n- Share a file from the Files view.\n'],
  ['Projects/plan.txt', 'Step 1: edit a file.\nStep 2: share it.\nStep 3: there is no step 3.\n'],
];

const say = (line: string): void => void process.stderr.write(`drivesync window: ${line}\n`);

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { port: { type: 'string' } } });
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`--port ${values.port} is not a port number`);
  if (!existsSync(join(BUILT_RENDERER, 'index.html'))) throw new Error(`${BUILT_RENDERER} has no build: run npm run build (npm run window builds it)`);

  const dir = mkdtempSync(join(tmpdir(), 'drivesync-window-'));
  const folder = join(dir, 'Drive');
  const trash = join(dir, 'trash');
  for (const path of [folder, trash]) mkdirSync(path, { recursive: true });
  for (const [path, content] of SAMPLES) {
    const file = join(folder, ...path.split('/'));
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, content);
  }

  const server = await startServer({ dataDir: join(dir, 'server'), host: '127.0.0.1', port: 0 });
  const platform: HostPlatform = {
    copyText: (text) => say(`copied to the clipboard: ${text}`),
    openPath: (path) => say(`the desktop would open ${path}`),
    showItemInFolder: (path) => say(`the desktop would show ${path} in its folder`),
    setStartAtLogin: (enabled) => say(`start at login ${enabled ? 'on' : 'off'} (the desktop app sets it)`),
  };
  const host = new DesktopHost({
    paths: statePaths({ DRIVESYNC_HOME: join(dir, 'home') }),
    platform,
    defaultFolder: folder,
    tokens: memoryTokens(),
    hostname: 'preview',
    // Deleted items go to a trash of the preview's own, which goes with it.
    trash: async (path) => renameSync(path, join(trash, `${Date.now()}-${basename(path)}`)),
    env: {},
  });
  let web: Awaited<ReturnType<typeof serveWindow>> | undefined;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await web?.close().catch(() => undefined);
    await host.dispose().catch(() => undefined);
    await server.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    process.exit(code);
  };
  process.once('SIGINT', () => void stop(0));
  process.once('SIGTERM', () => void stop(0));

  try {
    await host.init();
    // The reference server lets anyone register: the preview's account is made, then signed in by the host.
    const registered = await fetch(`${server.url}/api/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ email: PREVIEW_EMAIL, password: PREVIEW_PASSWORD, password_confirmation: PREVIEW_PASSWORD, token_name: 'preview' }),
    });
    if (!registered.ok) throw new Error(`the preview account could not be made: ${registered.status} ${await registered.text()}`);
    await host.handle('auth:sign-in', { server: server.url, email: PREVIEW_EMAIL, password: PREVIEW_PASSWORD });
    web = await serveWindow({ host, port });
  } catch (error) {
    say((error as Error).message);
    await stop(1);
    return;
  }
  process.stdout.write(`open ${web.url} in a browser\n`);
}

await main();
