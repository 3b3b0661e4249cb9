/**
 * A local path inside a synced folder turned into the remote entry it is synced with, through that folder's mirror
 * (read-only), with the command line's one-line failures when it cannot be.
 */
import { existsSync } from 'node:fs';
import type { MirrorEntry, MirrorReader } from '../sync/mirror-read.js';
import { canonicalPath, findRoot, rootOfAccount } from '../state/roots.js';
import type { StatePaths } from '../state/paths.js';
import { CliError } from './errors.js';

/**
 * Runs `read` on a read-only connection to a root's mirror; null when the root was never synced. The mirror's
 * module (and with it better-sqlite3) is loaded only by the commands that read one.
 */
export async function withMirror<T>(file: string, read: (mirror: MirrorReader) => T): Promise<T | null> {
  const { readMirror } = await import('../sync/mirror-read.js');
  return readMirror(file, read);
}

export interface Located extends MirrorEntry {
  root: string;
  /** The path as the user gave it, for messages. */
  shown: string;
}

/** The remote entry a local path inside a synced root is synced with, or a one-line failure saying why not. */
export async function locate(
  paths: StatePaths,
  roots: readonly string[],
  server: string,
  email: string | undefined,
  given: string,
): Promise<Located> {
  const abs = canonicalPath(given);
  const found = findRoot(roots, abs);
  if (!found) {
    const list = roots.length === 0 ? 'no folder is synced yet: run drivesync sync DIR' : `synced folders: ${roots.join(', ')}`;
    throw new CliError(`${given} is not inside a synced folder (${list})`);
  }
  if (found.rel === '') throw new CliError(`${given} is the synced folder itself; name a file or folder inside it`);
  const { mirror } = rootOfAccount(paths, found.root, server, email);
  const item = await withMirror(mirror, (reader) => reader.itemAt(found.rel));
  if (item === null) throw new CliError(`${found.root} has not been synced with this account yet: run drivesync sync ${found.root}`);
  if (!item) {
    const hint = existsSync(abs) ? `run drivesync sync ${found.root} first` : 'no such file or folder';
    throw new CliError(`${given} is not synced (${hint})`);
  }
  return { ...item, root: found.root, shown: given };
}

