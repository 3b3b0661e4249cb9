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
/** Device names Win32 refuses, with any extension. */
const RESERVED = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?$/i;

/**
 * What a volume's names are (ports.ts `probeVolume` asks the volume): what makes two names one on it, and which names
 * it refuses. The planner is given them as data, so a folder's names are made for the disk it is on.
 */
export interface NameRules {
  /** `a.txt` and `A.TXT` are one name (macOS and Windows by default). */
  caseInsensitive: boolean;
  /** `café` in NFC and in NFD are one name, and the scan lists every name in NFC (macOS). */
  normalisesUnicode: boolean;
  /**
   * Win32's rules: `\ : * ? " < > |` and control characters refused, trailing dots and spaces dropped, device names
   * (`CON`, `NUL`, `COM1`, …) refused. Windows, and a FAT, exFAT or NTFS volume on Linux or macOS.
   */
  windowsNames: boolean;
}

/** Linux's volumes (ext4, btrfs, xfs, tmpfs…): any byte but `/` and NUL, case and normalisation kept. */
export const LINUX_NAMES: NameRules = { caseInsensitive: false, normalisesUnicode: false, windowsNames: false };

/**
 * The names older versions gave on every volume (Win32's rules, NFC). A local name of that form is still the one the
 * drive's name gives, so it follows to the name the volume's own rules give (M6) instead of staying as if the user
 * had chosen it.
 */
const PORTABLE_NAMES: NameRules = { caseInsensitive: false, normalisesUnicode: true, windowsNames: true };

/** The rules given, the rest as Linux's. */
export function nameRules(given: Partial<NameRules> = {}): NameRules {
  return {
    caseInsensitive: given.caseInsensitive ?? false,
    normalisesUnicode: given.normalisesUnicode ?? false,
    windowsNames: given.windowsNames ?? false,
  };
}

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
 * A local file name for an untrusted remote name, on a volume with these rules: never a path separator or NUL, never
 * `.` or `..`, at most 255 bytes; where the volume has Win32's rules, also none of the characters they refuse
 * (`\<>:"|?*`, control characters), no trailing dot or space, no device name; where it normalises, in NFC (as the scan
 * lists it). A name the volume takes is kept as it is.
 */
export function safeLocalName(remoteName: string, rules: NameRules): string {
  // Most names are printable ASCII that every volume takes: told by one test, as the planner asks for every entry.
  if (PLAIN_NAME.test(remoteName) && !RESERVED.test(remoteName)) return remoteName;
  const spelled = rules.normalisesUnicode ? remoteName.normalize('NFC') : remoteName;
  let name = rules.windowsNames ? windowsName(spelled) : posixName(spelled);
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) {
    // Long names keep their start and extension plus a short digest, so two long names stay distinct.
    const digest = createHash('sha256').update(remoteName).digest('hex').slice(0, 8);
    const [stem, ext] = splitExtension(name);
    const room = MAX_NAME_BYTES - Buffer.byteLength(ext) - digest.length - 1;
    name = `${cutToBytes(stem, room)}~${digest}${ext}`;
  }
  return name;
}

/** A name Linux takes: only `/` and NUL are refused, and `.` and `..` are not names. */
function posixName(name: string): string {
  const kept = name.replace(/[/\0]/g, '_');
  return kept === '' || kept === '.' || kept === '..' ? `_${kept}` : kept;
}

/** A name Win32 takes: its refused characters replaced, no trailing dot or space, no device name. */
function windowsName(name: string): string {
  let kept = name.replace(/[/\\\0-\x1f\x7f<>:"|?*]/g, '_');
  if (kept === '' || kept === '.' || kept === '..') kept = `_${kept}`;
  kept = kept.replace(/[. ]+$/, (tail) => '_'.repeat(tail.length));
  return RESERVED.test(kept) ? `_${kept}` : kept;
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
export function isGivenName(localName: string, remoteName: string, rules: NameRules): boolean {
  if (givenFrom(localName, safeLocalName(remoteName, rules), rules)) return true;
  return !rules.windowsNames && givenFrom(localName, safeLocalName(remoteName, PORTABLE_NAMES), rules);
}

/** Whether `localName` is `safe` or that numbered, names compared as the volume compares them. */
function givenFrom(localName: string, safe: string, rules: NameRules): boolean {
  const key = (name: string) => nameKey(name, rules);
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
 * The local names the drive's names give the entries of one folder, the same on every computer whose volume has these
 * rules: each entry's safe name; entries whose safe names clash (duplicate names on the drive, NFC/NFD twins, case
 * twins where the volume folds case, names Win32's rules make one) keep it in the order of their ids, lowest first,
 * and the others are numbered (`a (2).txt`, …) with numbers no entry of the folder has as its own name.
 */
export function givenNames<T extends { id: number; name: string }>(entries: readonly T[], rules: NameRules): Map<number, string> {
  const out = new Map<number, string>();
  const byKey = new Map<string, T[]>();
  for (const entry of entries) {
    const key = nameKey(safeLocalName(entry.name, rules), rules);
    const group = byKey.get(key);
    if (group) group.push(entry);
    else byKey.set(key, [entry]);
  }
  const taken = new Set(byKey.keys());
  for (const group of byKey.values()) {
    // The drive's entries first, oldest first; a folder drivesync made up (a negative id: Shared with me) yields its
    // name to an entry of the drive, so a folder of the user's own is never renamed here for it.
    group.sort((a, b) => (a.id < 0 === b.id < 0 ? a.id - b.id : a.id < 0 ? 1 : -1));
    out.set(group[0]!.id, safeLocalName(group[0]!.name, rules));
    let n = 2;
    for (const entry of group.slice(1)) {
      const own = safeLocalName(entry.name, rules);
      let candidate = numberedName(own, n);
      while (taken.has(nameKey(candidate, rules))) candidate = numberedName(own, ++n);
      taken.add(nameKey(candidate, rules));
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
  // The drive takes renames of at most 200 characters, and a local name holds at most 255 bytes: a long stem is cut,
  // the tag and extension kept.
  const room = 200 - [...tag].length - [...ext].length;
  const short = [...stem].length > room ? [...stem].slice(0, Math.max(1, room)).join('') : stem;
  const cut = cutToBytes(short, MAX_NAME_BYTES - Buffer.byteLength(tag) - Buffer.byteLength(ext)) || [...short].slice(0, 1).join('');
  return `${cut}${tag}${ext}`;
}

/** The path a conflicted copy was made for: `name (conflicted copy YYYY-MM-DD HHMMSS host).ext` → `name.ext`. */
export function conflictOriginal(copyPath: string): string {
  return copyPath.replace(/ \(conflicted copy \d{4}-\d{2}-\d{2} \d{6} [^)/]*\)(?=(\.[^./]*)?$)/, '');
}

/** Whether a path names a conflicted copy (`name (conflicted copy DATE TIME host).ext`). */
export const isConflictedCopy = (path: string): boolean => conflictOriginal(path) !== path;

/** What safeLocalName changes in a name under Win32's rules, character for character (a path's separators kept). */
const UNSAFE_CHARACTERS = /[\\\0-\x1f\x7f<>:"|?*]/g;
const UNSAFE_ENDINGS = /[. ]+(?=\/|$)/g;

/**
 * The key two names clash on: NFC always (NFC/NFD twins are one name on some volumes, and every computer numbers them
 * alike), case too where folded, and under Win32's rules the characters safeLocalName replaces there (a remote
 * `a:b.txt` is downloaded as `a_b.txt`, so a local `a:b.txt` made where it can be is the item at its place: the same
 * file on both sides at a first sync is matched, not uploaded again beside the download).
 */
export const nameKey = (name: string, rules: NameRules): string => {
  let key = name.normalize('NFC');
  if (rules.windowsNames) key = windowsKey(key);
  return rules.caseInsensitive ? key.toLowerCase() : key;
};

function windowsKey(name: string): string {
  let key = name;
  UNSAFE_CHARACTERS.lastIndex = 0;
  if (UNSAFE_CHARACTERS.test(key)) key = key.replace(UNSAFE_CHARACTERS, '_');
  if (key.endsWith('.') || key.endsWith(' ') || key.includes('./') || key.includes(' /')) {
    key = key.replace(UNSAFE_ENDINGS, (tail) => '_'.repeat(tail.length));
  }
  return key;
}
