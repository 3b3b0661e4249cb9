/**
 * Where the window's sign-in keeps the token: the same OS keychain entry (keytar, service `drivesync`, account
 * `SERVER EMAIL`) and the same 0600 fallback file as the command line, through the shared credential module
 * (main/state), so signing in with either signs in both.
 */
import { findToken, removeToken, storeToken } from '../../state/credentials.js';
import type { StatePaths } from '../../state/paths.js';

export interface TokenStore {
  load(server: string, email: string): Promise<string | null>;
  /** `tell` is called, before the token is written, when it has to go to the fallback file. */
  save(server: string, email: string, token: string, tell: (line: string) => void): Promise<void>;
  remove(server: string, email: string): Promise<void>;
}

export function keychainTokens(paths: StatePaths, env: NodeJS.ProcessEnv = process.env): TokenStore {
  return {
    load: async (server, email) => (await findToken(paths, server, email, env))?.token ?? null,
    save: async (server, email, token, tell) => {
      await storeToken(paths, server, email, token, tell);
    },
    remove: async (server, email) => {
      await removeToken(paths, server, email);
    },
  };
}

/** Tokens in memory only (tests, or a session that must not touch the keychain). */
export function memoryTokens(): TokenStore & { readonly saved: Map<string, string> } {
  const saved = new Map<string, string>();
  const key = (server: string, email: string) => `${server} ${email}`;
  return {
    saved,
    load: async (server, email) => saved.get(key(server, email)) ?? null,
    save: async (server, email, token) => {
      saved.set(key(server, email), token);
    },
    remove: async (server, email) => {
      saved.delete(key(server, email));
    },
  };
}
