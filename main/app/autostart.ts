/**
 * Start at login. macOS and Windows have app.setLoginItemSettings (a per-user Run key on Windows, a login item on
 * macOS); on Linux, where Electron offers nothing, the freedesktop way is a `.desktop` file in
 * `$XDG_CONFIG_HOME/autostart`. A start at login opens to the tray only.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const AUTOSTART_FILE = 'drivesync.desktop';

export function autostartDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME?.trim() || join(homedir(), '.config'), 'autostart');
}

/** Quotes a path for a desktop entry's Exec key. */
const quote = (path: string) => `"${path.replace(/(["`$\\])/g, '\\$1')}"`;

/** `command` is the program and its arguments (the packaged app; or electron and the app's folder in development). */
export function autostartEntry(command: readonly string[]): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=drivesync',
    'Comment=Keeps a folder in sync with your drive',
    `Exec=${command.map(quote).join(' ')} --hidden`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

export function writeAutostart(dir: string, command: readonly string[], enabled: boolean): void {
  const file = join(dir, AUTOSTART_FILE);
  if (!enabled) {
    rmSync(file, { force: true });
    return;
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, autostartEntry(command));
}

/**
 * Whether this start is the one at login. The Linux entry and the Windows Run key pass `--hidden`; a macOS login
 * item passes no arguments (Electron ignores `args` there), and Electron tells instead whether it opened the app.
 */
export function startedAtLogin(argv: readonly string[], platform: NodeJS.Platform, openedAtLogin: () => boolean): boolean {
  return argv.includes('--hidden') || (platform === 'darwin' && openedAtLogin());
}
