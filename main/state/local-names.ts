/**
 * Local names that are not valid UTF-8 (legacy-encoded names on Linux), as a path given on the command line reaches
 * them: node decodes an argument's bytes with U+FFFD where they do not decode, so the path names nothing on disk as
 * given. Each such name is found again among its folder's entries, read as bytes, by that same lossy decoding. The
 * engine does not sync these names (main/sync/local.ts reports them), so a command can say why instead of "no such
 * file".
 */
import { isUtf8 } from 'node:buffer';
import { readdirSync } from 'node:fs';
import { sep } from 'node:path';
import { readableName } from '../sync/local/scan.js';

export interface UndecodablePath {
  /** The first name on the path that is not valid UTF-8, its bad bytes shown as \xNN. */
  name: string;
  /** Whether that name is the path's last (the item itself, not a folder it is in). */
  last: boolean;
  /** Each name of the path as node decoded it (with U+FFFD) → as shown, for the names that are not valid UTF-8. */
  shown: ReadonlyMap<string, string>;
}

/** The entry of `dir` whose name decodes to `name`: one that is not valid UTF-8 first (the one node could not name). */
function entryDecodedAs(dir: Buffer, name: string): Buffer | undefined {
  let entries: Buffer[];
  try {
    entries = readdirSync(dir, { encoding: 'buffer' });
  } catch {
    return undefined;
  }
  const matching = entries.filter((bytes) => bytes.toString('utf8') === name);
  return matching.find((bytes) => !isUtf8(bytes)) ?? matching[0];
}

/**
 * What on the absolute path `abs` is named with bytes that are not valid UTF-8, when its names with U+FFFD match such
 * entries on disk; null when none do (the path is simply not there, or is spelled right).
 */
export function undecodableOnPath(abs: string): UndecodablePath | null {
  const names = abs.split(sep).filter((name) => name !== '');
  const shown = new Map<string, string>();
  let first: { name: string; last: boolean } | null = null;
  let dir = Buffer.from(sep);
  for (const [i, name] of names.entries()) {
    const bytes = name.includes('\uFFFD') ? entryDecodedAs(dir, name) : Buffer.from(name);
    if (!bytes) return null;
    if (!isUtf8(bytes)) {
      shown.set(name, readableName(bytes));
      first ??= { name: readableName(bytes), last: i === names.length - 1 };
    }
    dir = Buffer.concat([dir, dir.at(-1) === sep.charCodeAt(0) ? Buffer.alloc(0) : Buffer.from(sep), bytes]);
  }
  return first ? { ...first, shown } : null;
}
