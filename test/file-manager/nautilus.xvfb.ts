/**
 * The file manager extension in a real Nautilus (43, GTK 4) under Xvfb, as a person would meet it: `drivesync
 * file-manager install`, `drivesync sync DIR` running, Nautilus opened on DIR. The emblems appear (a screenshot is
 * kept in test-artifacts/), and the right-click menu's drivesync → "Copy link" puts a link on the clipboard whose page
 * serves the file. Run by `npm run file-manager-check`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUp, cli, makeTree, newAccount, signedInHome, spawnCli, tempDir, useCliTestServer } from '../cli/helpers.js';

const ARTIFACTS = resolve(import.meta.dirname, '../../test-artifacts');
const NEEDED: Record<string, string> = {
  nautilus: 'nautilus',
  'xvfb-run': 'xvfb',
  xdotool: 'xdotool',
  xwd: 'x11-apps',
  xclip: 'xclip',
  'dbus-run-session': 'dbus',
};

function missing(): string[] {
  const found = (tool: string) => ['/usr/bin', '/bin', '/usr/local/bin'].some((d) => existsSync(join(d, tool)));
  const lacking = Object.entries(NEEDED).filter(([tool]) => !found(tool)).map(([, pkg]) => pkg);
  if (!existsSync('/usr/bin/convert')) lacking.push('imagemagick');
  if (!['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib'].some((d) => existsSync(join(d, 'nautilus/extensions-4/libnautilus-python.so')))) lacking.push('python3-nautilus');
  return lacking;
}

/** What the desktop session does: Nautilus on DIR, the emblems waited for, a screenshot, drivesync → Copy link. */
const SESSION = String.raw`
set -u
shot() { xwd -root -silent | /usr/bin/convert xwd:- "$ARTIFACTS/$1"; }
nautilus --new-window "$DIR" > "$OUT/nautilus.log" 2>&1 &
for i in $(seq 1 60); do grep -q "emblem drivesync-synced $DIR/report.txt" "$DRIVESYNC_FM_LOG" 2>/dev/null && break; sleep 0.5; done
sleep 1
shot nautilus-emblems.png
# The first icon of the grid is archive, the next docs, then report.txt (folders first, by name).
xdotool mousemove 641 125 click 1
sleep 0.5
xdotool key shift+F10
sleep 1
shot nautilus-menu.png
# From the first item, Up twice: Properties, then the drivesync submenu; into it, past its header, Copy link.
xdotool key Up Up Right
sleep 1
shot nautilus-drivesync-menu.png
xdotool key Down
sleep 0.5
xdotool key Return
for i in $(seq 1 40); do grep -q "^copying " "$DRIVESYNC_FM_LOG" && break; sleep 0.5; done
sleep 1
xclip -o -selection clipboard > "$OUT/clipboard.txt" 2>/dev/null
cp "$DRIVESYNC_FM_LOG" "$ARTIFACTS/extension.log"; cp "$OUT/nautilus.log" "$ARTIFACTS/nautilus.log"
nautilus -q
`;

afterAll(() => cleanUp());
const server = useCliTestServer();

describe('a real Nautilus with the extension', () => {
  it('shows the emblems of a synced folder and copies a working link from the right-click menu', async () => {
    expect(missing(), `install them first: sudo apt install ${missing().join(' ')}`).toEqual([]);
    const account = await newAccount(server, 'nautilus');
    const home = await signedInHome(server, account);
    const runtime = tempDir('runtime');
    const data = tempDir('xdg-data');
    const out = tempDir('nautilus-out');
    const dir = join(tempDir(), 'Drive');
    makeTree(dir, { 'report.txt': 'the report', 'docs/plan.txt': 'plan' });
    mkdirSync(join(dir, 'archive'));
    writeFileSync(join(dir, 'archive', 'old.txt'), 'old');
    expect((await cli(['file-manager', 'install'], { home, env: { XDG_DATA_HOME: data } })).code).toBe(0);
    const running = spawnCli(['sync', dir], { home, env: { XDG_RUNTIME_DIR: runtime } });
    try {
      await running.waitFor(/^watching .* for changes/m, 30_000);
      symlinkSync('/etc/hostname', join(dir, 'shortcut'));
      writeFileSync(join(dir, 'report (conflicted copy 2026-01-01 120000 laptop).txt'), 'theirs');
      await running.waitFor(/uploaded report \(conflicted copy/m, 20_000);
      mkdirSync(ARTIFACTS, { recursive: true });
      const log = join(out, 'extension.log');
      writeFileSync(log, '');
      await new Promise<void>((done, fail) => {
        const session = spawn('dbus-run-session', ['--', 'xvfb-run', '-a', '-s', '-screen 0 1280x800x24', 'bash', '-c', SESSION], {
          env: { ...process.env, HOME: home, XDG_DATA_HOME: data, XDG_RUNTIME_DIR: runtime, DRIVESYNC_FM_LOG: log, DIR: dir, OUT: out, ARTIFACTS, NO_AT_BRIDGE: '1', GTK_A11Y: 'none' },
          stdio: 'ignore',
        });
        const timer = setTimeout(() => (session.kill('SIGKILL'), fail(new Error('the desktop session did not end in 120 s'))), 120_000);
        session.on('close', () => (clearTimeout(timer), done()));
      });
      const told = readFileSync(log, 'utf8').split('\n');
      expect(told[0]).toBe('loaded in Nautilus (GTK 4)');
      for (const [name, emblem] of [['report.txt', 'synced'], ['docs', 'synced'], ['archive', 'synced'], ['shortcut', 'ignored'], ['report (conflicted copy 2026-01-01 120000 laptop).txt', 'conflict']]) {
        expect(told, name!).toContain(`emblem drivesync-${emblem} ${join(dir, name!)}`);
      }
      expect(existsSync(join(ARTIFACTS, 'nautilus-emblems.png'))).toBe(true);
      const url = readFileSync(join(out, 'clipboard.txt'), 'utf8').trim();
      expect(url, told.join('\n')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/drive\/s\/\S+$/);
      expect(told).toContain(`copying ${url}`);
      expect(await (await fetch(url)).text()).toBe('the report');
    } finally {
      await running.stop('SIGINT');
    }
  });
});
