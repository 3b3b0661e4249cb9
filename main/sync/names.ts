import { createHash } from 'node:crypto';
import type { RelPath } from './types.js';

export const parentOf = (path: RelPath): RelPath => {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
};

export const baseName = (path: RelPath): string => path.slice(path.lastIndexOf('/') + 1);

export const joinPath = (parent: RelPath, name: string): RelPath => (parent === '' ? name : `${parent}/${name}`);

/** True when `path` is `ancestor` itself or lies below it. */
export const isWithin = (path: RelPath, ancestor: RelPath): boolean =>
  ancestor === '' || path === ancestor || path.startsWith(`${ancestor}/`);

/** `path` with its `from` prefix replaced by `to` (for moving a subtree). */
export const rebase = (path: RelPath, from: RelPath, to: RelPath): RelPath =>
  path === from ? to : `${to}${path.slice(from.length)}`;

const MAX_NAME_BYTES = 255;
/** Names Windows refuses; refused everywhere so a folder stays portable between a user's machines. */
const RESERVED = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?$/i;

function splitExtension(name: string): [string, string] {
  const dot = name.lastIndexOf('.');
  return dot > 0 && dot >= name.length - 12 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
}

function cutToBytes(text: string, maxBytes: number): string {
  let out = '';
  let bytes = 0;
  for (const ch of text) {
    const size = Buffer.byteLength(ch);
    if (bytes + size > maxBytes) break;
    out += ch;
    bytes += size;
  }
  return out;
}

/** Printable ASCII without a character any volume refuses, not ending in a dot or space, at most 255 bytes. */
const PLAIN_NAME = /^[^/\\<>:"|?*\x00-\x1f\x7f-\uffff]{0,254}[^/\\<>:"|?*\x00-\x20.\x7f-\uffff]$/;

/**
 * A local file name for an untrusted remote name: never a path separator, NUL or control character, none of the
 * characters Windows refuses (`<>:"|?*`), never `.` or `..`, at most 255 bytes, no trailing dot or space, no reserved
 * device name. A name that needs no change is kept.
 */
export function safeLocalName(remoteName: string): string {
  // Most names are printable ASCII with nothing to change: told by one test, as the planner asks for every entry.
  if (PLAIN_NAME.test(remoteName) && !RESERVED.test(remoteName)) return remoteName;
  let name = remoteName.normalize('NFC').replace(/[/\\\0-\x1f\x7f<>:"|?*]/g, '_');
  if (name === '' || name === '.' || name === '..') name = `_${name}`;
  name = name.replace(/[. ]+$/, (tail) => '_'.repeat(tail.length));
  if (RESERVED.test(name)) name = `_${name}`;
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) {
    // Long names keep their start and extension plus a short digest, so two long names stay distinct.
    const digest = createHash('sha256').update(remoteName).digest('hex').slice(0, 8);
    const [stem, ext] = splitExtension(name);
    const room = MAX_NAME_BYTES - Buffer.byteLength(ext) - digest.length - 1;
    name = `${cutToBytes(stem, room)}~${digest}${ext}`;
  }
  return name;
}

/** `a.txt` → `a (2).txt`: the name for the n-th item claiming the same local name. */
export function numberedName(name: string, n: number): string {
  if (n <= 1) return name;
  const [stem, ext] = splitExtension(name);
  return `${stem} (${n})${ext}`;
}

/**
 * Whether a local name is one the drive's name gives (its safe form, or that numbered: `a (2).txt` for `a.txt`), as
 * opposed to a name the user chose that the drive could not take (kept mapped in base). Only a given name follows
 * when the drive's names change.
 */
export function isGivenName(localName: string, remoteName: string, caseInsensitive = false): boolean {
  const safe = safeLocalName(remoteName);
  const key = (name: string) => nameKey(name, caseInsensitive);
  if (key(localName) === key(safe)) return true;
  // A new local folder the drive took under a number (its name was a sibling folder's): it takes the number here too.
  if (isNumberedFrom(safe, localName, key)) return true;
  return isNumberedFrom(localName, safe, key);
}

/** Whether `name` is `base` numbered (`a (2).txt` from `a.txt`), names compared by `key`. */
function isNumberedFrom(name: string, base: string, key: (name: string) => string): boolean {
  const [stem, ext] = splitExtension(base);
  const numbered = /^(.*) \((\d{1,6})\)(.*)$/su.exec(name);
  if (!numbered || Number(numbered[2]) < 2) return false;
  return key(numbered[1]!) === key(stem) && key(numbered[3]!) === key(ext);
}

/**
 * The local names the drive's names give the entries of one folder, the same on every computer: each entry's safe
 * name; entries whose safe names clash (duplicate names on the drive, NFC/NFD twins, case twins where the volume
 * folds case) keep it in the order of their ids, lowest first, and the others are numbered (`a (2).txt`, …) with
 * numbers no entry of the folder has as its own name.
 */
export function givenNames<T extends { id: number; name: string }>(entries: readonly T[], caseInsensitive: boolean): Map<number, string> {
  const out = new Map<number, string>();
  const byKey = new Map<string, T[]>();
  for (const entry of entries) {
    const key = nameKey(safeLocalName(entry.name), caseInsensitive);
    const group = byKey.get(key);
    if (group) group.push(entry);
    else byKey.set(key, [entry]);
  }
  const taken = new Set(byKey.keys());
  for (const group of byKey.values()) {
    // The drive's entries first, oldest first; a folder drivesync made up (a negative id: Shared with me) yields its
    // name to an entry of the drive, so a folder of the user's own is never renamed here for it.
    group.sort((a, b) => (a.id < 0 === b.id < 0 ? a.id - b.id : a.id < 0 ? 1 : -1));
    out.set(group[0]!.id, safeLocalName(group[0]!.name));
    let n = 2;
    for (const entry of group.slice(1)) {
      const own = safeLocalName(entry.name);
      let candidate = numberedName(own, n);
      while (taken.has(nameKey(candidate, caseInsensitive))) candidate = numberedName(own, ++n);
      taken.add(nameKey(candidate, caseInsensitive));
      out.set(entry.id, candidate);
      n++;
    }
  }
  return out;
}

/**
 * `name (conflicted copy YYYY-MM-DD HHMMSS host).ext`, the local copy kept when both sides changed a file.
 * The timestamp is UTC so two machines in different zones write comparable names.
 */
export function conflictedCopyName(name: string, when: Date, host: string): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const stamp =
    `${when.getUTCFullYear()}-${pad(when.getUTCMonth() + 1)}-${pad(when.getUTCDate())} ` +
    `${pad(when.getUTCHours())}${pad(when.getUTCMinutes())}${pad(when.getUTCSeconds())}`;
  const [stem, ext] = splitExtension(name);
  const safeHost = host.replace(/[^\w.-]/g, '-').slice(0, 40) || 'host';
  const tag = ` (conflicted copy ${stamp} ${safeHost})`;
  // The drive takes renames of at most 200 characters: a long stem is cut, the tag and extension kept.
  const room = 200 - [...tag].length - [...ext].length;
  const cut = [...stem].length > room ? [...stem].slice(0, Math.max(1, room)).join('') : stem;
  return `${cut}${tag}${ext}`;
}

/** The path a conflicted copy was made for: `name (conflicted copy YYYY-MM-DD HHMMSS host).ext` → `name.ext`. */
export function conflictOriginal(copyPath: string): string {
  return copyPath.replace(/ \(conflicted copy \d{4}-\d{2}-\d{2} \d{6} [^)/]*\)(?=(\.[^./]*)?$)/, '');
}

/** What safeLocalName changes in a name, character for character (a path's separators kept). */
const UNSAFE_CHARACTERS = /[\\\0-\x1f\x7f<>:"|?*]/g;
const UNSAFE_ENDINGS = /[. ]+(?=\/|$)/g;

/**
 * The key two names clash on: NFC always (NFC/NFD twins are one name on some volumes), case too where folded, and
 * the characters safeLocalName replaces (a remote `a:b.txt` is downloaded as `a_b.txt`, so a local `a:b.txt` made
 * on Linux, where it can be, is the item at its place: the same file on both sides at a first sync is matched, not
 * uploaded again beside the download).
 */
export const nameKey = (name: string, caseInsensitive: boolean): string => {
  let key = name.normalize('NFC');
  UNSAFE_CHARACTERS.lastIndex = 0;
  if (UNSAFE_CHARACTERS.test(key)) key = key.replace(UNSAFE_CHARACTERS, '_');
  if (key.endsWith('.') || key.endsWith(' ') || key.includes('./') || key.includes(' /')) {
    key = key.replace(UNSAFE_ENDINGS, (tail) => '_'.repeat(tail.length));
  }
  return caseInsensitive ? key.toLowerCase() : key;
};
