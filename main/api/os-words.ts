/**
 * What the operating system said about a local file, in a few plain words: "permission denied", not
 * `EACCES: permission denied, open '/home/…/x.txt'` (the path is named beside it, relative to the synced folder).
 */
const WORDS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOENT: 'it is gone',
  ENOTDIR: 'a file is where a folder was',
  EISDIR: 'it is a folder',
  EIO: 'the disk reported a read error',
  EBUSY: 'another program is using it',
  ETXTBSY: 'another program is using it',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is full',
  EROFS: 'the disk is read-only',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the name or path is too long for this computer',
  EMFILE: 'too many files open; it is tried again',
  ENFILE: 'too many files open; it is tried again',
};

/** Node's `CODE: words, syscall 'path'` reduced to its words; any other message as it is, on one line. */
export function osReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code && WORDS[code]) return WORDS[code];
  const message = error instanceof Error ? error.message : String(error);
  const node = /^[A-Z][A-Z0-9_]+: ([^,]+)(?:, \w+ '.*')?$/s.exec(message.split('\n')[0]!);
  return node ? node[1]! : message.split('\n')[0]!;
}
