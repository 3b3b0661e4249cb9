/**
 * `drivesync file-manager install|remove`: the extension (extensions/file-manager) copied for the current user under
 * `$XDG_DATA_HOME` — for Nautilus, Nemo and Caja from one source — with its emblems in the user's icon theme. The
 * .deb links the same files system-wide (scripts/deb/).
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const EXTENSION_FILE = 'drivesync_file_manager.py';

/** The file managers the extension serves: where each reads Python extensions, and its Python binding's library. */
export const FILE_MANAGERS = [
  { name: 'Nautilus', folder: 'nautilus-python/extensions', binding: 'libnautilus-python.so', lib: 'nautilus', apt: 'python3-nautilus' },
  { name: 'Nemo', folder: 'nemo-python/extensions', binding: 'libnemo-python.so', lib: 'nemo', apt: 'nemo-python' },
  { name: 'Caja', folder: 'caja-python/extensions', binding: 'libcaja-python.so', lib: 'caja', apt: 'python3-caja' },
] as const;

export const EMBLEMS_FOLDER = 'icons/hicolor/scalable/emblems';

/** `$XDG_DATA_HOME`, or ~/.local/share. */
export function dataHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.XDG_DATA_HOME?.startsWith('/') ? env.XDG_DATA_HOME : join(homedir(), '.local', 'share');
}

/** The extension's sources: beside the built code in a checkout or an npm install, or the app's resources. */
export function extensionSource(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, '..', '..', '..', 'extensions', 'file-manager'), join(here, '..', '..', 'extensions', 'file-manager')];
  const resources = (process as { resourcesPath?: string }).resourcesPath;
  if (resources) candidates.push(join(resources, 'file-manager'));
  const found = candidates.find((dir) => existsSync(join(dir, EXTENSION_FILE)));
  if (!found) throw new Error(`the file manager extension is not where drivesync is installed (looked in ${candidates.join(', ')})`);
  return found;
}

/** Whether a file manager's Python binding is installed (its library under /usr/lib). */
export function hasBinding(fm: (typeof FILE_MANAGERS)[number], libRoots = ['/usr/lib', '/usr/lib64']): boolean {
  const holds = (dir: string): boolean => {
    if (!existsSync(dir)) return false;
    return readdirSync(dir, { withFileTypes: true }).some((e) => (e.isDirectory() ? e.name.startsWith('extensions') && holds(join(dir, e.name)) : e.name === fm.binding));
  };
  for (const root of libRoots) {
    if (!existsSync(root)) continue;
    const places = [join(root, fm.lib), ...readdirSync(root).filter((d) => d.includes('-linux-')).map((d) => join(root, d, fm.lib))];
    if (places.some(holds)) return true;
  }
  return false;
}

export interface Installed {
  /** Files written. */
  files: string[];
  /** The file managers whose Python binding is here (the others need theirs installed first). */
  ready: string[];
  missing: Array<{ name: string; apt: string }>;
}

export function installExtension(source = extensionSource(), data = dataHome(), libRoots?: string[]): Installed {
  const files: string[] = [];
  for (const fm of FILE_MANAGERS) {
    const to = join(data, fm.folder, EXTENSION_FILE);
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(join(source, EXTENSION_FILE), to);
    files.push(to);
  }
  const emblems = join(data, EMBLEMS_FOLDER);
  mkdirSync(emblems, { recursive: true });
  for (const icon of readdirSync(join(source, 'emblems')).filter((n) => n.endsWith('.svg'))) {
    copyFileSync(join(source, 'emblems', icon), join(emblems, icon));
    files.push(join(emblems, icon));
  }
  const ready = FILE_MANAGERS.filter((fm) => hasBinding(fm, libRoots));
  return { files, ready: ready.map((fm) => fm.name), missing: FILE_MANAGERS.filter((fm) => !ready.includes(fm)).map((fm) => ({ name: fm.name, apt: fm.apt })) };
}

/** Removes what install wrote; the files removed. */
export function removeExtension(data = dataHome()): string[] {
  const removed: string[] = [];
  const gone = (path: string) => {
    if (!existsSync(path)) return;
    rmSync(path, { force: true });
    removed.push(path);
  };
  for (const fm of FILE_MANAGERS) {
    gone(join(data, fm.folder, EXTENSION_FILE));
    // Python leaves its compiled copy beside the extension.
    const cache = join(data, fm.folder, '__pycache__');
    if (existsSync(cache)) for (const n of readdirSync(cache).filter((n) => n.startsWith('drivesync_file_manager.'))) gone(join(cache, n));
  }
  const emblems = join(data, EMBLEMS_FOLDER);
  if (existsSync(emblems)) for (const n of readdirSync(emblems).filter((n) => /^drivesync-.*\.svg$/.test(n))) gone(join(emblems, n));
  return removed;
}
