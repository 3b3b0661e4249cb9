/**
 * What the engines report, in plain words for the window: what went wrong, where, and what to do. The engine reports a
 * failed item as one technical line (`GET /drive/file-entries: connection refused`, an OS error, a refused name); this
 * turns it back into its kind and says it through the same wording as a failed call (main/api describeApiError), with
 * what happens next in a folder that syncs in the background.
 */
import {
  AbortedError,
  BadResponseError,
  ConflictError,
  ForbiddenError,
  InvalidError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
  type ApiError,
  type ApiErrorKind,
} from '../../api/errors.js';
import { describeApiError } from '../../api/errors.js';

export interface Where {
  /** The synced folder. */
  root: string;
  /** The server of the account, to name it. */
  server?: string;
}

const SIGN_IN_AGAIN = 'sign out and sign in again';

/** What a background sync does next, per kind: said after the failure. */
const NEXT: Partial<Record<ApiErrorKind, string>> = {
  network: 'Check your internet connection; drivesync tries again on its own.',
  timeout: 'drivesync tries again on its own.',
  server: 'drivesync tries again on its own.',
  'rate-limited': 'drivesync waits and tries again on its own.',
  forbidden: 'Ask the owner for access, or move the item out of the synced folder.',
  'not-found': 'It was probably deleted on the drive; the next sync catches up.',
  invalid: 'Rename or move the item; it is tried again at the next sync.',
  aborted: 'It is tried again at the next sync.',
  'bad-response': 'Check that the server address is the drive’s; drivesync tries again on its own.',
};

/** `METHOD endpoint: message`; an endpoint may be a placeholder with a space, as `GET {file url}`. */
const API_LINE = /^((?:GET|POST|PUT|PATCH|DELETE|HEAD) (?:\{[^}]*\}|\S+)): (.+)$/;

/** The ApiError an engine's line was made from (its `summary`), or null for a line of another kind. */
export function apiErrorOfLine(line: string): ApiError | null {
  const match = API_LINE.exec(line);
  if (!match) return null;
  const [, endpoint, message] = match as unknown as [string, string, string];
  const status = /^server error (\d{3})/.exec(message);
  if (status) return new ServerError(endpoint, message, Number(status[1]));
  if (/^(timed out|the server did not answer within |no data moved for |could not connect within )/.test(message)) return new TimeoutError(endpoint, message);
  // An https address on a plain-http server: OpenSSL's words, kept with their code so the call's wording names it.
  const tls = /\b(EPROTO|ERR_SSL_\w+)\b/.exec(message);
  if (tls) return new NetworkError(endpoint, message, tls[1]);
  if (/^(connection refused|host not found|network error)$|^(ECONN|EAI_|ENET|EHOST|EPIPE|socket hang up)/.test(message)) return new NetworkError(endpoint, message, undefined);
  if (message === 'the request was cancelled' || /^cannot read /.test(message)) return new AbortedError(endpoint, message);
  if (/session expired|not signed in|unauthenticated/i.test(message)) return new UnauthorizedError(endpoint, message, 401);
  if (message === 'too many requests') return new RateLimitedError(endpoint, message, undefined);
  if (/^(unexpected answer|the answer |page \d+ |the listing does not end|received \d+ bytes)/.test(message)) return new BadResponseError(endpoint, message);
  if (/not found/i.test(message)) return new NotFoundError(endpoint, message, 404);
  if (/not allowed|permission|forbidden/i.test(message)) return new ForbiddenError(endpoint, message, 403);
  if (/conflict/i.test(message)) return new ConflictError(endpoint, message, 409);
  return new InvalidError(endpoint, message, {});
}

/**
 * Where the server is, by its address: on this computer (loopback), on the local network (private ranges,
 * link-local, `.local` and single-label names), or out on the internet. "Check your internet connection" is no help
 * for the first two.
 */
export function serverPlace(server: string): 'this-computer' | 'local-network' | 'internet' {
  let host: string;
  try {
    host = new URL(server).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return 'internet';
  }
  if (host === 'localhost' || host.endsWith('.localhost') || /^127\./.test(host) || host === '::1' || host === '0.0.0.0') return 'this-computer';
  if (/^10\./.test(host) || /^192\.168\./.test(host) || /^172\.(1[6-9]|2\d|3[01])\./.test(host) || /^169\.254\./.test(host)) return 'local-network';
  if (/^f[cd][0-9a-f]{2}:/.test(host) || /^fe[89ab][0-9a-f]:/.test(host)) return 'local-network';
  if (!host.includes('.') && !host.includes(':')) return 'local-network';
  if (/\.(local|lan|home|internal|home\.arpa)$/.test(host)) return 'local-network';
  return 'internet';
}

/** The server as a person would type it: host and port, without the scheme. */
const hostOf = (server: string) => {
  try {
    return new URL(server).host;
  } catch {
    return server;
  }
};

const sentence = (text: string) => {
  const trimmed = text.trim();
  const first = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?…]$/.test(first) ? first : `${first}.`;
};

const folderName = (root: string) => root.replace(/[/\\]+$/, '').split(/[/\\]/).pop() || root;

/** The engine's line for downloads that do not fit on the disk (main/sync/pass.ts). */
export const NO_SPACE = /^not enough free space: /;

/** Where the window lets a person leave folders of the drive out (the command line's `drivesync exclude`). */
const CHOOSE_FOLDERS = 'Choose folders… in Settings';

/** What selective sync says of an item (main/sync/selective.ts), in the window's words. */
function selectionLine(line: string): string | null {
  const space = /^not enough free space: (.+) to download, (.+) free on this disk/.exec(line);
  if (space) {
    return `Not enough free space: ${space[1]} to download, ${space[2]} free on this disk, so nothing more is downloaded. Free some space and sync again, or leave folders out (Choose folders…).`;
  }
  const place = /^has the place of (.*), a folder of the drive this computer leaves out/.exec(line);
  if (place) {
    return `The drive has a folder “${place[1]}” here that this computer leaves out, so this folder, at its place, is not synced. Include the drive’s folder with ${CHOOSE_FOLDERS}, or rename this one.`;
  }
  const waits = /^excluded: leaves this computer once what changed here is on the drive \((.*)\)$/.exec(line);
  if (waits) return `Left out of this computer: its copy here is removed once what changed here is on the drive (${waits[1]}).`;
  const moved = /^was moved on the drive into (.*), which this computer leaves out, and has changes made here/.exec(line);
  if (moved) {
    return `It was moved on the drive into ${moved[1]}, which this computer leaves out, and it has changes made here: it is kept here and not synced. Include ${moved[1]} with ${CHOOSE_FOLDERS}, or move it back on the drive.`;
  }
  return null;
}

/** Lines the engine writes itself (names the service refuses, files it cannot read, what it skips). */
function localLine(line: string, where: Where): string | null {
  const selective = selectionLine(line);
  if (selective) return selective;
  const refused = /^the drive accepts folder names and renames of (\d+) to (\d+) characters, so "(.*)" cannot be made there; rename it$/.exec(line);
  if (refused) {
    return `The drive accepts folder names of ${refused[1]} to ${refused[2]} characters only, so “${refused[3]}” in ${folderName(where.root)} is not synced. Rename it and it syncs.`;
  }
  const movedIn = /^the drive accepts folder names of (\d+) to (\d+) characters, so "(.*)" cannot be made there, and what was moved into it stays where it was on the drive; rename the folder$/.exec(line);
  if (movedIn) {
    return `The drive accepts folder names of ${movedIn[1]} to ${movedIn[2]} characters only, so “${movedIn[3]}” in ${folderName(where.root)} cannot be made there, and what you moved into it stays where it was on the drive. Rename the folder and it syncs.`;
  }
  const empty = /^an empty folder named "(.*)" cannot be made on the drive \(folder names need (\d+) to (\d+) characters\)/.exec(line);
  if (empty) {
    return `The drive cannot hold an empty folder named “${empty[1]}” (folder names need ${empty[2]} to ${empty[3]} characters), so it is left out in ${folderName(where.root)}. It syncs once it holds a file, or under a longer name.`;
  }
  const kept = /^the drive does not accept "(.*)" as a name \((\d+) to (\d+) characters\); it is kept there as "(.*)"$/.exec(line);
  if (kept) return `The drive does not accept “${kept[1]}” as a name (${kept[2]} to ${kept[3]} characters), so on the drive it keeps the name “${kept[4]}”.`;
  if (/name is not valid UTF-8/.test(line)) return `This name is not valid UTF-8 (it comes from an older system), so it is not synced. Rename it in ${folderName(where.root)} and it syncs.`;
  if (/^the synced folder .* is gone \(deleted, moved, or on a disk that is not mounted\)/.test(line)) {
    return `The folder ${folderName(where.root)} is gone (deleted, moved, or on a disk that is not mounted). Nothing is synced, and nothing is deleted on the drive, until it is back. If you moved it, add it where it is now in Settings.`;
  }
  if (/ is not the folder that was synced here /.test(line)) {
    return `Another folder is at the place of ${folderName(where.root)} now (it was deleted and made again, replaced, or its disk is not mounted). Nothing is synced, and nothing is deleted on the drive. Sync it afresh to merge what is here with the drive.`;
  }
  if (line.startsWith('left out by the ignore rules')) {
    return 'Ignored: temporary and editor files, and names your ignore rules list (Settings), are not synced.';
  }
  if (line === 'symbolic links are not synced') return 'This is a symbolic link: drivesync does not follow links. Move the real file or folder into the synced folder instead.';
  if (/\bEACCES\b|\bEPERM\b|permission denied/i.test(line)) return `drivesync may not read or change this item in ${folderName(where.root)}. Check its permissions; it is tried again at the next sync.`;
  if (/\bENOSPC\b|no space left/i.test(line)) return 'The disk is full. Free some space; drivesync tries again on its own.';
  if (/\bEBUSY\b|resource busy|locked/i.test(line)) return 'Another program is using this file. Close it; it is tried again at the next sync.';
  if (/\bENAMETOOLONG\b/.test(line)) return 'The name or path is too long for this computer. Shorten it on the drive.';
  return null;
}

/** Why an item was left out by design (a pass's `skipped`), in plain words where there are some; otherwise as the engine said it. */
export function plainLeftOut(line: string, where: Where): string {
  return localLine(line, where) ?? line;
}

/** An engine's report (an item error, a folder's state detail) in plain words. */
export function plainProblem(line: string, where: Where): string {
  const local = localLine(line, where);
  if (local) return local;
  const error = apiErrorOfLine(line);
  if (!error) return sentence(line);
  const said = describeApiError(error, { signIn: SIGN_IN_AGAIN, server: where.server ? `the server ${where.server}` : 'the server' });
  // The address the window signed in with is the one to change: said instead of checking the connection.
  if (/ speaks plain http, not https: /.test(said)) return `${sentence(said.replace(/: use its http:\/\/ address$/, ''))} Sign out and sign in again with its http:// address.`;
  // A server on this computer or this network is not reached through the internet: ask whether it runs.
  const place = where.server && error.kind === 'network' ? serverPlace(where.server) : 'internet';
  if (place !== 'internet') {
    const question = place === 'this-computer' ? 'is it running?' : 'is it running, and is this computer on its network?';
    return `Cannot reach the drive server at ${hostOf(where.server!)} — ${question} drivesync tries again on its own.`;
  }
  const next = NEXT[error.kind];
  // "Try again later" is for a person who asked; a background sync tries again itself, and says so.
  return next ? `${sentence(said.replace(/; try again later$/, ''))} ${next}` : sentence(said);
}

/** What a refused share, permission change or link of an entry shared with the account says (the drive answers 403). */
export function onlyTheOwner(name: string, owner: string | null): string {
  return owner ? `Only the owner of “${name}” can share it: ask ${owner}.` : `Only the owner of “${name}” can share it.`;
}
