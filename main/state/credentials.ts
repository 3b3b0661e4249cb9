/**
 * The account's token: in the OS keychain through keytar (service `drivesync`, account `${server} ${email}`);
 * `DRIVESYNC_TOKEN` overrides it; where no keychain answers, a 0600 file under the state dir, and only after the
 * user has been told where.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import type { StatePaths } from './paths.js';

export const KEYCHAIN_SERVICE = 'drivesync';
const KEYCHAIN_TIMEOUT_MS = 10_000;

export type TokenSource = 'env' | 'keychain' | 'file';

export interface FoundToken {
  token: string;
  source: TokenSource;
}

interface Keytar {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
}

export const keychainAccount = (server: string, email: string) => `${server} ${email}`;

/** Why the keychain did not answer, as a short phrase. */
export class KeychainUnavailable extends Error {}

let keytarModule: Promise<Keytar> | null = null;

function loadKeytar(): Promise<Keytar> {
  keytarModule ??= import('keytar').then(
    (mod) => ((mod as unknown as { default?: Keytar }).default ?? (mod as unknown as Keytar)),
    (error: unknown) => {
      throw new KeychainUnavailable(`keytar cannot be loaded: ${firstLine(error)}`);
    },
  );
  return keytarModule;
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0]!.trim() || 'unknown error';
}

/** One keychain call, with a time limit: a keychain that never answers is no keychain. */
async function keychain<T>(call: (keytar: Keytar) => Promise<T>): Promise<T> {
  const keytar = await loadKeytar();
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      call(keytar).catch((error: unknown) => {
        throw new KeychainUnavailable(firstLine(error));
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new KeychainUnavailable('the keychain did not answer')), KEYCHAIN_TIMEOUT_MS);
        timer.unref();
      }),
    ]);
  } finally {
    if (timer) clearTimeout(timer);
  }
}

interface TokenFile {
  account: string;
  token: string;
}

function readTokenFile(paths: StatePaths): TokenFile | null {
  try {
    const parsed = JSON.parse(readFileSync(paths.tokenFile, 'utf8')) as Partial<TokenFile>;
    if (typeof parsed.account === 'string' && typeof parsed.token === 'string' && parsed.token !== '') {
      return { account: parsed.account, token: parsed.token };
    }
  } catch {
    // missing or unreadable: no token there
  }
  return null;
}

function writeTokenFile(paths: StatePaths, content: TokenFile): void {
  mkdirSync(dirname(paths.tokenFile), { recursive: true, mode: 0o700 });
  const tmp = `${paths.tokenFile}.${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  // Created 0600 from the start: the token is never readable by others, not even for a moment.
  writeFileSync(tmp, `${JSON.stringify(content)}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(tmp, 0o600);
  renameSync(tmp, paths.tokenFile);
}

/** The token to use: `DRIVESYNC_TOKEN`, else the keychain's or the fallback file's for this account. */
export async function findToken(
  paths: StatePaths,
  server: string | undefined,
  email: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<FoundToken | null> {
  const fromEnv = env.DRIVESYNC_TOKEN?.trim();
  if (fromEnv) return { token: fromEnv, source: 'env' };
  if (!server || !email) return null;
  const account = keychainAccount(server, email);
  // The file exists only when the keychain did not answer at sign-in; a later keychain sign-in removes it.
  const file = readTokenFile(paths);
  if (file && file.account === account) return { token: file.token, source: 'file' };
  try {
    const token = await keychain((k) => k.getPassword(KEYCHAIN_SERVICE, account));
    if (token) return { token, source: 'keychain' };
  } catch {
    // no keychain here: not signed in through it
  }
  return null;
}

export interface StoreResult {
  where: 'keychain' | 'file';
  /** Why the keychain was not used, when it was not. */
  reason?: string;
}

/**
 * Stores a new token for the account. `tell` is called with the line that says where the token goes before the
 * fallback file is written.
 */
export async function storeToken(
  paths: StatePaths,
  server: string,
  email: string,
  token: string,
  tell: (line: string) => void,
): Promise<StoreResult> {
  const account = keychainAccount(server, email);
  try {
    await keychain((k) => k.setPassword(KEYCHAIN_SERVICE, account, token));
    rmSync(paths.tokenFile, { force: true });
    return { where: 'keychain' };
  } catch (error) {
    const reason = firstLine(error);
    tell(`no OS keychain answered (${reason}); storing the token in ${paths.tokenFile}, readable only by you`);
    writeTokenFile(paths, { account, token });
    return { where: 'file', reason };
  }
}

export interface RemoveResult {
  keychain: boolean;
  file: boolean;
}

/** Removes the account's token from the keychain and the fallback file (whichever hold it). */
export async function removeToken(paths: StatePaths, server: string | undefined, email: string | undefined): Promise<RemoveResult> {
  let fromKeychain = false;
  if (server && email) {
    try {
      fromKeychain = await keychain((k) => k.deletePassword(KEYCHAIN_SERVICE, keychainAccount(server, email)));
    } catch {
      // no keychain: nothing stored there
    }
  }
  const hadFile = readTokenFile(paths) !== null;
  rmSync(paths.tokenFile, { force: true });
  return { keychain: fromKeychain, file: hadFile };
}
